/* Waiting for PJRT events, with an optional deadline.
 *
 * A wait registers an OnReady callback and sleeps on a condition variable.
 * The waiter is heap-allocated and reference counted (the waiting thread and
 * the callback each hold one reference), so a callback that arrives after the
 * wait timed out finds valid memory and simply drops its reference. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

typedef struct waiter {
    atomic_int refs;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    pjdl_code code;
    char message[512];
    const PJRT_Api *api;
} waiter;

static void waiter_unref(waiter *w) {
    if (atomic_fetch_sub_explicit(&w->refs, 1, memory_order_acq_rel) != 1)
        return;
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

/* Runs on whichever thread the plugin completes the event on. */
static void waiter_on_ready(PJRT_Error *error, void *arg) {
    waiter *w = arg;
    PJDL_RECEIVE(w->refs);
    pjdl_code code = PJDL_OK;
    char message[sizeof w->message] = "";
    if (error != NULL)
        code = pjdl__error_read(w->api, error, message, sizeof message);
    pthread_mutex_lock(&w->mu);
    w->done = true;
    w->code = code;
    memcpy(w->message, message, sizeof message);
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    waiter_unref(w);
}

static pjdl_code waiter_new(const PJRT_Api *api, waiter **out) {
    waiter *w = NULL;
    PJDL_TRY(pjdl__alloc(sizeof *w, "an event waiter", &w));
    pthread_mutex_init(&w->mu, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &attr);
    pthread_condattr_destroy(&attr);
    w->api = api;
    PJDL_PUBLISH(w->refs, 2);
    *out = w;
    return PJDL_OK;
}

static struct timespec deadline_after(int64_t timeout_ms) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += (time_t)(timeout_ms / 1000);
    ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

/* Sleeps until the waiter is done or the deadline passes. */
static pjdl_code waiter_sleep(waiter *w, int64_t timeout_ms) {
    struct timespec deadline = deadline_after(timeout_ms > 0 ? timeout_ms : 0);
    pjdl_code code = PJDL_OK;
    pthread_mutex_lock(&w->mu);
    while (!w->done) {
        if (timeout_ms <= 0) {
            pthread_cond_wait(&w->cv, &w->mu);
        } else if (pthread_cond_timedwait(&w->cv, &w->mu, &deadline) == ETIMEDOUT && !w->done) {
            code = pjdl__fail(PJDL_DEADLINE_EXCEEDED,
                              "the event was not ready within the client's wait timeout of %lld ms",
                              (long long)timeout_ms);
            break;
        }
    }
    if (w->done && w->code != PJDL_OK)
        code = pjdl__fail(w->code, "%s", w->message);
    pthread_mutex_unlock(&w->mu);
    return code;
}

/* Waits with PJRT_Event_Await when there is no OnReady (no deadline then). */
static pjdl_code event_await(const pjdl_plugin *plugin, PJRT_Event *event, int64_t timeout_ms) {
    if (timeout_ms > 0)
        return PJDL_NEED(plugin, PJRT_Event_OnReady);
    PJDL_TRY(PJDL_NEED(plugin, PJRT_Event_Await));
    PJRT_Event_Await_Args args = {.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE, .event = event};
    return pjdl__take_error(plugin->api, plugin->api->PJRT_Event_Await(&args));
}

pjdl_code pjdl__event_wait(const pjdl_plugin *plugin, PJRT_Event *event, int64_t timeout_ms) {
    if (event == NULL)
        return PJDL_OK;
    if (!PJDL_HAS(plugin, PJRT_Event_OnReady))
        return event_await(plugin, event, timeout_ms);
    waiter *w = NULL;
    pjdl_code code = waiter_new(plugin->api, &w);
    if (code != PJDL_OK)
        return timeout_ms <= 0 ? event_await(plugin, event, 0) : code;
    PJRT_Event_OnReady_Args args = {.struct_size = PJRT_Event_OnReady_Args_STRUCT_SIZE,
                                    .event = event,
                                    .callback = waiter_on_ready,
                                    .user_arg = w};
    code = PJDL_CALL(plugin->api, PJRT_Event_OnReady, &args);
    if (code != PJDL_OK) {
        waiter_unref(w); /* the callback's reference: it will never run */
        waiter_unref(w);
        /* Callers rely on the wait (e.g. before freeing memory the plugin
         * reads): without a deadline, block in Await instead. */
        return timeout_ms <= 0 && PJDL_HAS(plugin, PJRT_Event_Await) ? event_await(plugin, event, 0)
                                                                     : code;
    }
    code = waiter_sleep(w, timeout_ms);
    waiter_unref(w);
    return code;
}

/* A callback registered with pjdl__event_then. */
typedef struct then_ctx {
    atomic_int published;
    pjdl_event_fn fn;
    void *arg;
    const PJRT_Api *api;
} then_ctx;

static void then_on_ready(PJRT_Error *error, void *arg) {
    then_ctx *ctx = arg;
    PJDL_RECEIVE(ctx->published);
    char message[256];
    pjdl_code code = error ? pjdl__error_read(ctx->api, error, message, sizeof message) : PJDL_OK;
    int *depth = pjdl__callback_enter();
    ctx->fn(ctx->arg, code);
    pjdl__callback_leave(depth);
    free(ctx);
}

pjdl_code pjdl__event_then(const pjdl_plugin *plugin, PJRT_Event *event, pjdl_event_fn fn,
                           void *arg) {
    pjdl_code code = PJDL_NEED(plugin, PJRT_Event_OnReady);
    then_ctx *ctx = NULL;
    if (code == PJDL_OK)
        code = pjdl__alloc(sizeof *ctx, "an event callback", &ctx);
    if (code != PJDL_OK)
        return code;
    ctx->fn = fn;
    ctx->arg = arg;
    ctx->api = plugin->api;
    PJDL_PUBLISH(ctx->published, 1);
    PJRT_Event_OnReady_Args args = {.struct_size = PJRT_Event_OnReady_Args_STRUCT_SIZE,
                                    .event = event,
                                    .callback = then_on_ready,
                                    .user_arg = ctx};
    code = PJDL_CALL(plugin->api, PJRT_Event_OnReady, &args);
    if (code != PJDL_OK)
        free(ctx);
    return code;
}
