/* Every allocation of the library, and the allocation-failure injection that
 * lets the reliability tests fail each one in turn. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Allocation-failure injection (pjdl__test_fail_alloc_after). Every library
 * allocation counts; the armed one fails once, as if the host were out of
 * memory. Process-wide, like the heap it stands for. */
static atomic_long alloc_count;   /* allocations since the last arming */
static atomic_long alloc_fail_at; /* 1-based index in alloc_count; 0: none */
/* Set by the first pjdl__test_fail_alloc_after: until a test uses the switch,
 * allocations only read this flag, so threads share no written cache line. */
static atomic_bool alloc_testing;

long pjdl__test_fail_alloc_after(long nth) {
    atomic_store(&alloc_testing, true);
    atomic_store(&alloc_fail_at, 0);
    long since = atomic_exchange(&alloc_count, 0);
    atomic_store(&alloc_fail_at, nth > 0 ? nth : 0);
    return since;
}

static bool injected_failure(void) {
    if (!atomic_load_explicit(&alloc_testing, memory_order_relaxed))
        return false;
    long n = atomic_fetch_add(&alloc_count, 1) + 1;
    return n == atomic_load(&alloc_fail_at);
}

void *pjdl__malloc(size_t size) {
    return injected_failure() ? NULL : malloc(size ? size : 1);
}

void *pjdl__realloc(void *p, size_t size) {
    return injected_failure() ? NULL : realloc(p, size ? size : 1);
}

pjdl_code pjdl__alloc(size_t size, const char *what, void *out) {
    /* malloc + memset, not calloc: glibc's calloc bypasses the per-thread
     * cache, which makes it several times slower than this for the small
     * objects of the hot paths. */
    void *p = pjdl__malloc(size);
    if (p == NULL)
        return pjdl__fail(PJDL_RESOURCE_EXHAUSTED, "out of memory allocating %zu bytes for %s",
                          size, what);
    memset(p, 0, size);
    memcpy(out, &p, sizeof p);
    return PJDL_OK;
}

pjdl_code pjdl__strdup(const char *s, size_t len, char **out) {
    char *p = pjdl__malloc(len + 1);
    if (p == NULL)
        return pjdl__fail(PJDL_RESOURCE_EXHAUSTED, "out of memory copying a %zu-byte string", len);
    if (len)
        memcpy(p, s, len);
    p[len] = '\0';
    *out = p;
    return PJDL_OK;
}

void *pjdl__aligned_alloc(size_t size) {
    void *p = NULL;
    if (injected_failure())
        return NULL;
    if (posix_memalign(&p, PJDL_DATA_ALIGNMENT, size ? size : PJDL_DATA_ALIGNMENT) != 0)
        return NULL;
    return p;
}
