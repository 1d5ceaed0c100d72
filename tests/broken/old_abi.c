/* Broken as XLA's older CPU plugins are: the table says ABI 0.106, and
 * PJRT_Client_BufferFromHostBuffer crashes the process on an element type
 * newer than that (XLA's of 0.106 segfaults on F6E2M3FN) instead of
 * refusing it. The library must never hand it one (subbyte.storage passes
 * without the 6-bit floats); abi.types names the crash. */
#include <signal.h>

#include "shim.h"

static PJRT_Error *buffer_from_host(PJRT_Client_BufferFromHostBuffer_Args *args) {
    if (args != NULL &&
        (args->type == PJRT_Buffer_Type_F6E2M3FN || args->type == PJRT_Buffer_Type_F6E3M2FN))
        raise(SIGSEGV);
    return shim_real()->PJRT_Client_BufferFromHostBuffer(args);
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->pjrt_api_version.minor_version = 106;
    api->PJRT_Client_BufferFromHostBuffer = buffer_from_host;
    return api;
}
