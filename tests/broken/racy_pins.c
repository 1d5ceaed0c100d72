/* Broken: the external reference count is kept in a plain, unsynchronized
 * counter (read, pause, write), and the real plugin is pinned only on the
 * 0 -> 1 step and unpinned on 1 -> 0. Concurrent exports lose updates, so
 * the count ends wrong. Caught by threads, which checks the count after each
 * of its rounds (the race is near certain with 4 threads; the test runs it
 * with the default). */
#include <pthread.h>
#include <time.h>

#include "shim.h"

#define SLOTS 1024

static struct {
    PJRT_Buffer *buffer;
    int64_t count;
} slots[SLOTS];
static pthread_mutex_t slots_mu = PTHREAD_MUTEX_INITIALIZER;

/* The table itself is locked; only the count updates race. */
static int64_t *count_of(PJRT_Buffer *b) {
    pthread_mutex_lock(&slots_mu);
    size_t i = ((uintptr_t)b >> 4) % SLOTS;
    for (size_t n = 0; n < SLOTS && slots[i].buffer != b && slots[i].buffer != NULL; n++)
        i = (i + 1) % SLOTS;
    slots[i].buffer = b;
    pthread_mutex_unlock(&slots_mu);
    return &slots[i].count;
}

static void pause_briefly(void) {
    struct timespec ts = {0, 50000};
    nanosleep(&ts, NULL);
}

static PJRT_Error *racy_increase(PJRT_Buffer_IncreaseExternalReferenceCount_Args *args) {
    if (args == NULL || args->buffer == NULL)
        return shim_real()->PJRT_Buffer_IncreaseExternalReferenceCount(args);
    int64_t *count = count_of(args->buffer);
    int64_t c = *count;
    pause_briefly();
    *count = c + 1;
    return c == 0 ? shim_real()->PJRT_Buffer_IncreaseExternalReferenceCount(args) : NULL;
}

static PJRT_Error *racy_decrease(PJRT_Buffer_DecreaseExternalReferenceCount_Args *args) {
    if (args == NULL || args->buffer == NULL)
        return shim_real()->PJRT_Buffer_DecreaseExternalReferenceCount(args);
    int64_t *count = count_of(args->buffer);
    int64_t c = *count;
    if (c <= 0)
        return shim_real()->PJRT_Buffer_DecreaseExternalReferenceCount(args);
    pause_briefly();
    *count = c - 1;
    return c == 1 ? shim_real()->PJRT_Buffer_DecreaseExternalReferenceCount(args) : NULL;
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Buffer_IncreaseExternalReferenceCount = racy_increase;
    api->PJRT_Buffer_DecreaseExternalReferenceCount = racy_decrease;
    return api;
}
