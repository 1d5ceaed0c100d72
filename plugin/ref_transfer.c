/* Transfers: host to device (all four host-buffer semantics, byte strides,
 * device layouts), device to host (host layouts), and copies between
 * devices and memories. On "cpu" they complete before returning; on "xpu"
 * they are queued on the device's stream and complete on its worker. */
#include <stdio.h>
#include <string.h>

#include "element_type.h" /* common/: packing sub-byte elements */
#include "ref_internal.h"

/* A queued copy: waits for `op.wait` (the source's ready event, if any),
 * simulates the transfer (delay, injected fault), copies, then completes
 * `done` (the source may be released) and `ready` (the destination holds
 * the data). */
typedef struct transfer_op {
    ref_op op;
    PJRT_Client *client;
    const char *what;
    ref_mem *src_mem; /* keeps a device source alive; NULL for host sources */
    const char *src;
    void *staging;              /* owned copy of host data, given back after the copy */
    ref_memory *staging_memory; /* whose block cache it came from */
    size_t staging_size;
    ref_mem *dst_mem;
    char *dst;
    size_t num_dims;
    size_t element_size;
    /* Packed sub-byte data (element_type.h): pack_bits packs the gathered
     * host elements into dst, unpack_bits unpacks src before the scatter;
     * either is 0 for a plain copy. */
    unsigned pack_bits, unpack_bits;
    int64_t dims[REF_MAX_DIMS];
    int64_t src_strides[REF_MAX_DIMS];
    int64_t dst_strides[REF_MAX_DIMS];
    PJRT_Event *done;  /* may be NULL */
    PJRT_Event *ready; /* may be NULL */
} transfer_op;

static void finish(transfer_op *t, PJRT_Error_Code code, const char *message) {
    if (t->done != NULL) {
        ref_event_complete(t->done, PJRT_Error_Code_OK, NULL);
        ref_event_release(t->done);
    }
    ref_mem_release(t->src_mem);
    if (t->staging != NULL)
        ref_memory_block_give(t->staging_memory, t->staging, t->staging_size);
    ref_mem_release(t->dst_mem);
    PJRT_Event *ready = t->ready;
    PJRT_Event *wait = t->op.wait; /* `message` may belong to it */
    PJRT_Client *client = t->client;
    ref_free(client, t);
    if (ready != NULL) {
        ref_event_complete(ready, code, message);
        ref_event_release(ready);
    }
    ref_event_release(wait);
}

/* The copy of an op: a strided copy, with a pack or unpack of sub-byte
 * elements through a one-byte-per-element staging area. Packed device
 * memory is in the buffer's layout order: its strides (src_strides or
 * dst_strides) are the dense one-byte strides of that layout. */
static bool transfer_copy(transfer_op *t) {
    if (t->pack_bits == 0 && t->unpack_bits == 0) {
        ref_strided_copy(t->dst, t->dst_strides, t->src, t->src_strides, t->dims, t->num_dims,
                         t->element_size);
        return true;
    }
    size_t n = 1; /* checked not to overflow when the buffer was made */
    for (size_t i = 0; i < t->num_dims; i++)
        n *= (size_t)t->dims[i];
    uint8_t *tmp = n ? ref_alloc_data(t->client, n) : NULL;
    if (n != 0 && tmp == NULL)
        return false;
    if (t->pack_bits != 0 && n != 0) {
        ref_strided_copy((char *)tmp, t->dst_strides, t->src, t->src_strides, t->dims, t->num_dims,
                         1);
        pjdl__bits_pack((uint8_t *)t->dst, tmp, n, t->pack_bits);
    } else if (n != 0) {
        pjdl__bits_unpack(tmp, (const uint8_t *)t->src, n, t->unpack_bits);
        ref_strided_copy(t->dst, t->dst_strides, (const char *)tmp, t->src_strides, t->dims,
                         t->num_dims, 1);
    }
    ref_free_data(t->client, tmp);
    return true;
}

/* Copies and completes `t`: OK, or RESOURCE_EXHAUSTED when unpacking
 * sub-byte elements found no memory. */
static void copy_and_finish(transfer_op *t) {
    if (transfer_copy(t))
        finish(t, PJRT_Error_Code_OK, NULL);
    else
        finish(t, PJRT_Error_Code_RESOURCE_EXHAUSTED,
               "pjrt_ref: out of memory unpacking sub-byte elements");
}
static void transfer_run(ref_op *op, PJRT_Error_Code status, const char *message) {
    transfer_op *t = (transfer_op *)op;
    if (status != PJRT_Error_Code_OK) {
        finish(t, status, message);
        return;
    }
    if (ref_client_transfer_faults(t->client)) {
        char msg[160];
        snprintf(msg, sizeof(msg),
                 "pjrt_ref: injected fault in %s (option fail_transfer_every=%lld)", t->what,
                 (long long)t->client->fail_transfer_every);
        finish(t, PJRT_Error_Code_INTERNAL, msg);
        return;
    }
    copy_and_finish(t);
}

static transfer_op *transfer_new(PJRT_Client *client, const char *what, size_t num_dims,
                                 size_t element_size, const int64_t *dims) {
    transfer_op *t = ref_alloc(client, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->op.run = transfer_run;
    t->client = client;
    t->what = what;
    t->num_dims = num_dims;
    t->element_size = element_size;
    memcpy(t->dims, dims, num_dims * sizeof(int64_t));
    return t;
}

/* Runs the transfer now (cpu) or queues it on `stream` (xpu). */
static void transfer_submit(transfer_op *t, ref_stream *stream) {
    if (stream != NULL) {
        ref_stream_enqueue(stream, &t->op);
        return;
    }
    PJRT_Error_Code code = PJRT_Error_Code_OK;
    const char *message = NULL;
    if (t->op.wait != NULL) {
        PJRT_Error *err = ref_event_wait(t->op.wait);
        if (err != NULL) {
            code = ref_event_status(t->op.wait, &message);
            ref_error_free(err);
        }
    }
    if (code != PJRT_Error_Code_OK) {
        finish(t, code, message);
        return;
    }
    copy_and_finish(t);
}

static ref_stream *stream_of(ref_memory *memory) {
    return memory->client->platform == REF_PLATFORM_XPU ? memory->device->stream : NULL;
}

/* ------------------------------------------------------ host to device */

static PJRT_Error *host_strides(PJRT_Client_BufferFromHostBuffer_Args *args, const ref_shape *shape,
                                const char *fn, int64_t *strides) {
    size_t n = shape->num_dims;
    if (args->num_byte_strides == 0) {
        int64_t m2m[REF_MAX_DIMS];
        for (size_t i = 0; i < n; i++)
            m2m[i] = (int64_t)(n - 1 - i);
        ref_dense_strides(shape->dims, n, shape->element_size, m2m, strides);
        return NULL;
    }
    if (args->num_byte_strides != n)
        return REF_INVALID("%s: %zu byte strides for an array of %zu dimensions", fn,
                           args->num_byte_strides, n);
    if (args->byte_strides == NULL)
        return REF_INVALID("%s: byte_strides is NULL but num_byte_strides is %zu", fn, n);
    memcpy(strides, args->byte_strides, n * sizeof(int64_t));
    int64_t lo = 0, hi = 0;
    return ref_strides_span(args->data, shape->dims, n, shape->element_size, strides, fn, &lo, &hi);
}

static bool same_strides(const ref_shape *shape, const int64_t *strides) {
    for (size_t i = 0; i < shape->num_dims; i++)
        if (shape->dims[i] > 1 && strides[i] != shape->strides[i])
            return false;
    return true;
}

/* cpu zero-copy: the buffer aliases the caller's memory, which must be laid
 * out exactly as the buffer and aligned to 16 bytes; done_with_host_buffer
 * completes when the buffer's storage is released. */
static PJRT_Error *alias_host(PJRT_Client_BufferFromHostBuffer_Args *args, ref_memory *memory,
                              const ref_shape *shape, const char *fn) {
    PJRT_Event *done = ref_event_new();
    PJRT_Event *ready = ref_event_new_ready(PJRT_Error_Code_OK, NULL);
    ref_mem *mem = NULL;
    PJRT_Error *err = NULL;
    if (done == NULL || ready == NULL)
        err = ref_error_oom(fn);
    else
        err = ref_mem_wrap(memory, (void *)args->data, shape->size, NULL, NULL, done, &mem);
    if (err != NULL) {
        ref_event_release(done);
        ref_event_release(ready);
        return err;
    }
    err = ref_buffer_new(memory, shape, mem, ready, &args->buffer);
    if (err != NULL) {
        ref_event_release(done);
        return err;
    }
    args->done_with_host_buffer = done;
    return NULL;
}

static bool known_semantics(PJRT_HostBufferSemantics sem) {
    return sem == PJRT_HostBufferSemantics_kImmutableOnlyDuringCall ||
           sem == PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes ||
           sem == PJRT_HostBufferSemantics_kImmutableZeroCopy ||
           sem == PJRT_HostBufferSemantics_kMutableZeroCopy;
}

/* Where a host-to-device transfer reads from: the caller's memory, or (with
 * `staging`) a copy of it in the device layout, made now because the call's
 * data is only valid during the call. */
static void set_host_source(transfer_op *t, const ref_shape *shape, const void *data,
                            const int64_t *src_strides, void *staging) {
    if (staging != NULL) {
        ref_strided_copy(staging, shape->strides, data, src_strides, shape->dims, shape->num_dims,
                         shape->element_size);
        t->staging = staging;
        t->src = staging;
        memcpy(t->src_strides, shape->strides, sizeof(t->src_strides));
    } else {
        t->src = data;
        memcpy(t->src_strides, src_strides, sizeof(t->src_strides));
    }
}

PJRT_Error *ref_PJRT_Client_BufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args *args) {
    static const char fn[] = "PJRT_Client_BufferFromHostBuffer";
    REF_CHECK_ENTRY(args, PJRT_Client_BufferFromHostBuffer, client);
    PJRT_Client *client = args->client;
    PJRT_Error *err = ref_check_alive(client, fn);
    ref_memory *memory = NULL;
    if (err == NULL)
        err = ref_resolve_memory(client, args->device, REF_MEMORY(args->memory), fn, &memory);
    ref_shape shape;
    if (err == NULL)
        err =
            ref_shape_init(&shape, fn, args->type, args->dims, args->num_dims, args->device_layout);
    int64_t src_strides[REF_MAX_DIMS];
    if (err == NULL)
        err = host_strides(args, &shape, fn, src_strides);
    if (err != NULL)
        return err;
    if (args->data == NULL && shape.size > 0)
        return REF_INVALID("%s: data is NULL for an array of %zu bytes", fn, shape.size);
    PJRT_HostBufferSemantics sem = args->host_buffer_semantics;
    if (!known_semantics(sem))
        return REF_INVALID("%s: unknown host_buffer_semantics %d", fn, (int)sem);
    bool zero_copy = sem == PJRT_HostBufferSemantics_kImmutableZeroCopy ||
                     sem == PJRT_HostBufferSemantics_kMutableZeroCopy;
    ref_stream *stream = stream_of(memory);
    if (stream == NULL && zero_copy && shape.size > 0 && ((uintptr_t)args->data % 16) == 0 &&
        same_strides(&shape, src_strides) && shape.packed_bits == 0)
        return alias_host(args, memory, &shape, fn);

    ref_mem *mem;
    if ((err = ref_mem_alloc(memory, shape.size, &mem)) != NULL)
        return err;
    transfer_op *t = transfer_new(client, "a host-to-device transfer", shape.num_dims,
                                  shape.element_size, shape.dims);
    PJRT_Event *ready = ref_event_new();
    /* Only an asynchronous transfer that reads the caller's memory later
     * needs a done event that completes later. */
    bool async_source = stream != NULL && sem != PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
    PJRT_Event *done =
        async_source ? ref_event_new() : ref_event_new_ready(PJRT_Error_Code_OK, NULL);
    void *staging = NULL;
    /* Staged in the host form (one byte per sub-byte element), packed by the op. */
    size_t host_size = shape.num_elements * shape.element_size;
    if (stream != NULL && !async_source && shape.size > 0)
        staging = ref_memory_block_take(memory, host_size);
    if (t == NULL || ready == NULL || done == NULL ||
        (stream != NULL && !async_source && shape.size > 0 && staging == NULL)) {
        ref_free(client, t);
        ref_event_release(ready);
        ref_event_release(done);
        ref_memory_block_give(memory, staging, host_size);
        ref_mem_release(mem);
        return ref_error_oom(fn);
    }
    memcpy(t->dst_strides, shape.strides, shape.num_dims * sizeof(int64_t));
    t->pack_bits = shape.packed_bits;
    t->dst_mem = ref_mem_retain(mem);
    t->dst = mem->data;
    t->staging_memory = memory;
    t->staging_size = host_size;
    set_host_source(t, &shape, args->data, src_strides, staging);
    t->ready = ref_event_retain(ready);
    t->done = async_source ? ref_event_retain(done) : NULL;
    PJRT_Buffer *buffer;
    err = ref_buffer_new(memory, &shape, mem, ready, &buffer);
    if (err != NULL) {
        /* The op was never queued; undo it without touching the data. */
        t->ready = NULL;
        ref_event_release(ready);
        t->src_mem = NULL;
        finish(t, PJRT_Error_Code_OK, NULL);
        ref_event_release(done);
        return err;
    }
    transfer_submit(t, stream);
    args->buffer = buffer;
    args->done_with_host_buffer = done;
    return NULL;
}

/* ------------------------------------------------------ device to host */

/* The storage of buffer `b`, the source of a transfer: the client must be
 * alive and the buffer not deleted. */
static PJRT_Error *acquire_source(PJRT_Buffer *b, const char *fn, ref_mem **src) {
    PJRT_Error *err = ref_check_alive(b->client, fn);
    return err != NULL ? err : ref_buffer_acquire(b, fn, src);
}

/* A transfer that reads `src` (taken), the storage of `b`, once b's ready
 * event completes; *event, a new event, completes when the copy is done.
 * NULL when out of memory (src is then released). */
static transfer_op *transfer_reading(PJRT_Buffer *b, ref_mem *src, const char *what,
                                     size_t num_dims, size_t element_size, const int64_t *dims,
                                     PJRT_Event **event) {
    transfer_op *t = transfer_new(b->client, what, num_dims, element_size, dims);
    PJRT_Event *e = ref_event_new();
    if (t == NULL || e == NULL) {
        ref_free(b->client, t);
        ref_event_release(e);
        ref_mem_release(src);
        return NULL;
    }
    t->src_mem = src;
    t->src = src->data;
    t->op.wait = ref_event_retain(b->ready);
    t->ready = ref_event_retain(e);
    *event = e;
    return t;
}

/* The number of elements of `b` (0 for an empty buffer). */
static size_t buffer_elements(const PJRT_Buffer *b) {
    size_t n = 1; /* checked not to overflow when the buffer was made */
    for (size_t i = 0; i < b->num_dims; i++)
        n *= (size_t)b->dims[i];
    return n;
}

static PJRT_Error *host_layout_strides(PJRT_Buffer *b, const PJRT_Buffer_MemoryLayout *layout,
                                       const char *fn, int64_t *strides, size_t *needed) {
    /* The host form: one byte per element of a packed sub-byte type. */
    size_t host_size = b->packed_bits ? buffer_elements(b) : b->size;
    if (layout == NULL) {
        memcpy(strides, b->strides, b->num_dims * sizeof(int64_t));
        *needed = host_size;
        return NULL;
    }
    /* Not checked: layouts from XLA's C-API client carry no struct_size (see
     * ref_layout_parse). */
    if (layout->type == PJRT_Buffer_MemoryLayout_Type_Tiled) {
        int64_t m2m[REF_MAX_DIMS];
        PJRT_Error *err = ref_layout_parse(layout, fn, b->dims, b->num_dims, b->element_size, m2m);
        if (err != NULL)
            return err;
        ref_dense_strides(b->dims, b->num_dims, b->element_size, m2m, strides);
        *needed = host_size;
        return NULL;
    }
    if (layout->type != PJRT_Buffer_MemoryLayout_Type_Strides)
        return REF_INVALID("%s: unknown host_layout type %d", fn, (int)layout->type);
    const PJRT_Buffer_MemoryLayout_Strides *s = &layout->strides;
    if (s->num_byte_strides != b->num_dims)
        return REF_INVALID("%s: host_layout has %zu byte strides; the buffer has %zu dimensions",
                           fn, s->num_byte_strides, b->num_dims);
    if (b->num_dims > 0 && s->byte_strides == NULL)
        return REF_INVALID("%s: host_layout byte_strides is NULL", fn);
    memcpy(strides, s->byte_strides, b->num_dims * sizeof(int64_t));
    int64_t lo = 0, hi = 0;
    PJRT_Error *err =
        ref_strides_span(NULL, b->dims, b->num_dims, b->element_size, strides, fn, &lo, &hi);
    if (err != NULL)
        return err;
    if (lo < 0)
        return REF_INVALID("%s: host_layout has negative byte strides; dst is the start of the "
                           "destination, so every offset must be non-negative",
                           fn);
    if (!ref_strides_disjoint(b->dims, b->num_dims, b->element_size, strides))
        return REF_INVALID("%s: host_layout byte strides make elements overlap", fn);
    *needed = host_size == 0 ? 0 : (size_t)hi;
    return NULL;
}

PJRT_Error *ref_PJRT_Buffer_ToHostBuffer(PJRT_Buffer_ToHostBuffer_Args *args) {
    static const char fn[] = "PJRT_Buffer_ToHostBuffer";
    REF_CHECK_ENTRY(args, PJRT_Buffer_ToHostBuffer, src);
    PJRT_Buffer *b = args->src;
    int64_t dst_strides[REF_MAX_DIMS];
    size_t needed = 0;
    PJRT_Error *err = host_layout_strides(b, args->host_layout, fn, dst_strides, &needed);
    if (err != NULL)
        return err;
    if (args->dst == NULL) {
        args->dst_size = needed;
        args->event = NULL;
        return NULL;
    }
    if (args->dst_size < needed)
        return REF_INVALID("%s: dst_size is %zu bytes; the buffer needs %zu", fn, args->dst_size,
                           needed);
    if (!ref_span_fits(args->dst, 0, (int64_t)needed))
        return REF_INVALID("%s: dst [%p, +%zu bytes) reaches past the end of the address space", fn,
                           args->dst, needed);
    ref_mem *src;
    if ((err = acquire_source(b, fn, &src)) != NULL)
        return err;
    PJRT_Event *event = NULL;
    transfer_op *t = transfer_reading(b, src, "a device-to-host transfer", b->num_dims,
                                      b->element_size, b->dims, &event);
    if (t == NULL)
        return ref_error_oom(fn);
    memcpy(t->src_strides, b->strides, b->num_dims * sizeof(int64_t));
    t->unpack_bits = b->packed_bits;
    t->dst = args->dst;
    memcpy(t->dst_strides, dst_strides, sizeof(t->dst_strides));
    transfer_submit(t, stream_of(b->memory));
    args->event = event;
    return NULL;
}

/* ------------------------------------------------ device to device copies */

static PJRT_Error *copy_to(PJRT_Buffer *b, ref_memory *dst_memory, const char *fn,
                           PJRT_Buffer **out) {
    PJRT_Error *err = ref_check_memory(b->client, dst_memory, fn);
    if (err != NULL)
        return err;
    /* Copying into the buffer's own memory is a plain copy, as in XLA: JAX
     * asks for it with jax.device_put(x, x.device, may_alias=False). */
    ref_mem *src;
    if ((err = acquire_source(b, fn, &src)) != NULL)
        return err;
    ref_mem *dst;
    if ((err = ref_mem_alloc(dst_memory, b->size, &dst)) != NULL) {
        ref_mem_release(src);
        return err;
    }
    PJRT_Event *ready = NULL;
    /* Packed sub-byte memory is copied byte for byte, as one dimension. */
    int64_t bytes[1] = {(int64_t)b->size};
    transfer_op *t = transfer_reading(
        b, src, "a device-to-device copy", b->packed_bits ? 1 : b->num_dims,
        b->packed_bits ? 1 : b->element_size, b->packed_bits ? bytes : b->dims, &ready);
    if (t == NULL) {
        ref_mem_release(dst);
        return ref_error_oom(fn);
    }
    ref_shape shape = {.type = b->type,
                       .element_size = b->element_size,
                       .num_dims = b->num_dims,
                       .size = b->size,
                       .packed_bits = b->packed_bits};
    memcpy(shape.dims, b->dims, b->num_dims * sizeof(int64_t));
    memcpy(shape.minor_to_major, b->minor_to_major, b->num_dims * sizeof(int64_t));
    memcpy(shape.strides, b->strides, b->num_dims * sizeof(int64_t));
    t->dst_mem = ref_mem_retain(dst);
    t->dst = dst->data;
    if (b->packed_bits) {
        t->src_strides[0] = t->dst_strides[0] = 1;
    } else {
        memcpy(t->src_strides, b->strides, b->num_dims * sizeof(int64_t));
        memcpy(t->dst_strides, b->strides, b->num_dims * sizeof(int64_t));
    }
    PJRT_Buffer *nb;
    if ((err = ref_buffer_new(dst_memory, &shape, dst, ready, &nb)) != NULL) {
        t->ready = NULL;
        ref_event_release(ready);
        finish(t, PJRT_Error_Code_OK, NULL);
        return err;
    }
    /* Queued on the source device's stream: it orders after the work that
     * produces the source. */
    transfer_submit(t, stream_of(b->memory));
    *out = nb;
    return NULL;
}

PJRT_Error *ref_PJRT_Buffer_CopyToDevice(PJRT_Buffer_CopyToDevice_Args *args) {
    static const char fn[] = "PJRT_Buffer_CopyToDevice";
    REF_CHECK_ENTRY(args, PJRT_Buffer_CopyToDevice, buffer);
    PJRT_Error *err = ref_check_device(args->buffer->client, args->dst_device, fn);
    if (err != NULL)
        return err;
    return copy_to(args->buffer, REF_MEMORY(args->dst_device->memories[0]), fn, &args->dst_buffer);
}

PJRT_Error *ref_PJRT_Buffer_CopyToMemory(PJRT_Buffer_CopyToMemory_Args *args) {
    static const char fn[] = "PJRT_Buffer_CopyToMemory";
    REF_CHECK_ENTRY(args, PJRT_Buffer_CopyToMemory, buffer);
    return copy_to(args->buffer, REF_MEMORY(args->dst_memory), fn, &args->dst_buffer);
}

/* --------------------------------------------------------- raw to host */

PJRT_Error *ref_PJRT_Buffer_CopyRawToHost(PJRT_Buffer_CopyRawToHost_Args *args) {
    static const char fn[] = "PJRT_Buffer_CopyRawToHost";
    REF_CHECK_ENTRY(args, PJRT_Buffer_CopyRawToHost, buffer);
    PJRT_Buffer *b = args->buffer;
    if (args->offset < 0 || args->transfer_size < 0 || (uint64_t)args->offset > b->size ||
        (uint64_t)args->transfer_size > b->size - (uint64_t)args->offset)
        return REF_INVALID("%s: [offset %lld, +%lld bytes) is outside the buffer's %zu bytes", fn,
                           (long long)args->offset, (long long)args->transfer_size, b->size);
    if (args->dst == NULL && args->transfer_size > 0)
        return REF_INVALID("%s: dst is NULL", fn);
    if (!ref_span_fits(args->dst, 0, args->transfer_size))
        return REF_INVALID("%s: dst [%p, +%lld bytes) reaches past the end of the address space",
                           fn, args->dst, (long long)args->transfer_size);
    ref_mem *src;
    PJRT_Error *err = acquire_source(b, fn, &src);
    if (err != NULL)
        return err;
    int64_t dims[1] = {args->transfer_size};
    PJRT_Event *event = NULL;
    transfer_op *t = transfer_reading(b, src, "a raw device-to-host transfer", 1, 1, dims, &event);
    if (t == NULL)
        return ref_error_oom(fn);
    t->src += args->offset;
    t->src_strides[0] = 1;
    t->dst = args->dst;
    t->dst_strides[0] = 1;
    transfer_submit(t, stream_of(b->memory));
    args->event = event;
    return NULL;
}
