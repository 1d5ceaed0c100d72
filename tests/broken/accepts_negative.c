/* Broken: negative dimensions are silently made positive instead of being
 * refused. Caught by reject.plugin. */
#include "shim.h"

static void fix_dims(const int64_t **dims, size_t n, int64_t *tmp) {
    if (*dims == NULL || n > 64)
        return;
    for (size_t i = 0; i < n; i++)
        tmp[i] = (*dims)[i] < 0 ? -(*dims)[i] : (*dims)[i];
    *dims = tmp;
}

static PJRT_Error *from_host(PJRT_Client_BufferFromHostBuffer_Args *args) {
    int64_t tmp[64];
    const int64_t *orig = args ? args->dims : NULL;
    if (args != NULL)
        fix_dims(&args->dims, args->num_dims, tmp);
    PJRT_Error *err = shim_real()->PJRT_Client_BufferFromHostBuffer(args);
    if (args != NULL)
        args->dims = orig;
    return err;
}

static PJRT_Error *view(PJRT_Client_CreateViewOfDeviceBuffer_Args *args) {
    int64_t tmp[64];
    const int64_t *orig = args ? args->dims : NULL;
    if (args != NULL)
        fix_dims(&args->dims, args->num_dims, tmp);
    PJRT_Error *err = shim_real()->PJRT_Client_CreateViewOfDeviceBuffer(args);
    if (args != NULL)
        args->dims = orig;
    return err;
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Client_BufferFromHostBuffer = from_host;
    api->PJRT_Client_CreateViewOfDeviceBuffer = view;
    return api;
}
