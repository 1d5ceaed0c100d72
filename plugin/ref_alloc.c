/* The plugin's single allocation path: counting and failure injection. */
#include <stdlib.h>
#include <string.h>

#include "ref_internal.h"
#include "thread_stock.h" /* common/ */

/* Live allocations attributed to no client, plus those of clients already
 * freed (none, unless something leaked). A client's own count is in the
 * client; the process total adds them up over the registry of live clients,
 * so an allocation pays for one counter, not two. */
static atomic_long live_unowned;
static pthread_mutex_t clients_mu = PTHREAD_MUTEX_INITIALIZER;
static PJRT_Client *clients;   /* live clients, linked by alloc_next */
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

/* Counts one allocation in (delta 1) or out (-1). A client's count also
 * keeps it alive: counting its last allocation out may free it. */
static void count(PJRT_Client *client, long delta) {
    if (client == NULL)
        atomic_fetch_add(&live_unowned, delta);
    else if (delta > 0)
        ref_client_add_alloc(client);
    else
        ref_client_drop_alloc(client);
}

void ref_alloc_register_client(PJRT_Client *client) {
    pthread_mutex_lock(&clients_mu);
    client->alloc_prev = NULL;
    client->alloc_next = clients;
    if (clients != NULL)
        clients->alloc_prev = client;
    clients = client;
    pthread_mutex_unlock(&clients_mu);
}

void ref_alloc_unregister_client(PJRT_Client *client) {
    pthread_mutex_lock(&clients_mu);
    if (client->alloc_prev != NULL)
        client->alloc_prev->alloc_next = client->alloc_next;
    else
        clients = client->alloc_next;
    if (client->alloc_next != NULL)
        client->alloc_next->alloc_prev = client->alloc_prev;
    /* Freed with nothing attributed to it any more: nothing to carry over. */
    pthread_mutex_unlock(&clients_mu);
}

void *ref_alloc_raw(PJRT_Client *client, size_t size) {
    if (should_fail())
        return NULL;
    void *p = malloc(size == 0 ? 1 : size);
    if (p != NULL)
        count(client, 1);
    return p;
}

void *ref_alloc_stocked(PJRT_Client *client, size_t size) {
    if (should_fail())
        return NULL;
    void *p = pjdl__stock_take(size);
    if (p == NULL && (p = malloc(size == 0 ? 1 : size)) == NULL)
        return NULL;
    count(client, 1);
    return p;
}

void ref_free_stocked(PJRT_Client *client, void *ptr, size_t size) {
    if (ptr == NULL)
        return;
    if (!pjdl__stock_keep(ptr, size))
        free(ptr);
    count(client, -1);
}

void *ref_alloc(PJRT_Client *client, size_t size) {
    /* Not calloc: glibc's calloc bypasses the per-thread cache and costs
     * several times more for the small objects of views and events. */
    void *p = ref_alloc_raw(client, size);
    if (p != NULL)
        memset(p, 0, size);
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
    count(from, -1);
    count(to, 1);
}

int64_t ref_alloc_live_total(void) {
    pthread_mutex_lock(&clients_mu);
    int64_t total = atomic_load(&live_unowned);
    for (PJRT_Client *c = clients; c != NULL; c = c->alloc_next)
        total += REF_HOLD_ALLOCS(atomic_load(&c->hold));
    pthread_mutex_unlock(&clients_mu);
    return total;
}

int64_t ref_alloc_live_client(const PJRT_Client *client) {
    return REF_HOLD_ALLOCS(atomic_load(&((PJRT_Client *)client)->hold));
}

int64_t ref_alloc_fail_nth(int64_t nth) {
    atomic_store(&counting, true);
    long long seen = atomic_exchange(&alloc_seq, 0);
    atomic_store(&fail_at, nth > 0 ? nth : 0);
    return seen;
}
