/* Broken: PJRT_Buffer_ElementType reports S8 buffers as U8 (a signedness
 * mix-up). Caught by export.types. */
#include "shim.h"

static PJRT_Error *element_type(PJRT_Buffer_ElementType_Args *args) {
    PJRT_Error *err = shim_real()->PJRT_Buffer_ElementType(args);
    if (err == NULL && args->type == PJRT_Buffer_Type_S8)
        args->type = PJRT_Buffer_Type_U8;
    return err;
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Buffer_ElementType = element_type;
    return api;
}
