/* The library missing_dep needs; built where the loader does not look. */
#include <stddef.h>

#include "pjrt_dlpack/pjrt_abi.h"

__attribute__((visibility("default"))) const PJRT_Api *pjdl_gone_api(void);

__attribute__((visibility("default"))) const PJRT_Api *pjdl_gone_api(void) {
    return NULL;
}
