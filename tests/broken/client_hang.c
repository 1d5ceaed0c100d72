/* Broken: PJRT_Client_Create never returns, as a real plugin that waits on
 * a server that does not answer. `info` must give up and report it. */
#include <unistd.h>

#include "shim.h"

static PJRT_Error *create(PJRT_Client_Create_Args *args) {
    (void)args;
    for (;;)
        pause();
    return NULL;
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Client_Create = create;
    return api;
}
