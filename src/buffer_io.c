/* Buffers: readiness, data pointers and copies between host and device. */
#include <stdlib.h>
#include <string.h>

#include "element_type.h"
#include "internal.h"

pjdl_code pjdl__buffer_wait_ready(pjdl_buffer *buffer) {
    if (atomic_load_explicit(&buffer->ready, memory_order_acquire))
        return PJDL_OK;
    const pjdl_plugin *p = buffer->client->plugin;
    PJDL_TRY(PJDL_NEED(p, PJRT_Buffer_ReadyEvent));
    PJRT_Buffer_ReadyEvent_Args args = {.struct_size = PJRT_Buffer_ReadyEvent_Args_STRUCT_SIZE,
                                        .buffer = buffer->buffer};
    PJDL_TRY(PJDL_CALL(p->api, PJRT_Buffer_ReadyEvent, &args));
    if (args.event == NULL)
        return pjdl__fail(PJDL_INTERNAL, "PJRT_Buffer_ReadyEvent succeeded but returned no event");
    pjdl_code code = pjdl__event_wait(p, args.event, atomic_load(&buffer->client->timeout_ms));
    pjdl__event_destroy(p->api, args.event);
    if (code == PJDL_OK)
        atomic_store_explicit(&buffer->ready, true, memory_order_release);
    return code;
}

/* Checks the buffer is live; the state may change right after, which is
 * fine for operations that do not hand the memory out. */
static pjdl_code check_live(pjdl_buffer *buffer) {
    pthread_mutex_lock(&buffer->mu);
    pjdl_code code = pjdl__buffer_check_live_locked(buffer);
    pthread_mutex_unlock(&buffer->mu);
    return code;
}

pjdl_code pjdl_buffer_await(pjdl_buffer *buffer) {
    pjdl__clear_error();
    if (buffer == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_buffer_await: buffer is NULL");
    pjdl_code code = check_live(buffer);
    return code != PJDL_OK ? code : pjdl__buffer_wait_ready(buffer);
}

/* A compact row-major host layout for ToHostBuffer. */
static void row_major_layout(size_t ndim, int64_t *minor_to_major, PJRT_Buffer_MemoryLayout *l) {
    pjdl__c_order(minor_to_major, (int32_t)ndim);
    memset(l, 0, sizeof *l);
    l->struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE;
    l->type = PJRT_Buffer_MemoryLayout_Type_Tiled;
    l->tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
    l->tiled.minor_to_major = minor_to_major;
    l->tiled.minor_to_major_size = ndim;
}

/* Host memory the plugin writes into. With a deadline the wait may end
 * before the plugin does, so the copy lands in this reference-counted block
 * (one reference for the caller, one for the completion callback) and not
 * in the caller's memory, which may be gone by then. */
typedef struct landing {
    atomic_int refs;
    _Alignas(PJDL_DATA_ALIGNMENT) unsigned char data[];
} landing;

static void landing_unref(void *arg, pjdl_code code) {
    (void)code;
    landing *l = arg;
    if (atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) == 1)
        free(l);
}

static pjdl_code start_to_host(pjdl_buffer *buffer, void *dst, PJRT_Buffer_MemoryLayout *layout,
                               PJRT_Event **event) {
    const pjdl_plugin *p = buffer->client->plugin;
    PJRT_Buffer_ToHostBuffer_Args args = {.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE,
                                          .src = buffer->buffer,
                                          .host_layout = layout,
                                          .dst = dst,
                                          .dst_size = buffer->size_bytes};
    pjdl_code code = PJDL_CALL(p->api, PJRT_Buffer_ToHostBuffer, &args);
    *event = args.event;
    return code;
}

/* With a deadline: into a landing block, copied out on success. */
static pjdl_code to_host_deadline(pjdl_buffer *buffer, void *dst, PJRT_Buffer_MemoryLayout *layout,
                                  int64_t timeout_ms) {
    const pjdl_plugin *p = buffer->client->plugin;
    landing *l = pjdl__aligned_alloc(sizeof *l + buffer->size_bytes);
    if (l == NULL)
        return pjdl__fail(PJDL_RESOURCE_EXHAUSTED, "out of memory for a %zu-byte host copy",
                          buffer->size_bytes);
    PJDL_PUBLISH(l->refs, 2);
    PJRT_Event *event = NULL;
    pjdl_code code = start_to_host(buffer, l->data, layout, &event);
    if (code == PJDL_OK && (event == NULL || pjdl__event_then(p, event, landing_unref, l) != 0)) {
        timeout_ms = 0; /* nothing will free the block later: wait it out */
        landing_unref(l, PJDL_OK);
    } else if (code != PJDL_OK) {
        landing_unref(l, PJDL_OK);
    }
    if (code == PJDL_OK)
        code = pjdl__event_wait(p, event, timeout_ms);
    pjdl__event_destroy(p->api, event);
    if (code == PJDL_OK)
        memcpy(dst, l->data, buffer->size_bytes);
    landing_unref(l, PJDL_OK);
    return code;
}

static pjdl_code to_host(pjdl_buffer *buffer, void *dst, PJRT_Buffer_MemoryLayout *layout) {
    int64_t timeout_ms = atomic_load(&buffer->client->timeout_ms);
    if (timeout_ms > 0)
        return to_host_deadline(buffer, dst, layout, timeout_ms);
    const pjdl_plugin *p = buffer->client->plugin;
    PJRT_Event *event = NULL;
    pjdl_code code = start_to_host(buffer, dst, layout, &event);
    if (code == PJDL_OK)
        code = pjdl__event_wait(p, event, 0);
    pjdl__event_destroy(p->api, event);
    return code;
}

pjdl_code pjdl__buffer_read_host(pjdl_buffer *buffer, void *dst) {
    if (buffer->layout_untrusted)
        return pjdl__fail(buffer->layout_code, "%s", buffer->layout_error);
    pjdl_code code = PJDL_NEED(buffer->client->plugin, PJRT_Buffer_ToHostBuffer);
    if (code != PJDL_OK || buffer->size_bytes == 0)
        return code;
    int64_t minor_to_major[PJDL_MAX_RANK];
    PJRT_Buffer_MemoryLayout layout;
    row_major_layout(buffer->ndim, minor_to_major, &layout);
    code = to_host(buffer, dst, &layout);
    /* A plugin without host layouts copies in the device layout, which is
     * what we want when that layout is row-major already. */
    if (code == PJDL_UNIMPLEMENTED && buffer->layout_code == PJDL_OK) {
        bool row_major = true;
        uint64_t stride = 1; /* unsigned: may wrap for an empty buffer only */
        for (size_t i = buffer->ndim; i-- > 0;) {
            if (buffer->dims[i] > 1 && buffer->strides[i] != (int64_t)stride)
                row_major = false;
            stride *= (uint64_t)buffer->dims[i];
        }
        if (row_major)
            code = to_host(buffer, dst, NULL);
    }
    return code;
}

pjdl_code pjdl_buffer_to_host(pjdl_buffer *buffer, void *dst, size_t dst_size) {
    pjdl__clear_error();
    if (buffer == NULL || (dst == NULL && buffer->size_bytes > 0))
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_buffer_to_host: buffer and dst must be set");
    if (dst_size < buffer->size_bytes)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_buffer_to_host: dst holds %zu bytes, the buffer needs %zu",
                          dst_size, buffer->size_bytes);
    uintptr_t end;
    if (__builtin_add_overflow((uintptr_t)dst, buffer->size_bytes, &end))
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_buffer_to_host: dst %p + %zu bytes reaches past the end of the "
                          "address space",
                          dst, buffer->size_bytes);
    pjdl_code code = check_live(buffer);
    return code != PJDL_OK ? code : pjdl__buffer_read_host(buffer, dst);
}

static pjdl_code null_data(const pjdl_buffer *buffer, const char *entry) {
    return pjdl__fail(PJDL_INTERNAL, "%s returned a NULL data pointer for a %zu-byte buffer", entry,
                      buffer->size_bytes);
}

pjdl_code pjdl_buffer_data_pointer(pjdl_buffer *buffer, void **out) {
    pjdl__clear_error();
    if (buffer == NULL || out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_buffer_data_pointer: buffer and out must not be NULL");
    /* Asked of the plugin every time: nothing pins the memory here, so a
     * kept pointer could outlive a PJRT_Buffer_Delete made on the raw
     * handle; the plugin's answer fails then. */
    return pjdl__buffer_query_data(buffer, out);
}

pjdl_code pjdl__buffer_query_data(pjdl_buffer *buffer, void **out) {
    const pjdl_plugin *p = buffer->client->plugin;
    if (PJDL_HAS(p, PJRT_Buffer_OpaqueDeviceMemoryDataPointer)) {
        PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args a = {
            .struct_size = PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args_STRUCT_SIZE,
            .buffer = buffer->buffer};
        pjdl_code code = PJDL_CALL(p->api, PJRT_Buffer_OpaqueDeviceMemoryDataPointer, &a);
        if (code == PJDL_OK && a.device_memory_ptr == NULL && buffer->size_bytes > 0)
            return null_data(buffer, "PJRT_Buffer_OpaqueDeviceMemoryDataPointer");
        if (code == PJDL_OK)
            *out = a.device_memory_ptr;
        if (code != PJDL_UNIMPLEMENTED)
            return code;
    }
    if (PJDL_HAS(p, PJRT_Buffer_UnsafePointer)) {
        PJRT_Buffer_UnsafePointer_Args a = {
            .struct_size = PJRT_Buffer_UnsafePointer_Args_STRUCT_SIZE, .buffer = buffer->buffer};
        pjdl_code code = PJDL_CALL(p->api, PJRT_Buffer_UnsafePointer, &a);
        if (code == PJDL_OK && a.buffer_pointer == 0 && buffer->size_bytes > 0)
            return null_data(buffer, "PJRT_Buffer_UnsafePointer");
        if (code == PJDL_OK)
            *out = (void *)a.buffer_pointer;
        return code;
    }
    return pjdl__fail(PJDL_UNIMPLEMENTED, "the plugin implements neither "
                                          "PJRT_Buffer_OpaqueDeviceMemoryDataPointer nor "
                                          "PJRT_Buffer_UnsafePointer");
}

pjdl_code pjdl__host_to_device(pjdl_client *client, const void *data, PJRT_Buffer_Type type,
                               const int64_t *dims, size_t ndim, const int64_t *byte_strides,
                               pjdl_device *device, pjdl_memory *memory,
                               PJRT_HostBufferSemantics semantics, PJRT_Buffer **out,
                               PJRT_Event **done) {
    const pjdl_plugin *p = client->plugin;
    PJDL_TRY(PJDL_NEED(p, PJRT_Client_BufferFromHostBuffer));
    PJDL_TRY(PJDL_NEED(p, PJRT_Buffer_Destroy)); /* else the new buffer could never be freed */
    PJDL_TRY(PJDL_NEED_TYPE(p, type));
    PJRT_Client_BufferFromHostBuffer_Args a = {
        .struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE,
        .client = client->client,
        .data = data,
        .type = type,
        .dims = dims,
        .num_dims = ndim,
        .byte_strides = byte_strides,
        .num_byte_strides = byte_strides ? ndim : 0,
        .host_buffer_semantics = semantics,
        .device = memory ? NULL : (device ? device->device : NULL),
        .memory = memory ? memory->memory : NULL};
    pjdl_code code = PJDL_CALL(p->api, PJRT_Client_BufferFromHostBuffer, &a);
    if (code == PJDL_OK && a.buffer == NULL) {
        pjdl__event_destroy(p->api, a.done_with_host_buffer);
        code = pjdl__fail(PJDL_INTERNAL, "PJRT_Client_BufferFromHostBuffer returned no buffer");
    }
    if (code != PJDL_OK)
        return code;
    *out = a.buffer;
    *done = a.done_with_host_buffer;
    return PJDL_OK;
}

/* Waits, errors dropped, until `buffer` is ready. */
static void await_ready(const pjdl_plugin *p, PJRT_Buffer *buffer) {
    if (buffer == NULL || !PJDL_HAS(p, PJRT_Buffer_ReadyEvent) || !PJDL_HAS(p, PJRT_Event_Await))
        return;
    const PJRT_Api *api = p->api;
    PJRT_Buffer_ReadyEvent_Args a = {.struct_size = PJRT_Buffer_ReadyEvent_Args_STRUCT_SIZE,
                                     .buffer = buffer};
    PJRT_Error *error = api->PJRT_Buffer_ReadyEvent(&a);
    if (error != NULL || a.event == NULL) {
        pjdl__drop_error(api, error);
        return;
    }
    PJRT_Event_Await_Args w = {.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE, .event = a.event};
    pjdl__drop_error(api, api->PJRT_Event_Await(&w));
    pjdl__event_destroy(api, a.event);
}

void pjdl__host_transfer_destroy(const pjdl_plugin *p, PJRT_Buffer *buffer, bool settle) {
    if (settle)
        await_ready(p, buffer);
    pjdl__pjrt_buffer_destroy(p->api, buffer);
}

/* Copies host data into a new PJRT buffer; data is not needed afterwards.
 * Without a wait timeout the plugin reads the caller's memory in its own
 * time (kImmutableUntilTransferCompletes) and the call waits for
 * done_with_host_buffer: one copy, where kImmutableOnlyDuringCall has a
 * plugin that transfers on a stream stage the data first (the reference
 * plugin's xpu: a second copy of the whole array, bench/README.md). With
 * a timeout the wait must be free to end before the plugin does, which
 * only kImmutableOnlyDuringCall allows (the C API promises the data is not
 * read after the call): that is asked first then. A semantics the plugin
 * refuses (UNIMPLEMENTED, INVALID_ARGUMENT) is followed by the other; the
 * wait after kImmutableUntilTransferCompletes ignores the timeout, and
 * *settle says the buffer was made so (pjdl__host_transfer_destroy). */
static pjdl_code copy_in(pjdl_client *client, const void *data, PJRT_Buffer_Type type,
                         const int64_t *dims, size_t ndim, const int64_t *byte_strides,
                         pjdl_device *device, pjdl_memory *memory, PJRT_Buffer **out,
                         bool *settle) {
    static const PJRT_HostBufferSemantics order[2][2] = {
        {PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes,
         PJRT_HostBufferSemantics_kImmutableOnlyDuringCall},
        {PJRT_HostBufferSemantics_kImmutableOnlyDuringCall,
         PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes}};
    int64_t timeout_ms = atomic_load(&client->timeout_ms);
    const PJRT_HostBufferSemantics *ask = order[timeout_ms > 0];
    PJRT_Event *done = NULL;
    pjdl_code code = pjdl__host_to_device(client, data, type, dims, ndim, byte_strides, device,
                                          memory, ask[0], out, &done);
    PJRT_HostBufferSemantics took = ask[0];
    if (code == PJDL_UNIMPLEMENTED || code == PJDL_INVALID_ARGUMENT) {
        pjdl_code retry = pjdl__host_to_device(client, data, type, dims, ndim, byte_strides, device,
                                               memory, ask[1], out, &done);
        if (retry == PJDL_UNIMPLEMENTED || retry == PJDL_INVALID_ARGUMENT)
            return code == PJDL_INVALID_ARGUMENT ? retry : code;
        code = retry;
        took = ask[1];
    }
    if (code != PJDL_OK)
        return code;
    *settle = took == PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes;
    code = pjdl__event_wait(client->plugin, done, *settle ? 0 : timeout_ms);
    pjdl__event_destroy(client->plugin->api, done);
    if (code != PJDL_OK)
        pjdl__host_transfer_destroy(client->plugin, *out, *settle);
    return code;
}

/* The host array pjdl_buffer_from_host is given, checked before a plugin
 * sees it (real plugins do not validate): non-negative dims, an extent
 * product the plugin can take, and bytes [data + lo, data + hi) inside the
 * address space; an element of a sub-byte type is one byte (the host
 * form). */
static pjdl_code check_host_array(const void *data, PJRT_Buffer_Type type, const int64_t *dims,
                                  size_t ndim, const int64_t *byte_strides) {
    static const char fn[] = "pjdl_buffer_from_host";
    /* INVALID aborts XLA's plugins. */
    if (type == PJRT_Buffer_Type_INVALID || pjdl__element_type_of(type) == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "%s: element type %d is not an element type", fn,
                          (int)type);
    size_t es = pjdl__element_type_size(type);
    es = es == 0 ? 1 : es;
    bool empty = false;
    for (size_t i = 0; i < ndim; i++) {
        if (dims[i] < 0)
            return pjdl__fail(PJDL_INVALID_ARGUMENT,
                              "%s: dims[%zu] is %lld: dimensions must be non-negative", fn, i,
                              (long long)dims[i]);
        empty = empty || dims[i] == 0;
    }
    if (!pjdl__extent_product_fits(dims, ndim, es))
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "%s: the dimensions (before the first 0) times the %zu-byte element "
                          "overflow int64: XLA's plugins abort the process on such a shape",
                          fn, es);
    if (empty)
        return PJDL_OK;
    if (data == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "%s: data is NULL for a non-empty array", fn);
    int64_t strides[PJDL_MAX_RANK], lo, hi;
    if (byte_strides == NULL && !pjdl__compact_strides(dims, (int32_t)ndim, es, strides))
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "%s: the compact strides overflow int64", fn);
    uintptr_t addr;
    int32_t bad = pjdl__byte_span(dims, byte_strides ? byte_strides : strides, (int32_t)ndim,
                                  (int64_t)es, &lo, &hi);
    if (bad >= 0)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "%s: the byte strides span more than int64 bytes (dimension %d)", fn,
                          (int)bad);
    if (!pjdl__span_fits(data, 0, lo, hi, &addr))
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "%s: data %p with the byte strides reaches outside the address space", fn,
                          data);
    return PJDL_OK;
}

pjdl_code pjdl_buffer_from_host(pjdl_client *client, const void *data, PJRT_Buffer_Type type,
                                const int64_t *dims, size_t ndim, const int64_t *byte_strides,
                                pjdl_memory *memory, pjdl_buffer **out) {
    pjdl__clear_error();
    if (client == NULL || out == NULL || (ndim > 0 && dims == NULL))
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_buffer_from_host: client, out and dims must be set");
    if (ndim > PJDL_MAX_RANK)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_buffer_from_host: %zu dimensions; at most %d", ndim, PJDL_MAX_RANK);
    if (memory != NULL && memory->client != client)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_buffer_from_host: the memory belongs to another client");
    PJDL_TRY(check_host_array(data, type, dims, ndim, byte_strides));
    pjdl_device *device = client->num_devices ? &client->devices[0] : NULL;
    if (memory == NULL && device == NULL)
        return pjdl__fail(PJDL_FAILED_PRECONDITION, "the client has no addressable device");
    PJRT_Buffer *pjrt = NULL;
    bool settle = false;
    PJDL_TRY(copy_in(client, data, type, dims, ndim, byte_strides, memory ? NULL : device,
                     memory ? memory : device->default_memory, &pjrt, &settle));
    pjdl_code code = pjdl__buffer_adopt(client, pjrt, out);
    if (code == PJDL_OK) {
        (*out)->settle = settle;
        return PJDL_OK;
    }
    pjdl__host_transfer_destroy(client->plugin, pjrt, settle);
    return code;
}
