/* Broken: IncreaseExternalReferenceCount returns success without pinning
 * (and Decrease accepts anything), so deleting the buffer frees memory that
 * an exported tensor still points to. Caught by pin.raw, pin.export and
 * ondelete.once (a pinned view's callback runs at delete). */
#include "shim.h"

static PJRT_Error *no_increase(PJRT_Buffer_IncreaseExternalReferenceCount_Args *args) {
    (void)args;
    return NULL;
}

static PJRT_Error *no_decrease(PJRT_Buffer_DecreaseExternalReferenceCount_Args *args) {
    (void)args;
    return NULL;
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Buffer_IncreaseExternalReferenceCount = no_increase;
    api->PJRT_Buffer_DecreaseExternalReferenceCount = no_decrease;
    return api;
}
