/* The library's error reporting: one thread-local message per thread. */
#ifndef PJDL_SRC_ERROR_H_
#define PJDL_SRC_ERROR_H_

#include <stdbool.h>

#include "pjrt_dlpack.h"

/* Records `code` and a printf-style message as the calling thread's last
 * error and returns `code`, so failures read `return pjdl__fail(...)`. */
pjdl_code pjdl__fail(pjdl_code code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* pjdl__fail for a copy refused: copy=NEVER where only a copy would do
 * (pjdl_last_error_is_copy_refused then says so). */
pjdl_code pjdl__fail_copy_refused(pjdl_code code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Restores that mark after a failure's message was written again. */
void pjdl__set_copy_refused(bool refused);

/* Prefixes the thread's current message with printf-style context
 * ("export: " + message) and returns `code`. */
pjdl_code pjdl__fail_context(pjdl_code code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Evaluates `expr`, a pjdl_code, once and returns it from the calling
 * function unless it is PJDL_OK: the library's one-line error check. */
#define PJDL_TRY(expr)                                                                             \
    do {                                                                                           \
        pjdl_code pjdl_try_code_ = (expr);                                                         \
        if (pjdl_try_code_ != PJDL_OK)                                                             \
            return pjdl_try_code_;                                                                 \
    } while (0)

/* Clears the thread's last error; called on entry to public functions
 * (not the exports: export.c, export_any). */
void pjdl__clear_error(void);

#endif
