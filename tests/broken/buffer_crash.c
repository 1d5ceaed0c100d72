/* Broken: every PJRT_Client_BufferFromHostBuffer aborts the process, well
 * formed or not. `info` must print what it read before (the platform, the
 * devices), then the crash; `check` must not take the crash on a malformed
 * request for the plugin refusing it (reject.plugin FAILs, it is not
 * UNSUPPORTED). */
#include <stdlib.h>

#include "shim.h"

static PJRT_Error *from_host(PJRT_Client_BufferFromHostBuffer_Args *args) {
    (void)args;
    abort();
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Client_BufferFromHostBuffer = from_host;
    return api;
}
