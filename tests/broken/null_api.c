/* Broken: GetPjrtApi returns NULL. Caught by abi.entry. */
#include "shim.h"

const PJRT_Api *shim_install(PJRT_Api *api) {
    (void)api;
    return NULL;
}
