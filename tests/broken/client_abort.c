/* Broken: PJRT_Client_Create aborts the process, as real plugins do when
 * they find no device (a fatal assertion instead of an error). `info` must
 * survive it and report the crash. */
#include <stdlib.h>

#include "shim.h"

static PJRT_Error *create(PJRT_Client_Create_Args *args) {
    (void)args;
    abort();
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Client_Create = create;
    return api;
}
