/* The library's error reporting: one thread-local message per thread. */
#ifndef PJDL_SRC_ERROR_H_
#define PJDL_SRC_ERROR_H_

#include "pjrt_dlpack.h"

/* Records `code` and a printf-style message as the calling thread's last
 * error and returns `code`, so failures read `return pjdl__fail(...)`. */
pjdl_code pjdl__fail(pjdl_code code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prefixes the thread's current message with printf-style context
 * ("export: " + message) and returns `code`. */
pjdl_code pjdl__fail_context(pjdl_code code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Clears the thread's last error; called on entry to public functions. */
void pjdl__clear_error(void);

#endif
