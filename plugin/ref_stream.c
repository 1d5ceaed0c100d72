/* Streams of the simulated xpu: one worker thread per stream running queued
 * ops in order. A process-wide registry validates stream handles. */
#include <stdio.h>
#include <string.h>

#include "ref_internal.h"

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static ref_stream *registry;

static void run_op(ref_op *op) {
    PJRT_Error_Code code = PJRT_Error_Code_OK;
    const char *message = NULL;
    if (op->wait != NULL) {
        PJRT_Error *err = ref_event_wait(op->wait);
        if (err != NULL) {
            code = ref_event_status(op->wait, &message);
            ref_error_free(err);
        }
    }
    op->run(op, code, message);
}

static void *worker(void *arg) {
    ref_stream *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (s->head == NULL && !s->stop)
            pthread_cond_wait(&s->cv, &s->mu);
        if (s->head == NULL)
            break;
        ref_op *op = s->head;
        s->head = op->next;
        if (s->head == NULL)
            s->tail = NULL;
        pthread_mutex_unlock(&s->mu);
        run_op(op);
        pthread_mutex_lock(&s->mu);
        s->completed++;
        pthread_cond_broadcast(&s->cv);
    }
    s->exited = true;
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

PJRT_Error *ref_stream_create(PJRT_Device *device, ref_stream **out) {
    ref_stream *s = ref_alloc(NULL, sizeof(*s));
    if (s == NULL)
        return ref_error_oom("creating a stream");
    s->device = device;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    int rc = pthread_create(&s->thread, NULL, worker, s);
    if (rc != 0) {
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
        ref_free(NULL, s);
        return ref_error(PJRT_Error_Code_RESOURCE_EXHAUSTED,
                         "cannot start a stream thread for %s: %s",
                         device->description.debug_string, strerror(rc));
    }
    PJRT_Client *client = device->client;
    pthread_mutex_lock(&client->streams_mu);
    s->is_default = device->stream == NULL && out == &device->stream;
    s->next_in_client = client->streams;
    client->streams = s;
    pthread_mutex_unlock(&client->streams_mu);
    pthread_mutex_lock(&registry_mu);
    s->next_global = registry;
    registry = s;
    pthread_mutex_unlock(&registry_mu);
    *out = s;
    return NULL;
}

void ref_stream_enqueue(ref_stream *s, ref_op *op) {
    op->next = NULL;
    pthread_mutex_lock(&s->mu);
    if (s->exited) {
        /* Only reachable from work racing a client's shutdown: run it here so
         * every event still completes. */
        pthread_mutex_unlock(&s->mu);
        run_op(op);
        return;
    }
    if (s->tail != NULL)
        s->tail->next = op;
    else
        s->head = op;
    s->tail = op;
    s->enqueued++;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

void ref_stream_drain(ref_stream *s) {
    pthread_mutex_lock(&s->mu);
    uint64_t target = s->enqueued;
    while (s->completed < target && !s->exited)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

static void unregister(ref_stream *s) {
    pthread_mutex_lock(&registry_mu);
    for (ref_stream **p = &registry; *p != NULL; p = &(*p)->next_global) {
        if (*p == s) {
            *p = s->next_global;
            break;
        }
    }
    pthread_mutex_unlock(&registry_mu);
}

/* Stops after the queue drains, joins the worker, frees the stream. */
static void stream_stop(ref_stream *s) {
    unregister(s);
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    ref_free(NULL, s);
}

void ref_client_stop_streams(PJRT_Client *client) {
    /* Drain every stream first: work on one may wait for another. */
    pthread_mutex_lock(&client->streams_mu);
    ref_stream *list = client->streams;
    pthread_mutex_unlock(&client->streams_mu);
    for (ref_stream *s = list; s != NULL; s = s->next_in_client)
        ref_stream_drain(s);
    pthread_mutex_lock(&client->streams_mu);
    list = client->streams;
    client->streams = NULL;
    pthread_mutex_unlock(&client->streams_mu);
    while (list != NULL) {
        ref_stream *next = list->next_in_client;
        stream_stop(list);
        list = next;
    }
    for (int i = 0; i < client->num_devices; i++)
        client->devices[i]->stream = NULL;
}

PJRT_Error *ref_stream_destroy_extra(ref_stream *s) {
    if (s->is_default)
        return REF_INVALID("the stream is the default stream of %s; only streams created with "
                           "create_stream can be destroyed",
                           s->device->description.debug_string);
    if (pthread_equal(s->thread, pthread_self()))
        return ref_error(PJRT_Error_Code_FAILED_PRECONDITION,
                         "a stream cannot be destroyed from its own host callback");
    PJRT_Client *client = s->device->client;
    pthread_mutex_lock(&client->streams_mu);
    for (ref_stream **p = &client->streams; *p != NULL; p = &(*p)->next_in_client) {
        if (*p == s) {
            *p = s->next_in_client;
            break;
        }
    }
    pthread_mutex_unlock(&client->streams_mu);
    stream_stop(s);
    return NULL;
}

PJRT_Error *ref_stream_lookup(intptr_t handle, const char *fn, ref_stream **out) {
    pthread_mutex_lock(&registry_mu);
    ref_stream *s = registry;
    while (s != NULL && (intptr_t)s != handle)
        s = s->next_global;
    pthread_mutex_unlock(&registry_mu);
    if (s == NULL)
        return REF_INVALID("%s: %#lx is not a live stream handle of the pjrt_ref plugin", fn,
                           (unsigned long)handle);
    *out = s;
    return NULL;
}

void ref_stream_set_error(ref_stream *s, PJRT_Error_Code code, const char *message) {
    pthread_mutex_lock(&s->mu);
    if (s->error_code == PJRT_Error_Code_OK) {
        s->error_code = code;
        snprintf(s->error_message, sizeof(s->error_message), "%s", message ? message : "");
    }
    pthread_mutex_unlock(&s->mu);
}

/* Compares thread ids rather than using thread-local storage: TLS in a
 * dlopen'ed library leaves loader allocations behind on the main thread. */
bool ref_on_stream_thread(PJRT_Client *client) {
    pthread_t self = pthread_self();
    bool found = false;
    pthread_mutex_lock(&client->streams_mu);
    for (ref_stream *s = client->streams; s != NULL && !found; s = s->next_in_client)
        found = pthread_equal(s->thread, self);
    pthread_mutex_unlock(&client->streams_mu);
    return found;
}
