/* Views of memory the plugin does not own (PJRT_Client_CreateViewOfDeviceBuffer). */
#include <string.h>

#include "ref_internal.h"

typedef struct signal_op {
    ref_op op;
    PJRT_Client *client;
    PJRT_Event *event;
} signal_op;

/* Completes the view's ready event when the stream reaches it. */
static void signal_run(ref_op *op, PJRT_Error_Code status, const char *message) {
    (void)status;
    (void)message;
    signal_op *s = (signal_op *)op;
    PJRT_Event *event = s->event;
    ref_free(s->client, s);
    ref_event_complete(event, PJRT_Error_Code_OK, NULL);
    ref_event_release(event);
}

static PJRT_Error *check_address(ref_memory *memory, void *ptr, const ref_shape *shape,
                                 const char *fn) {
    if (ptr == NULL)
        return REF_INVALID("%s: device_buffer_ptr is NULL", fn);
    if (!ref_span_fits(ptr, 0, (int64_t)shape->size))
        return REF_INVALID("%s: [%p, +%zu bytes) reaches past the end of the address space", fn,
                           ptr, shape->size);
    /* Element sizes are powers of two (ref_type_size): a mask, not a
     * division, on this per-view path. */
    if (((uintptr_t)ptr & (shape->element_size - 1)) != 0)
        return REF_INVALID(
            "%s: device_buffer_ptr %p is not aligned to the %zu-byte size of element "
            "type %s",
            fn, ptr, shape->element_size, ref_type_name(shape->type));
    /* Simulated device memory: only addresses inside a live allocation of
     * this memory are device addresses, as a real runtime would check. */
    if (memory->client->platform == REF_PLATFORM_XPU && memory->kind == REF_MEMORY_DEVICE &&
        !ref_memory_contains(memory, ptr, shape->size))
        return REF_INVALID("%s: [%p, +%zu bytes) is not inside a live allocation of %s", fn, ptr,
                           shape->size, memory->debug_string);
    return NULL;
}

PJRT_Error *
ref_PJRT_Client_CreateViewOfDeviceBuffer(PJRT_Client_CreateViewOfDeviceBuffer_Args *args) {
    static const char fn[] = "PJRT_Client_CreateViewOfDeviceBuffer";
    REF_CHECK_ARGS_UPTO(args, PJRT_Client_CreateViewOfDeviceBuffer_Args, buffer);
    REF_RETURN_IF_NULL(args->client, fn, "client");
    /* XLA's plugins call on_delete_callback unconditionally (a NULL one
     * aborts the process there when the view goes): refuse it up front so
     * that a client's mistake shows here, not on a real plugin. */
    REF_RETURN_IF_NULL(args->on_delete_callback, fn, "on_delete_callback");
    PJRT_Client *client = args->client;
    PJRT_Error *err = ref_check_alive(client, fn);
    if (err != NULL)
        return err;
    ref_memory *requested = REF_HAS_FIELD(args, PJRT_Client_CreateViewOfDeviceBuffer_Args, memory)
                                ? REF_MEMORY(args->memory)
                                : NULL;
    ref_memory *memory = NULL;
    /* `device` is ignored when `memory` is given. */
    err = ref_resolve_memory(client, requested ? NULL : args->device, requested, fn, &memory);
    ref_shape shape;
    if (err == NULL)
        err = ref_shape_init(&shape, fn, args->element_type, args->dims, args->num_dims,
                             args->layout);
    if (err == NULL)
        err = check_address(memory, args->device_buffer_ptr, &shape, fn);
    if (err != NULL)
        return err;
    ref_stream *stream = NULL;
    if (args->stream != 0) {
        if (client->platform == REF_PLATFORM_CPU)
            return REF_INVALID("%s: stream is %#lx but platform cpu has no streams; pass 0", fn,
                               (unsigned long)args->stream);
        if ((err = ref_stream_lookup(args->stream, fn, &stream)) != NULL)
            return err;
        if (stream->device != memory->device)
            return REF_INVALID("%s: the stream belongs to %s, the memory to %s", fn,
                               stream->device->description.debug_string,
                               memory->device->description.debug_string);
    }
    PJRT_Event *ready = stream ? ref_event_new() : ref_event_new_ready(PJRT_Error_Code_OK, NULL);
    signal_op *op = stream ? ref_alloc(client, sizeof(*op)) : NULL;
    if (ready == NULL || (stream != NULL && op == NULL)) {
        ref_event_release(ready);
        ref_free(client, op);
        return ref_error_oom(fn);
    }
    /* The callback is attached only once the view exists: a failed call
     * leaves the memory with the caller and never calls it. */
    PJRT_Buffer *buffer;
    if ((err = ref_buffer_new_view(memory, &shape, args->device_buffer_ptr, ready, &buffer)) !=
        NULL) {
        ref_free(client, op);
        return err;
    }
    if (op != NULL) {
        op->op.run = signal_run;
        op->client = client;
        op->event = ref_event_retain(ready);
    }
    buffer->mem->on_delete = args->on_delete_callback;
    buffer->mem->on_delete_arg = args->on_delete_callback_arg;
    if (op != NULL)
        ref_stream_enqueue(stream, &op->op);
    args->buffer = buffer;
    return NULL;
}
