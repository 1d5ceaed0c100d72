/* Events: a refcounted completion with a status and callbacks. */
#include <string.h>

#include "ref_internal.h"

/* Every "done, OK" event is this one: creating an already-complete event
 * is the common case (views, synchronous copies) and needs no allocation.
 * It is not reference counted (retain and release skip it) and never
 * freed; completing it again is refused like for any ready event, and
 * callbacks run at once. */
static PJRT_Event ready_ok = {.refs = 1,
                              .mu = PTHREAD_MUTEX_INITIALIZER,
                              .cv = PTHREAD_COND_INITIALIZER,
                              .ready = true,
                              .code = PJRT_Error_Code_OK};

PJRT_Event *ref_event_new(void) {
    PJRT_Event *event = ref_alloc(NULL, sizeof(*event));
    if (event == NULL)
        return NULL;
    atomic_init(&event->refs, 1);
    pthread_mutex_init(&event->mu, NULL);
    pthread_cond_init(&event->cv, NULL);
    return event;
}

PJRT_Event *ref_event_new_ready(PJRT_Error_Code code, const char *message) {
    if (code == PJRT_Error_Code_OK)
        return &ready_ok;
    PJRT_Event *event = ref_event_new();
    if (event != NULL)
        ref_event_complete(event, code, message);
    return event;
}

PJRT_Event *ref_event_retain(PJRT_Event *event) {
    if (event != &ready_ok) /* not counted: threads share no written line */
        atomic_fetch_add(&event->refs, 1);
    return event;
}

void ref_event_release(PJRT_Event *event) {
    if (event == NULL || event == &ready_ok || atomic_fetch_sub(&event->refs, 1) != 1)
        return;
    /* Callbacks of an event nobody can complete any more are never run; free
     * their nodes. (A not-ready event is only freed when its producer is gone.) */
    struct ref_event_cb *cb = event->callbacks;
    while (cb != NULL) {
        struct ref_event_cb *next = cb->next;
        ref_free(NULL, cb);
        cb = next;
    }
    pthread_mutex_destroy(&event->mu);
    pthread_cond_destroy(&event->cv);
    ref_free(NULL, event->message);
    ref_free(NULL, event);
}

static PJRT_Error *status_error(PJRT_Event *event) {
    if (event->code == PJRT_Error_Code_OK)
        return NULL;
    return ref_error(event->code, "%s", event->message ? event->message : "unknown error");
}

static void run_callback(PJRT_Event *event, struct ref_event_cb *cb) {
    if (cb->user_fn != NULL)
        cb->user_fn(status_error(event), cb->arg);
    else
        cb->internal_fn(event, cb->arg);
}

bool ref_event_complete(PJRT_Event *event, PJRT_Error_Code code, const char *message) {
    char *copy = NULL;
    if (code != PJRT_Error_Code_OK) {
        if (message == NULL)
            message = "unknown error";
        copy = ref_strndup(NULL, message, strlen(message));
    }
    pthread_mutex_lock(&event->mu);
    if (event->ready) {
        pthread_mutex_unlock(&event->mu);
        ref_free(NULL, copy);
        return false;
    }
    event->code = code;
    event->message = copy; /* NULL if out of memory: the code still tells */
    event->ready = true;
    struct ref_event_cb *cb = event->callbacks;
    event->callbacks = event->callbacks_tail = NULL;
    pthread_cond_broadcast(&event->cv);
    /* Keep the event alive while callbacks run: one may drop the last
     * reference its owner handed it. */
    ref_event_retain(event);
    pthread_mutex_unlock(&event->mu);
    while (cb != NULL) {
        struct ref_event_cb *next = cb->next;
        run_callback(event, cb);
        ref_free(NULL, cb);
        cb = next;
    }
    ref_event_release(event);
    return true;
}

PJRT_Error *ref_event_wait(PJRT_Event *event) {
    if (event == &ready_ok)
        return NULL;
    pthread_mutex_lock(&event->mu);
    while (!event->ready)
        pthread_cond_wait(&event->cv, &event->mu);
    pthread_mutex_unlock(&event->mu);
    return status_error(event);
}

bool ref_event_is_ready(PJRT_Event *event) {
    if (event == &ready_ok)
        return true;
    pthread_mutex_lock(&event->mu);
    bool ready = event->ready;
    pthread_mutex_unlock(&event->mu);
    return ready;
}

PJRT_Error_Code ref_event_status(PJRT_Event *event, const char **message) {
    if (message != NULL)
        *message = event->message ? event->message : "unknown error";
    return event->code;
}

static bool add_callback(PJRT_Event *event, PJRT_Event_OnReadyCallback user_fn,
                         ref_event_fn internal_fn, void *arg) {
    struct ref_event_cb *cb = ref_alloc(NULL, sizeof(*cb));
    if (cb == NULL)
        return false;
    cb->user_fn = user_fn;
    cb->internal_fn = internal_fn;
    cb->arg = arg;
    pthread_mutex_lock(&event->mu);
    if (!event->ready) {
        if (event->callbacks_tail != NULL)
            event->callbacks_tail->next = cb;
        else
            event->callbacks = cb;
        event->callbacks_tail = cb;
        pthread_mutex_unlock(&event->mu);
        return true;
    }
    pthread_mutex_unlock(&event->mu);
    run_callback(event, cb);
    ref_free(NULL, cb);
    return true;
}

bool ref_event_on_ready_internal(PJRT_Event *event, ref_event_fn fn, void *arg) {
    return add_callback(event, NULL, fn, arg);
}

/* ------------------------------------------------------------ entry points */

PJRT_Error *ref_PJRT_Event_Destroy(PJRT_Event_Destroy_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Event_Destroy_Args);
    ref_event_release(args->event);
    return NULL;
}

REF_DEFINE_QUERY(PJRT_Event_IsReady, event, args->is_ready = ref_event_is_ready(self);)

PJRT_Error *ref_PJRT_Event_Error(PJRT_Event_Error_Args *args) {
    REF_CHECK_ENTRY(args, PJRT_Event_Error, event);
    if (!ref_event_is_ready(args->event))
        return ref_error(PJRT_Error_Code_FAILED_PRECONDITION,
                         "PJRT_Event_Error: the event is not ready yet (use PJRT_Event_IsReady, "
                         "PJRT_Event_Await or PJRT_Event_OnReady first)");
    return status_error(args->event);
}

PJRT_Error *ref_PJRT_Event_Await(PJRT_Event_Await_Args *args) {
    REF_CHECK_ENTRY(args, PJRT_Event_Await, event);
    return ref_event_wait(args->event);
}

PJRT_Error *ref_PJRT_Event_OnReady(PJRT_Event_OnReady_Args *args) {
    REF_CHECK_ENTRY(args, PJRT_Event_OnReady, event);
    REF_RETURN_IF_NULL(args->callback, "PJRT_Event_OnReady", "callback");
    if (!add_callback(args->event, args->callback, NULL, args->user_arg))
        return ref_error_oom("PJRT_Event_OnReady");
    return NULL;
}

PJRT_Error *ref_PJRT_Event_Create(PJRT_Event_Create_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Event_Create_Args);
    PJRT_Event *event = ref_event_new();
    if (event == NULL)
        return ref_error_oom("PJRT_Event_Create");
    event->settable = true;
    args->event = event;
    return NULL;
}

PJRT_Error *ref_PJRT_Event_Set(PJRT_Event_Set_Args *args) {
    REF_CHECK_ENTRY(args, PJRT_Event_Set, event);
    if (!args->event->settable)
        return REF_INVALID("PJRT_Event_Set: the event was not created by PJRT_Event_Create");
    if (args->error_code < PJRT_Error_Code_OK || args->error_code > PJRT_Error_Code_UNAUTHENTICATED)
        return REF_INVALID("PJRT_Event_Set: invalid error_code %d", (int)args->error_code);
    char *message = NULL;
    if (args->error_code != PJRT_Error_Code_OK) {
        if (args->error_message == NULL && args->error_message_size > 0)
            return REF_INVALID(
                "PJRT_Event_Set: error_message is NULL but error_message_size is %zu",
                args->error_message_size);
        message = ref_strndup(NULL, args->error_message ? args->error_message : "",
                              args->error_message_size);
        if (message == NULL)
            return ref_error_oom("PJRT_Event_Set");
    }
    bool first = ref_event_complete(args->event, args->error_code, message);
    ref_free(NULL, message);
    if (!first)
        return ref_error(PJRT_Error_Code_FAILED_PRECONDITION,
                         "PJRT_Event_Set: the event is already set");
    return NULL;
}
