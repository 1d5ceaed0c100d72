/* The extension chain: the PJRT stream extension and the plugin's own test
 * extension (pjrt_ref_ext.h). */
#include <string.h>

#include "pjrt_ref_ext.h"
#include "ref_internal.h"

/* ------------------------------------------------------- stream extension */

static PJRT_Error *no_streams(const char *fn) {
    return ref_error(PJRT_Error_Code_UNIMPLEMENTED,
                     "%s: platform cpu has no streams (streams exist on platform xpu)", fn);
}

static PJRT_Error *get_stream(PJRT_Get_Stream_For_External_Ready_Events_Args *args) {
    static const char fn[] = "PJRT_Get_Stream_For_External_Ready_Events";
    REF_CHECK_ENTRY(args, PJRT_Get_Stream_For_External_Ready_Events, device);
    if (args->device->client->platform != REF_PLATFORM_XPU)
        return no_streams(fn);
    if (args->device->stream == NULL)
        return ref_error(PJRT_Error_Code_FAILED_PRECONDITION, "%s: the client has been destroyed",
                         fn);
    args->stream = (intptr_t)args->device->stream;
    return NULL;
}

typedef struct wait_op {
    ref_op op;
    ref_stream *stream;
} wait_op;

/* Reached when the buffer's ready event completed: a failure becomes the
 * stream's sticky error, which later work on the stream sees. */
static void wait_run(ref_op *op, PJRT_Error_Code status, const char *message) {
    wait_op *w = (wait_op *)op;
    if (status != PJRT_Error_Code_OK)
        ref_stream_set_error(w->stream, status, message);
    PJRT_Event *wait = w->op.wait;
    ref_free(w->stream->device->client, w);
    ref_event_release(wait);
}

static PJRT_Error *wait_stream(PJRT_Wait_Until_Buffer_Ready_On_Stream_Args *args) {
    static const char fn[] = "PJRT_Wait_Until_Buffer_Ready_On_Stream";
    REF_CHECK_ENTRY(args, PJRT_Wait_Until_Buffer_Ready_On_Stream, buffer);
    PJRT_Buffer *b = args->buffer;
    if (b->client->platform != REF_PLATFORM_XPU)
        return no_streams(fn);
    ref_stream *s;
    PJRT_Error *err = ref_stream_lookup(args->stream, fn, &s);
    if (err != NULL)
        return err;
    if (s->device->client != b->client)
        return REF_INVALID("%s: the stream and the buffer belong to different clients", fn);
    err = ref_check_not_deleted(b, fn);
    if (err != NULL)
        return err;
    wait_op *w = ref_alloc(b->client, sizeof(*w));
    if (w == NULL)
        return ref_error_oom(fn);
    w->op.run = wait_run;
    w->op.wait = ref_event_retain(b->ready);
    w->stream = s;
    ref_stream_enqueue(s, &w->op);
    return NULL;
}

/* --------------------------------------------------------- test extension */

static PJRT_Error *xpu_stream(intptr_t handle, const char *fn, ref_stream **out) {
    return ref_stream_lookup(handle, fn, out);
}

static PJRT_Error *create_stream(PJRT_Ref_CreateStream_Args *args) {
    static const char fn[] = "PJRT_Ref_CreateStream";
    REF_CHECK_ENTRY(args, PJRT_Ref_CreateStream, device);
    PJRT_Client *client = args->device->client;
    if (client->platform != REF_PLATFORM_XPU)
        return no_streams(fn);
    PJRT_Error *err = ref_check_alive(client, fn);
    if (err != NULL)
        return err;
    ref_stream *s;
    err = ref_stream_create(args->device, &s);
    if (err != NULL)
        return err;
    args->stream = (intptr_t)s;
    return NULL;
}

static PJRT_Error *destroy_stream(PJRT_Ref_DestroyStream_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Ref_DestroyStream_Args);
    ref_stream *s;
    PJRT_Error *err = xpu_stream(args->stream, "PJRT_Ref_DestroyStream", &s);
    return err != NULL ? err : ref_stream_destroy_extra(s);
}

typedef struct callback_op {
    ref_op op;
    PJRT_Client *client;
    ref_stream *stream;
    PJRT_Ref_HostCallback fn;
    void *user_arg;
} callback_op;

static void callback_run(ref_op *op, PJRT_Error_Code status, const char *message) {
    (void)status;
    (void)message;
    callback_op *c = (callback_op *)op;
    ref_stream *s = c->stream;
    PJRT_Error_Code code;
    char text[sizeof(s->error_message)];
    pthread_mutex_lock(&s->mu);
    code = s->error_code;
    memcpy(text, s->error_message, sizeof(text));
    pthread_mutex_unlock(&s->mu);
    PJRT_Ref_HostCallback fn = c->fn;
    void *user_arg = c->user_arg;
    ref_free(c->client, c);
    fn(code, code == PJRT_Error_Code_OK ? "" : text, user_arg);
}

static PJRT_Error *enqueue_host_callback(PJRT_Ref_EnqueueHostCallback_Args *args) {
    static const char fn[] = "PJRT_Ref_EnqueueHostCallback";
    REF_CHECK_ENTRY(args, PJRT_Ref_EnqueueHostCallback, callback);
    ref_stream *s;
    PJRT_Error *err = xpu_stream(args->stream, fn, &s);
    if (err != NULL)
        return err;
    callback_op *c = ref_alloc(s->device->client, sizeof(*c));
    if (c == NULL)
        return ref_error_oom(fn);
    c->op.run = callback_run;
    c->client = s->device->client;
    c->stream = s;
    c->fn = args->callback;
    c->user_arg = args->user_arg;
    ref_stream_enqueue(s, &c->op);
    return NULL;
}

static PJRT_Error *synchronize_stream(PJRT_Ref_SynchronizeStream_Args *args) {
    static const char fn[] = "PJRT_Ref_SynchronizeStream";
    REF_CHECK_ARGS(args, PJRT_Ref_SynchronizeStream_Args);
    ref_stream *s;
    PJRT_Error *err = xpu_stream(args->stream, fn, &s);
    if (err != NULL)
        return err;
    if (ref_on_stream_thread(s->device->client))
        return ref_error(PJRT_Error_Code_FAILED_PRECONDITION,
                         "%s: called from a stream thread; it would wait for itself", fn);
    ref_stream_drain(s);
    pthread_mutex_lock(&s->mu);
    PJRT_Error_Code code = s->error_code;
    if (code != PJRT_Error_Code_OK)
        err = ref_error(code, "%s", s->error_message);
    s->error_code = PJRT_Error_Code_OK;
    s->error_message[0] = '\0';
    pthread_mutex_unlock(&s->mu);
    return err;
}

static PJRT_Error *live_allocations(PJRT_Ref_LiveAllocations_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Ref_LiveAllocations_Args);
    args->client_allocations = args->client ? ref_alloc_live_client(args->client) : 0;
    args->process_allocations = ref_alloc_live_total();
    return NULL;
}

static PJRT_Error *fail_allocation(PJRT_Ref_FailAllocation_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Ref_FailAllocation_Args);
    if (args->nth < 0)
        return REF_INVALID("PJRT_Ref_FailAllocation: nth is negative (%lld)", (long long)args->nth);
    args->allocations_since_last = ref_alloc_fail_nth(args->nth);
    return NULL;
}

static PJRT_Ref_Extension ref_extension = {
    .base = {.struct_size = PJRT_Ref_Extension_STRUCT_SIZE,
             .type = PJRT_REF_EXTENSION_TYPE,
             .next = NULL},
    .version = PJRT_REF_EXTENSION_VERSION,
    .create_stream = create_stream,
    .destroy_stream = destroy_stream,
    .enqueue_host_callback = enqueue_host_callback,
    .synchronize_stream = synchronize_stream,
    .live_allocations = live_allocations,
    .fail_allocation = fail_allocation,
};

static PJRT_Stream_Extension stream_extension = {
    .base = {.struct_size = PJRT_Stream_Extension_STRUCT_SIZE,
             .type = PJRT_Extension_Type_Stream,
             .next = &ref_extension.base},
    .get_stream = get_stream,
    .wait_stream = wait_stream,
};

PJRT_Extension_Base *ref_extension_chain(void) {
    return &stream_extension.base;
}
