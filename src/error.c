#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Long enough for a plugin's message plus our context. */
#define PJDL_MESSAGE_MAX 1024

static _Thread_local char last_message[PJDL_MESSAGE_MAX];
/* Whether that failure was a copy refused (pjdl_last_error_is_copy_refused). */
static _Thread_local bool last_copy_refused;

static const char *const code_names[] = {
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
};

const char *pjdl_code_name(pjdl_code code) {
    if ((unsigned)code < sizeof code_names / sizeof code_names[0])
        return code_names[code];
    return "UNKNOWN_CODE";
}

const char *pjdl_last_error(void) {
    return last_message;
}

bool pjdl_last_error_is_copy_refused(void) {
    return last_copy_refused;
}

void pjdl__clear_error(void) {
    last_message[0] = '\0';
    last_copy_refused = false;
}

__attribute__((format(printf, 3, 0))) static pjdl_code fail_v(pjdl_code code, bool copy_refused,
                                                              const char *fmt, va_list ap) {
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    last_copy_refused = copy_refused;
    return code;
}

pjdl_code pjdl__fail(pjdl_code code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    code = fail_v(code, false, fmt, ap);
    va_end(ap);
    return code;
}

pjdl_code pjdl__fail_copy_refused(pjdl_code code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    code = fail_v(code, true, fmt, ap);
    va_end(ap);
    return code;
}

void pjdl__set_copy_refused(bool refused) {
    last_copy_refused = refused;
}

pjdl_code pjdl__fail_context(pjdl_code code, const char *fmt, ...) {
    char old[PJDL_MESSAGE_MAX];
    memcpy(old, last_message, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof last_message) {
        size_t room = sizeof last_message - (size_t)n;
        size_t len = strnlen(old, room - 1);
        memcpy(last_message + n, old, len);
        last_message[(size_t)n + len] = '\0';
    }
    return code;
}
