/* Export: a pjdl_buffer as a DLPack tensor (versioned or legacy).
 *
 * A block per exported tensor holds the DLPack struct. A zero-copy export
 * counts itself in the buffer's refs (which keeps the buffer, and with it
 * the shape and strides the tensor points at) and relies on the library's
 * pin of the PJRT buffer (pin_once); its deleter drops the count. Its block
 * is the buffer's kept one when no other export is live, else its own
 * (view_block). A copy's block also holds its shape and strides, and owns a
 * 256-byte-aligned host allocation.
 *
 * The common case, a shared zero-copy export of a buffer known ready with
 * no other export live, takes no lock, allocates nothing, touches no
 * thread-local state and calls no plugin function after the buffer's first
 * export: the state flags are read atomically, readiness is remembered by
 * the buffer, the PJRT buffer stays pinned by the library from the first
 * export on, and the data pointer and dtype are kept by the buffer (see
 * known_data). An export and its deleter each make one atomic
 * read-modify-write, on the buffer's refs (PJDL_EXPORT_REF): two per pair.
 *
 * Sub-byte types (docs/design.md, "Sub-byte types"): a zero-copy export
 * hands out the device memory as it is, packed for 1, 2 and 4 bits and one
 * element per byte for the 6-bit floats (flagged IS_SUBBYTE_TYPE_PADDED,
 * which a legacy tensor cannot say: it gets a packed copy instead). A host
 * copy holds PJRT's host form, one element per byte: flagged padded in a
 * versioned tensor, packed in place for a legacy one. */
#include <stdlib.h>
#include <string.h>

#include "element_type.h"
#include "internal.h"
#include "platform.h"

typedef struct export_ctx {
    union {
        DLManagedTensorVersioned versioned;
        DLManagedTensor legacy;
    } t;
    pjdl_buffer *buffer; /* holds PJDL_EXPORT_REF of it; NULL for a host copy */
    void *host_data;     /* owned host copy, or NULL */
    bool home;           /* the buffer's export_home: kept, not freed */
    int64_t dims[];      /* a copy's shape, then strides: 2 * ndim entries */
} export_ctx;

/* What the export will hand out, before it is put in a DLPack struct. */
typedef struct export_plan {
    DLTensor tensor;
    uint64_t flags;
} export_plan;

/* Whether the table has both external-reference slots: pjdl__slot_present's
 * test, inline, as every export and every deleter asks. */
static bool has_pin_slots(const PJRT_Api *api) {
    const size_t end = offsetof(PJRT_Api, PJRT_Buffer_DecreaseExternalReferenceCount) +
                       sizeof api->PJRT_Buffer_DecreaseExternalReferenceCount;
    _Static_assert(offsetof(PJRT_Api, PJRT_Buffer_IncreaseExternalReferenceCount) <
                       offsetof(PJRT_Api, PJRT_Buffer_DecreaseExternalReferenceCount),
                   "the decrease slot ends the pair");
    return api->struct_size >= end && api->PJRT_Buffer_IncreaseExternalReferenceCount != NULL &&
           api->PJRT_Buffer_DecreaseExternalReferenceCount != NULL;
}

/* One pin call at a time per buffer (pjdl__buffer_pin_lock, buffer.c;
 * pjdl_buffer_delete takes it too: XLA's plugin also crashes when a buffer
 * is deleted while a pin changes its count). The C API does not promise that a
 * buffer's external reference count may be changed from several threads at
 * once, and XLA's plugins crash if it is (a buffer's references are a plain
 * vector there). Pin calls are short: a spin that yields costs one exchange
 * and one store when uncontended, less than a mutex.
 *
 * The lock is the pjdl_buffer's own, not one shared by address: a decrease
 * may free a view's memory and run its on_delete_callback, which may drop
 * the pin of another buffer (the view's producer) on the same thread; a
 * shared lock could then be taken twice. A PJRT buffer has one pjdl_buffer
 * (pjdl_buffer_wrap adopts it), so one lock per pjdl_buffer is enough.
 *
 * unpin_call is the plugin's DecreaseExternalReferenceCount for the
 * library's pin, under that lock or on the buffer's destruction. */
static void unpin_call(pjdl_buffer *b) {
    const PJRT_Api *api = pjdl__client_api(b->client);
    PJRT_Buffer_DecreaseExternalReferenceCount_Args args = {
        .struct_size = PJRT_Buffer_DecreaseExternalReferenceCount_Args_STRUCT_SIZE,
        .buffer = b->buffer};
    PJRT_Error *error = api->PJRT_Buffer_DecreaseExternalReferenceCount(&args);
    if (error != NULL)
        pjdl__drop_error(api, error);
}

/* The pin is dropped only while no export is live. An export counts
 * itself in refs first and then reads `pinned`; this clears `pinned` first
 * and then reads the count (all sequentially consistent). So either this
 * sees the export and keeps the pin, or the export sees no pin and takes
 * its own (pin_once, after this one is done: same lock). */
void pjdl__buffer_unpin_idle(pjdl_buffer *b) {
    if (!atomic_load(&b->pinned))
        return;
    pjdl__buffer_pin_lock(b);
    if (atomic_load(&b->pinned)) {
        atomic_store(&b->pinned, false);
        if (atomic_load(&b->refs) / PJDL_EXPORT_REF == 0)
            unpin_call(b);
        else
            atomic_store(&b->pinned, true);
    }
    pjdl__buffer_pin_unlock(b);
}

void pjdl__buffer_unpin_final(pjdl_buffer *b) {
    atomic_store_explicit(&b->pinned, false, memory_order_relaxed);
    unpin_call(b);
}

/* Drops one export's count; the last reference of any kind frees. */
static void export_release(pjdl_buffer *b) {
    if (atomic_fetch_sub_explicit(&b->refs, PJDL_EXPORT_REF, memory_order_acq_rel) ==
        PJDL_EXPORT_REF)
        pjdl__buffer_destroy(b);
}

/* The deleter. A zero-copy export's count is dropped after the last
 * touch of its block (the release that view_block's acquire pairs with):
 * the buffer's kept block is then free for the next export. */
static void export_free(export_ctx *ctx) {
    pjdl_buffer *b = ctx->buffer;
    if (ctx->host_data != NULL) /* a view has none: no call */
        free(ctx->host_data);
    if (b == NULL || !ctx->home)
        free(ctx);
    if (b != NULL)
        export_release(b);
}

static void delete_versioned(DLManagedTensorVersioned *self) {
    if (self)
        export_free(self->manager_ctx);
}

static void delete_legacy(DLManagedTensor *self) {
    if (self)
        export_free(self->manager_ctx);
}

/* The library's pin of the PJRT buffer, taken by the first export (the
 * caller has counted itself in refs). Kept until the buffer is destroyed,
 * deleted with no export live, or its PJRT handle is taken with none live
 * (pjdl__buffer_unpin_idle): the PJRT buffer's memory is then held exactly
 * while an export may use it, as when every export pinned on its own. */
static pjdl_code pin_once(pjdl_buffer *b) {
    if (atomic_load(&b->pinned))
        return PJDL_OK;
    const pjdl_plugin *p = b->client->plugin;
    if (!has_pin_slots(p->api)) {
        PJDL_TRY(PJDL_NEED(p, PJRT_Buffer_IncreaseExternalReferenceCount));
        /* else the pin could never be released */
        return PJDL_NEED(p, PJRT_Buffer_DecreaseExternalReferenceCount);
    }
    PJRT_Buffer_IncreaseExternalReferenceCount_Args args = {
        .struct_size = PJRT_Buffer_IncreaseExternalReferenceCount_Args_STRUCT_SIZE,
        .buffer = b->buffer};
    PJRT_Error *error = NULL;
    pjdl__buffer_pin_lock(b);
    if (!atomic_load_explicit(&b->pinned, memory_order_relaxed)) {
        error = p->api->PJRT_Buffer_IncreaseExternalReferenceCount(&args);
        if (error == NULL)
            atomic_store(&b->pinned, true);
    }
    pjdl__buffer_pin_unlock(b);
    if (error == NULL)
        return PJDL_OK;
    return pjdl__take_error_ctx(p->api, error, "PJRT_Buffer_IncreaseExternalReferenceCount");
}

/* The data pointer of a buffer this export has just pinned.
 *
 * It is asked of the plugin by the first zero-copy export only, and kept in
 * the buffer (with the dtype) for every later one. That is sound because
 * the pointer is used only while the library's pin is held (pin_once):
 *  - A PJRT buffer's device memory does not move: a live (not deleted)
 *    buffer reports one address all its life. The memory goes away only
 *    with the buffer's deletion: PJRT_Buffer_Delete (ours, or a caller's on
 *    the raw handle), donation to an execution, or destruction.
 *  - PJRT_Buffer_IncreaseExternalReferenceCount fails for a deleted or
 *    donated buffer (there is no memory left to pin). So once the pin has
 *    succeeded the buffer is live, its memory is the one the kept pointer
 *    was read from, and the pin keeps it there until the deleter unpins.
 *  - pjdl_buffer_delete and a transfer-mode export set the buffer's flags,
 *    and every later export fails on those before it pins.
 * (A plugin whose pin succeeds on a deleted buffer pins nothing at all, so
 * its exports could dangle anyway; the check tool's pin checks catch it.)
 * pjdl_buffer_data_pointer, which pins nothing, still asks every time. */
static pjdl_code known_data(pjdl_buffer *b, const DLDataType *dtype, void **out) {
    if (atomic_load_explicit(&b->export_known, memory_order_acquire)) {
        *out = b->export_data;
        return PJDL_OK;
    }
    void *data = NULL;
    PJDL_TRY(pjdl__buffer_query_data(b, &data));
    pthread_mutex_lock(&b->mu);
    if (!atomic_load_explicit(&b->export_known, memory_order_relaxed)) {
        b->export_data = data;
        b->export_dtype = *dtype;
        atomic_store_explicit(&b->export_known, true, memory_order_release);
    }
    pthread_mutex_unlock(&b->mu);
    *out = data;
    return PJDL_OK;
}

/* Makes the data ready for the consumer: on its stream, or now. */
static pjdl_code make_ready(pjdl_buffer *b, const pjdl_export_options *o) {
    if (!o->has_stream)
        return atomic_load_explicit(&b->ready, memory_order_acquire) ? PJDL_OK
                                                                     : pjdl__buffer_wait_ready(b);
    const pjdl_plugin *p = b->client->plugin;
    const PJRT_Stream_Extension *ext = pjdl__stream_extension(p);
    if (ext == NULL || ext->wait_stream == NULL)
        return pjdl__fail(PJDL_UNIMPLEMENTED,
                          "a consumer stream was given, but the %s plugin has no stream extension "
                          "to make it wait for the data",
                          b->client->platform_name);
    PJRT_Wait_Until_Buffer_Ready_On_Stream_Args args = {
        .struct_size = PJRT_Wait_Until_Buffer_Ready_On_Stream_Args_STRUCT_SIZE,
        .stream = o->stream,
        .buffer = b->buffer};
    return pjdl__take_error_ctx(p->api, ext->wait_stream(&args), "wait_stream");
}

/* A fresh block with room for `ndim` dims and strides; the DLPack struct
 * is filled last. */
static pjdl_code ctx_alloc(size_t ndim, export_ctx **out) {
    size_t size = sizeof(export_ctx) + 2 * ndim * sizeof(int64_t);
    export_ctx *ctx = pjdl__malloc(size);
    if (ctx == NULL)
        return pjdl__fail(PJDL_RESOURCE_EXHAUSTED,
                          "out of memory allocating %zu bytes for an exported tensor", size);
    ctx->buffer = NULL;
    ctx->host_data = NULL;
    ctx->home = false;
    *out = ctx;
    return PJDL_OK;
}

/* The block of a zero-copy export that has just counted itself in refs,
 * `before` being the count it replaced. With no other export live then
 * (before holds no PJDL_EXPORT_REF), none is using the buffer's kept block
 * either: every earlier user dropped its count after its last touch of
 * it (export_free), and that release is ordered before this export's
 * count (the fetch_add acquires). So this export takes the kept block,
 * made on first use, and is the only one to touch export_home until its
 * deleter drops its count. Otherwise it gets a block of its own, which
 * its deleter frees. Shape and strides are the buffer's own, which the
 * count keeps alive. */
static pjdl_code view_block(pjdl_buffer *b, int64_t before, export_ctx **out) {
    bool home = before < PJDL_EXPORT_REF;
    export_ctx *ctx = home ? b->export_home : NULL;
    if (ctx == NULL) {
        PJDL_TRY(ctx_alloc(0, &ctx));
        if (home)
            b->export_home = ctx;
    }
    ctx->buffer = b;
    ctx->host_data = NULL;
    ctx->home = home;
    *out = ctx;
    return PJDL_OK;
}

/* The bits per element of a sub-byte buffer, 0 for whole bytes. */
static unsigned sub_byte_bits(const pjdl_buffer *b) {
    const pjdl__element_type *t = pjdl__element_type_of(b->type);
    return t != NULL && t->bits > 0 && t->bits < 8 ? t->bits : 0;
}

/* Zero-copy: count, take a block, pin, take the data pointer, make it
 * ready. The count comes before pin_once reads the pin (sequentially
 * consistent: pjdl__buffer_unpin_idle). */
static pjdl_code export_view(pjdl_buffer *b, const pjdl_export_options *o, DLDevice own,
                             export_ctx **ctxp, export_plan *plan) {
    int64_t before = atomic_fetch_add(&b->refs, PJDL_EXPORT_REF);
    pjdl_code code = view_block(b, before, ctxp);
    if (code != PJDL_OK) {
        export_release(b);
        return code;
    }
    PJDL_TRY(pin_once(b));
    code = known_data(b, &plan->tensor.dtype, &plan->tensor.data);
    if (code == PJDL_OK)
        code = make_ready(b, o);
    if (code != PJDL_OK)
        return code;
    plan->tensor.device = own;
    plan->tensor.shape = b->dims;
    plan->tensor.strides = b->strides;
    if (sub_byte_bits(b) != 0 && !pjdl__element_type_packed(b->type))
        plan->flags |= DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
    return PJDL_OK;
}

/* Host copy, compact row-major, marked IS_COPIED; sub-byte elements padded
 * (versioned) or packed (legacy, which has no flag to say padded). */
static pjdl_code export_copy(pjdl_buffer *b, bool versioned, export_ctx **ctxp, export_plan *plan) {
    PJDL_TRY(ctx_alloc(b->ndim, ctxp));
    export_ctx *ctx = *ctxp;
    ctx->host_data = pjdl__aligned_alloc(b->size_bytes);
    if (ctx->host_data == NULL)
        return pjdl__fail(PJDL_RESOURCE_EXHAUSTED, "out of memory for a %zu-byte host copy",
                          b->size_bytes);
    PJDL_TRY(pjdl__buffer_read_host(b, ctx->host_data));
    memcpy(ctx->dims, b->dims, b->ndim * sizeof(int64_t));
    uint64_t stride = 1; /* unsigned: may wrap for an empty buffer only */
    for (size_t i = b->ndim; i-- > 0;) {
        ctx->dims[b->ndim + i] = (int64_t)stride;
        stride *= (uint64_t)b->dims[i];
    }
    plan->tensor.data = ctx->host_data;
    plan->tensor.device = (DLDevice){kDLCPU, 0};
    plan->tensor.shape = ctx->dims;
    plan->tensor.strides = ctx->dims + b->ndim;
    plan->flags |= DLPACK_FLAG_BITMASK_IS_COPIED;
    if (sub_byte_bits(b) != 0 && versioned)
        plan->flags |= DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
    else if (sub_byte_bits(b) != 0)
        pjdl__bits_pack(ctx->host_data, ctx->host_data, b->size_bytes, sub_byte_bits(b));
    return PJDL_OK;
}

/* The buffer's DLDevice (pjdl_device_dl), kept in the buffer for the
 * registry generation it was computed in (pjdl_platform_generation): the
 * generation in the high half of export_device, the type in the low 31
 * bits, bit 31 set when the device_id is 0 (host memory), else the id is
 * the device's. */
static pjdl_code own_device(pjdl_buffer *b, DLDevice *out) {
    const uint64_t zero_id = (uint64_t)1 << 31;
    uint64_t tag = ((uint64_t)pjdl__platform_generation() + 1) << 32;
    uint64_t kept = atomic_load_explicit(&b->export_device, memory_order_relaxed);
    if ((kept & ~(uint64_t)UINT32_MAX) != tag) {
        /* Not into *out: its address would escape to pjdl_device_dl, and
         * the caller's DLDevice would then live in memory, written as two
         * 4-byte halves and read as one 8-byte value, which the CPU cannot
         * forward from its store buffer (a stall on every export). */
        DLDevice fresh;
        PJDL_TRY(pjdl_device_dl(b->device, b->memory, &fresh));
        kept = tag | (uint32_t)fresh.device_type | (fresh.device_id == 0 ? zero_id : 0);
        atomic_store_explicit(&b->export_device, kept, memory_order_relaxed);
    }
    out->device_type = (DLDeviceType)(kept & (zero_id - 1));
    out->device_id = (kept & zero_id) ? 0 : pjdl__device_dl_id(b->device);
    return PJDL_OK;
}

/* Why this export needs a host copy (NULL: it does not). */
static const char *copy_reason(const pjdl_buffer *b, const pjdl_export_options *o, bool versioned,
                               DLDevice own) {
    if (o->copy == PJDL_COPY_ALWAYS)
        return "copy=ALWAYS";
    if (b->layout_code != PJDL_OK)
        return b->layout_error ? b->layout_error : "the memory layout is not expressible";
    if (o->has_dl_device && !pjdl_dl_device_same(o->dl_device, own))
        return "the requested dl_device is not the buffer's";
    if (!versioned && o->read_only)
        return "a legacy DLManagedTensor cannot be marked read-only";
    if (!versioned && sub_byte_bits(b) != 0 && !pjdl__element_type_packed(b->type))
        return "a legacy DLManagedTensor cannot say that sub-byte elements are padded";
    return NULL;
}

static pjdl_code check_options(const pjdl_export_options *o) {
    if (o->mode != PJDL_EXPORT_SHARE && o->mode != PJDL_EXPORT_TRANSFER)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "export: unknown mode %d", (int)o->mode);
    if (o->copy != PJDL_COPY_IF_NEEDED && o->copy != PJDL_COPY_NEVER && o->copy != PJDL_COPY_ALWAYS)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "export: unknown copy setting %d", (int)o->copy);
    /* Host memory has device_id 0 (docs/design.md); asked for another, no
     * export can give it, as NumPy refuses it too. */
    if (o->has_dl_device && pjdl__dl_host_reachable(o->dl_device.device_type) &&
        o->dl_device.device_id != 0)
        return pjdl__fail(
            PJDL_INVALID_ARGUMENT, "export: dl_device {%s, %d}: host memory has device_id 0",
            pjdl_dl_device_type_name(o->dl_device.device_type), (int)o->dl_device.device_id);
    return PJDL_OK;
}

/* Chooses view or copy, takes the block (*ctx) and fills it and plan. */
static pjdl_code export_fill(pjdl_buffer *b, const pjdl_export_options *o, bool versioned,
                             export_ctx **ctx, export_plan *plan) {
    DLDevice own;
    pjdl_code code = PJDL_OK;
    if (atomic_load_explicit(&b->export_known, memory_order_acquire))
        plan->tensor.dtype = b->export_dtype;
    else
        code = pjdl_dtype_from_pjrt(b->type, &plan->tensor.dtype);
    if (code == PJDL_OK)
        code = own_device(b, &own);
    if (code != PJDL_OK)
        return code;
    const char *why = copy_reason(b, o, versioned, own);
    if (why == NULL)
        return export_view(b, o, own, ctx, plan);
    if (b->layout_untrusted)
        return pjdl__fail(b->layout_code, "export: %s", b->layout_error);
    if (o->copy == PJDL_COPY_NEVER)
        return pjdl__fail_copy_refused(b->layout_code != PJDL_OK ? b->layout_code
                                                                 : PJDL_INVALID_ARGUMENT,
                                       "export needs a copy (%s) but copy=NEVER", why);
    /* A copy is a host copy: asked for on a device (the buffer's own
     * included), it cannot be what was asked. */
    if (o->has_dl_device && o->dl_device.device_type != kDLCPU)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "export needs a copy (%s), and copies only to the host (kDLCPU), not "
                          "to dl_device {%s, %d}",
                          why, pjdl_dl_device_type_name(o->dl_device.device_type),
                          (int)o->dl_device.device_id);
    return export_copy(b, versioned, ctx, plan);
}

static void plan_finish(pjdl_buffer *b, const pjdl_export_options *o, export_plan *plan) {
    plan->tensor.ndim = (int32_t)b->ndim;
    plan->tensor.byte_offset = 0;
    if (o->read_only)
        plan->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
}

/* Reserves the buffer for this export: a transfer marks it transferred now
 * so that no concurrent use starts; a failed export undoes that. A shared
 * export only checks the flags, without the lock: a delete racing with it
 * may land just after the check either way, and then the pin fails (a
 * deleted buffer cannot be pinned) or the pin holds the memory (the
 * delete keeps the library's pin while an export is counted). */
static pjdl_code reserve(pjdl_buffer *b, const pjdl_export_options *o) {
    if (o->mode == PJDL_EXPORT_SHARE) {
        if (!atomic_load_explicit(&b->transferred, memory_order_acquire) &&
            !atomic_load_explicit(&b->deleted, memory_order_acquire))
            return PJDL_OK;
        return pjdl__buffer_check_live_locked(b);
    }
    pthread_mutex_lock(&b->mu);
    pjdl_code code = pjdl__buffer_check_live_locked(b);
    if (code == PJDL_OK && o->mode == PJDL_EXPORT_TRANSFER)
        b->transferred = true;
    pthread_mutex_unlock(&b->mu);
    return code;
}

/* The error of an export that failed after reserve(): when a
 * pjdl_buffer_delete landed in the meantime, that is why the plugin refused
 * (the pin, the data pointer or the ready event of a deleted buffer), and
 * the export says so as one after the delete does, whatever code the
 * plugin gives a deleted buffer (the reference plugin's
 * FAILED_PRECONDITION, XLA's INVALID_ARGUMENT). */
static pjdl_code failed_export(pjdl_buffer *b, pjdl_code code) {
    pthread_mutex_lock(&b->mu);
    if (b->deleted)
        code = pjdl__buffer_check_live_locked(b);
    pthread_mutex_unlock(&b->mu);
    return code;
}

static void unreserve(pjdl_buffer *b, const pjdl_export_options *o) {
    if (o->mode != PJDL_EXPORT_TRANSFER)
        return;
    pthread_mutex_lock(&b->mu);
    b->transferred = false;
    pthread_mutex_unlock(&b->mu);
}

/* The DLPack struct handed out, of the kind asked for, living in ctx. */
static void *managed_tensor(export_ctx *ctx, const export_plan *plan, bool versioned) {
    if (!versioned) {
        ctx->t.legacy = (DLManagedTensor){
            .dl_tensor = plan->tensor, .manager_ctx = ctx, .deleter = delete_legacy};
        return &ctx->t.legacy;
    }
    ctx->t.versioned = (DLManagedTensorVersioned){
        .version = {.major = DLPACK_MAJOR_VERSION, .minor = DLPACK_MINOR_VERSION},
        .manager_ctx = ctx,
        .deleter = delete_versioned,
        .flags = plan->flags,
        .dl_tensor = plan->tensor};
    return &ctx->t.versioned;
}

/* Both exports: the options, the buffer's state, then a view or a copy;
 * *out is a DLManagedTensorVersioned or (versioned false) a DLManagedTensor. */
static pjdl_code export_any(pjdl_buffer *b, const pjdl_export_options *options, bool versioned,
                            void **out) {
    /* The thread's last error is left as it is: a success does not clear
     * it (pjrt_dlpack.h, pjdl_last_error), and a failure writes its own. */
    export_plan plan = {0};
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    if (b == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "export: buffer is NULL");
    pjdl_code code = PJDL_OK;
    if (options != NULL && options->struct_size == sizeof o)
        o = *options; /* this version's struct: nothing to default */
    else if (options != NULL)
        code = pjdl__copy_options(options, options->struct_size, sizeof o, &o, sizeof o,
                                  "pjdl_export_options");
    if (code == PJDL_OK)
        code = check_options(&o);
    if (code == PJDL_OK)
        code = reserve(b, &o);
    if (code != PJDL_OK)
        return code;
    export_ctx *ctx = NULL;
    code = export_fill(b, &o, versioned, &ctx, &plan);
    if (code != PJDL_OK) {
        if (ctx)
            export_free(ctx);
        unreserve(b, &o);
        return failed_export(b, code);
    }
    plan_finish(b, &o, &plan);
    *out = managed_tensor(ctx, &plan, versioned);
    return PJDL_OK;
}

pjdl_code pjdl_buffer_export(pjdl_buffer *buffer, const pjdl_export_options *options,
                             DLManagedTensorVersioned **out) {
    if (out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_buffer_export: out is NULL");
    void *t = NULL;
    PJDL_TRY(export_any(buffer, options, true, &t));
    *out = t;
    return PJDL_OK;
}

pjdl_code pjdl_buffer_export_legacy(pjdl_buffer *buffer, const pjdl_export_options *options,
                                    DLManagedTensor **out) {
    if (out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_buffer_export_legacy: out is NULL");
    void *t = NULL;
    PJDL_TRY(export_any(buffer, options, false, &t));
    *out = t;
    return PJDL_OK;
}
