/* Broken: CreateViewOfDeviceBuffer ignores the layout it is given and views
 * every tensor as row-major. Caught by import.layouts. */
#include "shim.h"

static PJRT_Error *view_without_layout(PJRT_Client_CreateViewOfDeviceBuffer_Args *args) {
    if (args == NULL)
        return shim_real()->PJRT_Client_CreateViewOfDeviceBuffer(args);
    PJRT_Buffer_MemoryLayout *layout = args->layout;
    args->layout = NULL;
    PJRT_Error *err = shim_real()->PJRT_Client_CreateViewOfDeviceBuffer(args);
    args->layout = layout;
    return err;
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Client_CreateViewOfDeviceBuffer = view_without_layout;
    return api;
}
