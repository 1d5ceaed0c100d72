/* Broken: PJRT_Client_PlatformName does not check struct_size; an args
 * struct from a caller built against an older, smaller layout is read past
 * its end. Caught by abi.args. */
#include "shim.h"

static PJRT_Error *platform_name(PJRT_Client_PlatformName_Args *args) {
    if (args != NULL && args->struct_size < PJRT_Client_PlatformName_Args_STRUCT_SIZE)
        args->struct_size = PJRT_Client_PlatformName_Args_STRUCT_SIZE;
    return shim_real()->PJRT_Client_PlatformName(args);
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Client_PlatformName = platform_name;
    return api;
}
