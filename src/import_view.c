/* Import without a copy: PJRT_Client_CreateViewOfDeviceBuffer. */
#include "dtype.h"
#include "import.h"

PJDL_HOT static void on_view_deleted(void *device_buffer_ptr, void *user_arg) {
    (void)device_buffer_ptr;
    int *depth = pjdl__callback_enter();
    pjdl__import_owner_release(user_arg);
    pjdl__callback_leave(depth);
}

/* The view was not made (`code`, or PJDL_OK with no buffer): the owner's
 * callback reference dropped. Cold and out of line, as every rare step of
 * the common import is: its hot code then spans fewer cache lines, which
 * is what a view import costs a large plugin most (bench/README.md, ninth
 * look). */
__attribute__((cold, noinline)) static pjdl_code view_failed(pjdl_code code, import_owner *owner) {
    if (code == PJDL_OK)
        code = pjdl__fail(PJDL_INTERNAL, "PJRT_Client_CreateViewOfDeviceBuffer returned no buffer");
    pjdl__import_owner_cancel(owner);
    return code;
}

/* PJRT_Client_CreateViewOfDeviceBuffer of `n` dims at `data` on `device`
 * (and `memory`: NULL, the device's default), in row-major order unless
 * `layout` says otherwise, its release callback the owner's. On failure
 * the owner has no callback reference pending. */
static pjdl_code view_call(const pjdl_client *client, const pjdl_device *device,
                           const pjdl_memory *memory, void *data, const int64_t *dims, size_t n,
                           PJRT_Buffer_Type type, PJRT_Buffer_MemoryLayout *layout, intptr_t stream,
                           import_owner *owner, PJRT_Buffer **out) {
    if (__builtin_expect(!pjdl__plugin_has_type(client->plugin, type), 0))
        return view_failed(pjdl__type_too_new(client->plugin, type), owner);
    /* Every field assigned: an initializer would have GCC clear the struct
     * with `rep stosq` first, slow to start on every view (bench/README.md). */
    PJRT_Client_CreateViewOfDeviceBuffer_Args a;
    a.struct_size = PJRT_Client_CreateViewOfDeviceBuffer_Args_STRUCT_SIZE;
    a.extension_start = NULL;
    a.client = client->client;
    a.device_buffer_ptr = data;
    a.dims = dims;
    a.num_dims = n;
    a.element_type = type;
    a.layout = layout;
    a.device = device->device;
    a.on_delete_callback = on_view_deleted;
    a.on_delete_callback_arg = owner;
    a.stream = stream;
    a.buffer = NULL;
    a.memory = memory ? memory->memory : NULL;
    pjdl_code code = PJDL_CALL(client->plugin->api, PJRT_Client_CreateViewOfDeviceBuffer, &a);
    if (code != PJDL_OK || a.buffer == NULL)
        return view_failed(code, owner);
    *out = a.buffer;
    return PJDL_OK;
}

pjdl_code pjdl__import_view(import_job *job, PJRT_Buffer **out) {
    const pjdl_plugin *p = job->client->plugin;
    /* PJRT_Client_CreateViewOfDeviceBuffer is there (view_obstacle). */
    PJDL_TRY(PJDL_NEED(p, PJRT_Buffer_Destroy)); /* else the view could never be freed */
    /* Row-major is PJRT's default; a layout is said only for permutations
     * (and built only then: the common case skips the struct). */
    bool permuted = job->layout.kind == PJDL_LAYOUT_PERMUTED;
    PJRT_Buffer_MemoryLayout layout;
    if (permuted) {
        layout = (PJRT_Buffer_MemoryLayout){.struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE,
                                            .type = PJRT_Buffer_MemoryLayout_Type_Tiled};
        layout.tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
        layout.tiled.minor_to_major = job->layout.minor_to_major;
        layout.tiled.minor_to_major_size = (size_t)job->layout.ndim;
    }
    return view_call(job->client, job->device, job->memory, pjdl__import_data(job),
                     job->tensor->shape, (size_t)job->tensor->ndim, job->type,
                     permuted ? &layout : NULL, job->options.has_stream ? job->options.stream : 0,
                     job->owner, out);
}

/* Whether `t` is compact C order with elements (strides NULL, or those of
 * C order: an extent-1 dimension's may be anything, as
 * pjdl__tensor_check_c_order classifies), its size in bytes in *bytes;
 * false when it is not that, or a size overflows, or its bytes wrap around
 * the address space; its first byte's address in *addr. */
static bool fast_c_order(const DLTensor *t, int64_t es, int64_t *bytes, uintptr_t *addr) {
    int64_t el = 1;
    for (int32_t i = t->ndim - 1; i >= 0; i--) {
        int64_t d = t->shape[i];
        if (d <= 0 || (t->strides != NULL && d > 1 && t->strides[i] != el))
            return false;
        if (__builtin_mul_overflow(el, d, &el))
            return false;
    }
    return !__builtin_mul_overflow(el, es, bytes) && pjdl__tensor_span_fits(t, 0, *bytes, addr);
}

/* Flattened: the calls it makes into the import path's other files (the
 * device lookup, the buffer's block, the owner) are inlined here, one
 * function's code instead of five (callgrind: 46 instructions fewer per
 * view import; on XLA's CPU plugin 1.10-1.13x its own pair, against
 * 1.11-1.14x, bench/README.md). */
__attribute__((flatten)) PJDL_HOT bool pjdl__import_fast(pjdl_client *client, const DLTensor *t,
                                                         DLManagedTensorVersioned *v,
                                                         DLManagedTensor *l, pjdl_buffer **out,
                                                         pjdl_code *code) {
    *code = PJDL_OK;
    PJRT_Buffer_Type type;
    const pjdl_plugin *p = client->plugin;
    int32_t n = t->ndim;
    if (!pjdl__dtype_to_pjrt_whole(t->dtype, &type) || n < 0 || n > PJDL_MAX_RANK ||
        (n > 0 && t->shape == NULL) || t->data == NULL || t->byte_offset > (uint64_t)INT64_MAX ||
        (t->device.device_type == kDLMetal && t->byte_offset != 0) || !p->views)
        return false;
    /* Whole-byte element sizes are powers of two: alignment is a mask. */
    int64_t es = t->dtype.bits / 8, bytes;
    uintptr_t addr;
    pjdl_device *device;
    pjdl_memory *memory;
    if ((es & (es - 1)) != 0 || !fast_c_order(t, es, &bytes, &addr) ||
        (addr & (uintptr_t)(es - 1)) != 0 ||
        !pjdl__client_find_default_dl(client, t->device, &device, &memory))
        return false;
    /* Formed only now: fast_c_order found that it does not wrap. */
    char *data = (char *)t->data + t->byte_offset;
    pjdl_buffer *b = pjdl__buffer_view_block(client, type, (size_t)es, (size_t)bytes, (size_t)n,
                                             device, memory, v, l);
    if (b == NULL)
        return false;
    /* The dims and the strides of C order, from a running product (no
     * overflow: fast_c_order checked it), which GCC does not vectorize:
     * its loop versions spanned two more cache lines of hot code. */
    int64_t el = 1;
    for (int32_t i = n - 1; i >= 0; i--) {
        b->dims[i] = t->shape[i];
        b->strides[i] = el;
        el *= t->shape[i];
    }
    PJRT_Buffer *pjrt = NULL;
    *code = view_call(client, device, memory, data, t->shape, (size_t)n, type, NULL, 0,
                      b->view_owner, &pjrt);
    if (__builtin_expect(*code != PJDL_OK, 0)) {
        pjdl__import_owner_finish(b->view_owner, false); /* frees b */
        return false;
    }
    pjdl__buffer_view_created(b, pjrt);
    pjdl__import_owner_finish(b->view_owner, true);
    *out = b;
    return true;
}
