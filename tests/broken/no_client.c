/* Broken: PJRT_Client_Create always fails, as a real plugin does on a
 * machine without its hardware. `info` must still print what it reads
 * without a client (ABI version, attributes, extensions) and the plugin's
 * own error. Like some real plugins, it logs to stdout first. */
#include <stdio.h>

#include "shim.h"

static PJRT_Error *create(PJRT_Client_Create_Args *args) {
    (void)args;
    printf("no_client shim: a log line on stdout\n");
    fflush(stdout);
    return shim_error(PJRT_Error_Code_FAILED_PRECONDITION,
                      "no_client shim: no device of this platform is visible");
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Client_Create = create;
    return api;
}
