/* The plugin's single allocation path: counting and failure injection. */
#include <stdlib.h>
#include <string.h>

#include "ref_internal.h"

static atomic_llong live_total;
static atomic_llong alloc_seq; /* allocations since the last fail_nth call */
static atomic_llong fail_at;   /* 0 = never fail */
/* Allocations are numbered only once a test has called ref_alloc_fail_nth:
 * an atomic increment per allocation is a cost every other user would pay
 * on the hot paths. */
static atomic_bool counting;

static bool should_fail(void) {
    if (!atomic_load_explicit(&counting, memory_order_relaxed))
        return false;
    long long n = atomic_fetch_add(&alloc_seq, 1) + 1;
    long long target = atomic_load(&fail_at);
    return target > 0 && n == target;
}

static void count(PJRT_Client *client, long delta) {
    atomic_fetch_add(&live_total, delta);
    if (client != NULL)
        atomic_fetch_add(&client->live_allocs, delta);
}

void *ref_alloc(PJRT_Client *client, size_t size) {
    if (should_fail())
        return NULL;
    /* Not calloc: glibc's calloc bypasses the per-thread cache and costs
     * several times more for the small objects of views and events. */
    void *p = malloc(size == 0 ? 1 : size);
    if (p != NULL) {
        memset(p, 0, size);
        count(client, 1);
    }
    return p;
}

void *ref_alloc_data(PJRT_Client *client, size_t size) {
    if (should_fail())
        return NULL;
    void *p = NULL;
    if (posix_memalign(&p, REF_DATA_ALIGN, size == 0 ? 1 : size) != 0)
        return NULL;
    count(client, 1);
    return p;
}

void ref_free(PJRT_Client *client, void *ptr) {
    if (ptr == NULL)
        return;
    free(ptr);
    count(client, -1);
}

void ref_free_data(PJRT_Client *client, void *ptr) {
    ref_free(client, ptr);
}

char *ref_strndup(PJRT_Client *client, const char *s, size_t len) {
    if (len == SIZE_MAX)
        return NULL;
    char *copy = ref_alloc(client, len + 1);
    if (copy != NULL && len > 0)
        memcpy(copy, s, len);
    return copy;
}

void ref_alloc_reattribute(PJRT_Client *from, PJRT_Client *to) {
    if (from != NULL)
        atomic_fetch_sub(&from->live_allocs, 1);
    if (to != NULL)
        atomic_fetch_add(&to->live_allocs, 1);
}

int64_t ref_alloc_live_total(void) {
    return atomic_load(&live_total);
}

int64_t ref_alloc_live_client(const PJRT_Client *client) {
    return atomic_load(&((PJRT_Client *)client)->live_allocs);
}

int64_t ref_alloc_fail_nth(int64_t nth) {
    atomic_store(&counting, true);
    long long seen = atomic_exchange(&alloc_seq, 0);
    atomic_store(&fail_at, nth > 0 ? nth : 0);
    return seen;
}
