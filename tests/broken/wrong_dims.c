/* Broken: PJRT_Buffer_Dimensions reports the dimensions of 3-d and larger
 * buffers in minor-to-major order. Caught by export.shapes. */
#include "shim.h"

static _Thread_local int64_t reversed[64];

static PJRT_Error *dimensions(PJRT_Buffer_Dimensions_Args *args) {
    PJRT_Error *err = shim_real()->PJRT_Buffer_Dimensions(args);
    if (err == NULL && args->num_dims >= 3 && args->num_dims <= 64) {
        for (size_t i = 0; i < args->num_dims; i++)
            reversed[i] = args->dims[args->num_dims - 1 - i];
        args->dims = reversed;
    }
    return err;
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Buffer_Dimensions = dimensions;
    return api;
}
