/* Not broken, but limited like many real plugins: CreateViewOfDeviceBuffer
 * answers UNIMPLEMENTED. `check` must report the view checks as UNSUPPORTED
 * (not FAIL) and still pass. */
#include "shim.h"

static PJRT_Error *no_view(PJRT_Client_CreateViewOfDeviceBuffer_Args *args) {
    (void)args;
    return shim_error(PJRT_Error_Code_UNIMPLEMENTED,
                      "PJRT_Client_CreateViewOfDeviceBuffer is not implemented by this plugin");
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Client_CreateViewOfDeviceBuffer = no_view;
    return api;
}
