/*
 * ze_sim: event pools, events and fences. Their state changes under one
 * lock (zs_lock) and every change wakes every waiter (zs_changed).
 */
#include "zs.h"

#include <stdlib.h>
#include <time.h>

pthread_mutex_t zs_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t zs_changed = PTHREAD_COND_INITIALIZER;

ze_result_t zs_wait_locked(bool (*done)(const void *), const void *arg, uint64_t timeout_ns) {
    /* A query (zeEventQueryStatus, zeFenceQueryStatus, a zero timeout) reads
     * the state and returns, as the hardware's does: a timed wait with a
     * deadline already past enters the condition variable, whose broadcast
     * then waits for the waiter to leave it. */
    if (timeout_ns == 0)
        return done(arg) ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
    if (timeout_ns == UINT64_MAX) {
        while (!done(arg))
            pthread_cond_wait(&zs_changed, &zs_lock);
        return ZE_RESULT_SUCCESS;
    }
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    uint64_t ns = (uint64_t)deadline.tv_nsec + timeout_ns % 1000000000u;
    deadline.tv_sec += (time_t)(timeout_ns / 1000000000u + ns / 1000000000u);
    deadline.tv_nsec = (long)(ns % 1000000000u);
    while (!done(arg)) {
        if (pthread_cond_timedwait(&zs_changed, &zs_lock, &deadline))
            break;
    }
    return done(arg) ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

static bool zs_flag_set(const void *flag) {
    return *(const bool *)flag;
}

ze_result_t zs_wait_flag(const bool *flag, uint64_t timeout_ns) {
    pthread_mutex_lock(&zs_lock);
    ze_result_t rc = zs_wait_locked(zs_flag_set, flag, timeout_ns);
    pthread_mutex_unlock(&zs_lock);
    return rc;
}

static bool zs_pool_ok(ze_event_pool_handle_t p) {
    return p && p->magic == ZS_MAGIC_POOL;
}

bool zs_event_ok(ze_event_handle_t e) {
    return e && e->magic == ZS_MAGIC_EVENT;
}

void zs_event_set(ze_event_handle_t e, bool signaled) {
    pthread_mutex_lock(&zs_lock);
    e->signaled = signaled;
    if (signaled)
        e->signal_ns = zs_now_ns();
    pthread_cond_broadcast(&zs_changed);
    pthread_mutex_unlock(&zs_lock);
}

ze_result_t zeEventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t *desc,
                              uint32_t numDevices, ze_device_handle_t *phDevices,
                              ze_event_pool_handle_t *phEventPool) {
    if (!hContext || hContext->magic != ZS_MAGIC_CONTEXT)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !phEventPool || (numDevices && !phDevices))
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < numDevices; i++) {
        if (!zs_device_ok(phDevices[i]))
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (desc->count == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    struct ze_sim_event_pool *p = calloc(1, sizeof *p);
    if (!p)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    p->magic = ZS_MAGIC_POOL;
    p->count = desc->count;
    *phEventPool = p;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventPoolDestroy(ze_event_pool_handle_t hEventPool) {
    if (!zs_pool_ok(hEventPool))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&zs_lock);
    uint32_t live = hEventPool->live;
    pthread_mutex_unlock(&zs_lock);
    if (live)
        return ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    hEventPool->magic = 0;
    free(hEventPool);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventCreate(ze_event_pool_handle_t hEventPool, const ze_event_desc_t *desc,
                          ze_event_handle_t *phEvent) {
    if (!zs_pool_ok(hEventPool))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !phEvent)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->index >= hEventPool->count)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    struct ze_sim_event *e = calloc(1, sizeof *e);
    if (!e)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    e->magic = ZS_MAGIC_EVENT;
    e->pool = hEventPool;
    pthread_mutex_lock(&zs_lock);
    hEventPool->live++;
    pthread_mutex_unlock(&zs_lock);
    *phEvent = e;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventDestroy(ze_event_handle_t hEvent) {
    if (!zs_event_ok(hEvent))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&zs_lock);
    hEvent->pool->live--;
    hEvent->pool = NULL;
    hEvent->magic = 0;
    hEvent->destroyed = hEvent->holds > 0; /* then the last command frees it */
    bool now = !hEvent->destroyed;
    pthread_mutex_unlock(&zs_lock);
    if (now)
        free(hEvent);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventHostSignal(ze_event_handle_t hEvent) {
    if (!zs_event_ok(hEvent))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    zs_event_set(hEvent, true);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventHostReset(ze_event_handle_t hEvent) {
    if (!zs_event_ok(hEvent))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    zs_event_set(hEvent, false);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout) {
    if (!zs_event_ok(hEvent))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return zs_wait_flag(&hEvent->signaled, timeout);
}

ze_result_t zeEventQueryStatus(ze_event_handle_t hEvent) {
    return zeEventHostSynchronize(hEvent, 0);
}

/* The time the event was signaled, as start and end of its "kernel". */
ze_result_t zeEventQueryKernelTimestamp(ze_event_handle_t hEvent,
                                        ze_kernel_timestamp_result_t *dstptr) {
    if (!zs_event_ok(hEvent))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!dstptr)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&zs_lock);
    bool signaled = hEvent->signaled;
    uint64_t t = zs_ticks(hEvent->signal_ns, ZS_KERNEL_TIMESTAMP_BITS);
    pthread_mutex_unlock(&zs_lock);
    if (!signaled)
        return ZE_RESULT_NOT_READY;
    dstptr->global.kernelStart = dstptr->context.kernelStart = t;
    dstptr->global.kernelEnd = dstptr->context.kernelEnd = t;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeFenceCreate(ze_command_queue_handle_t hCommandQueue, const ze_fence_desc_t *desc,
                          ze_fence_handle_t *phFence) {
    if (!zs_queue_ok(hCommandQueue))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !phFence)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    struct ze_sim_fence *f = calloc(1, sizeof *f);
    if (!f)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    f->magic = ZS_MAGIC_FENCE;
    f->queue = hCommandQueue;
    f->signaled = (desc->flags & ZE_FENCE_FLAG_SIGNALED) != 0;
    *phFence = f;
    return ZE_RESULT_SUCCESS;
}

static bool zs_fence_ok(ze_fence_handle_t f) {
    return f && f->magic == ZS_MAGIC_FENCE;
}

ze_result_t zeFenceDestroy(ze_fence_handle_t hFence) {
    if (!zs_fence_ok(hFence))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&zs_lock);
    hFence->magic = 0;
    hFence->destroyed = hFence->holds > 0; /* then the worker frees it */
    bool now = !hFence->destroyed;
    pthread_mutex_unlock(&zs_lock);
    if (now)
        free(hFence);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeFenceHostSynchronize(ze_fence_handle_t hFence, uint64_t timeout) {
    if (!zs_fence_ok(hFence))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return zs_wait_flag(&hFence->signaled, timeout);
}

ze_result_t zeFenceQueryStatus(ze_fence_handle_t hFence) {
    return zeFenceHostSynchronize(hFence, 0);
}

ze_result_t zeFenceReset(ze_fence_handle_t hFence) {
    if (!zs_fence_ok(hFence))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&zs_lock);
    hFence->signaled = false;
    pthread_mutex_unlock(&zs_lock);
    return ZE_RESULT_SUCCESS;
}
