/* Broken: PJRT_Buffer_GetMemoryLayout always reports the row-major layout,
 * also for buffers stored column-major. Caught by export.strided (the data
 * reads back transposed). */
#include "shim.h"

static _Thread_local int64_t row_major[64];

static PJRT_Error *memory_layout(PJRT_Buffer_GetMemoryLayout_Args *args) {
    PJRT_Error *err = shim_real()->PJRT_Buffer_GetMemoryLayout(args);
    if (err != NULL || args->layout.type != PJRT_Buffer_MemoryLayout_Type_Tiled)
        return err;
    size_t n = args->layout.tiled.minor_to_major_size;
    if (n > 64)
        return err;
    for (size_t i = 0; i < n; i++)
        row_major[i] = (int64_t)(n - 1 - i);
    args->layout.tiled.minor_to_major = row_major;
    return err;
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Buffer_GetMemoryLayout = memory_layout;
    return api;
}
