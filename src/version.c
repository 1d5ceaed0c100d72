/* The library's version string. */
#include "pjrt_dlpack.h"

#define PJDL_STR_(x) #x
#define PJDL_STR(x) PJDL_STR_(x)

const char *pjdl_version(void) {
    return PJDL_STR(PJDL_VERSION_MAJOR) "." PJDL_STR(PJDL_VERSION_MINOR) "." PJDL_STR(
        PJDL_VERSION_PATCH);
}
