/* The start of every fake PJRT_Api table of tests/lib (the loader's fake
 * plugin, fake_plugin.c, and the tables test_fake_api.c builds): this ABI's
 * size and major version, a minor version of the test's choosing, and the
 * three error entry points every table must have. The rest is NULL. */
#ifndef PJDL_TESTS_LIB_FAKE_API_H_
#define PJDL_TESTS_LIB_FAKE_API_H_

#include <string.h>

#include "pjrt_dlpack/pjrt_abi.h"

static inline void fake_api_init(PJRT_Api *api, int minor_version, PJRT_Error_Destroy *destroy,
                                 PJRT_Error_Message *message, PJRT_Error_GetCode *get_code) {
    memset(api, 0, sizeof *api);
    api->struct_size = PJRT_Api_STRUCT_SIZE;
    api->pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
    api->pjrt_api_version.major_version = PJRT_API_MAJOR;
    api->pjrt_api_version.minor_version = minor_version;
    api->PJRT_Error_Destroy = destroy;
    api->PJRT_Error_Message = message;
    api->PJRT_Error_GetCode = get_code;
}

#endif
