/* Not loadable: a plugin linked against a library (libpjdl_gone.so) that
 * the dynamic loader cannot find at run time. `info` must name it. */
#include <stddef.h>

#include "pjrt_dlpack/pjrt_abi.h"

/* In libpjdl_gone.so (missing_dep_gone.c). */
const PJRT_Api *pjdl_gone_api(void);

/* The exported entry point; found with dlsym, declared by no header. */
__attribute__((visibility("default"))) const PJRT_Api *GetPjrtApi(void);

__attribute__((visibility("default"))) const PJRT_Api *GetPjrtApi(void) {
    return pjdl_gone_api();
}
