/* Broken: PJRT_Device_LocalHardwareId reports 0 for every device, so every
 * device's memory exports the same DLDevice and a consumer cannot tell the
 * devices apart. Caught by export.fields (on xpu, which has two devices
 * with device memory). */
#include "shim.h"

static PJRT_Error *local_hardware_id(PJRT_Device_LocalHardwareId_Args *args) {
    PJRT_Error *err = shim_real()->PJRT_Device_LocalHardwareId(args);
    if (err == NULL)
        args->local_hardware_id = 0;
    return err;
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Device_LocalHardwareId = local_hardware_id;
    return api;
}
