/* Helpers shared by the tests in tests/layout. */
#ifndef PJDL_TESTS_LAYOUT_TEST_H_
#define PJDL_TESTS_LAYOUT_TEST_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"
#include "pjrt_dlpack.h"

/* Asserts that `call` returned `expected` and, for a failure, that the
 * thread's message contains `needle` (NULL: any message). */
#define assert_code(call, expected, needle)                                                        \
    do {                                                                                           \
        pjdl_code got_ = (call);                                                                   \
        if (got_ != (expected))                                                                    \
            fail_msg("%s returned %s (%s), expected %s", #call, pjdl_code_name(got_),              \
                     pjdl_last_error(), pjdl_code_name(expected));                                 \
        const char *needle_ = (needle);                                                            \
        if (needle_ != NULL && strstr(pjdl_last_error(), needle_) == NULL)                         \
            fail_msg("%s: message \"%s\" lacks \"%s\"", #call, pjdl_last_error(), needle_);        \
    } while (0)

/* A small deterministic generator (xorshift64*), so failures reproduce. */
static inline uint64_t test_rand(uint64_t *state) {
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

/* Uniform in [0, n). */
static inline int64_t test_rand_below(uint64_t *state, int64_t n) {
    return (int64_t)(test_rand(state) % (uint64_t)n);
}

#endif
