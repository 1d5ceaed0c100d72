/* Broken: PJRT_Client_BufferFromHostBuffer never returns. Every check that
 * makes a buffer must end after --timeout-ms naming that entry point, and
 * `info` must print what it read before. */
#include <unistd.h>

#include "shim.h"

static PJRT_Error *from_host(PJRT_Client_BufferFromHostBuffer_Args *args) {
    (void)args;
    for (;;)
        pause();
    return NULL;
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Client_BufferFromHostBuffer = from_host;
    return api;
}
