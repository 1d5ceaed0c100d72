/* Broken: the table claims PJRT C API major version 1. Caught by
 * abi.version (the library must refuse it). */
#include "shim.h"

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->pjrt_api_version.major_version = PJRT_API_MAJOR + 1;
    return api;
}
