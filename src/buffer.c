/* Buffers: adopting a PJRT_Buffer, its metadata, state and lifetime. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "element_type.h"
#include "internal.h"

/* PJRT_Buffer_Destroy, known to be in the table. */
static void destroy_present(const PJRT_Api *api, PJRT_Buffer *buffer) {
    PJRT_Buffer_Destroy_Args args = {.struct_size = PJRT_Buffer_Destroy_Args_STRUCT_SIZE,
                                     .buffer = buffer};
    pjdl__drop_error(api, api->PJRT_Buffer_Destroy(&args));
}

void pjdl__pjrt_buffer_destroy(const PJRT_Api *api, PJRT_Buffer *buffer) {
    if (buffer != NULL && pjdl__slot_present(api, offsetof(PJRT_Api, PJRT_Buffer_Destroy)))
        destroy_present(api, buffer);
}

static pjdl_code read_type_and_dims(const pjdl_plugin *p, PJRT_Buffer *pjrt, PJRT_Buffer_Type *type,
                                    const int64_t **dims, size_t *ndim) {
    PJDL_TRY(PJDL_NEED(p, PJRT_Buffer_ElementType));
    PJDL_TRY(PJDL_NEED(p, PJRT_Buffer_Dimensions));
    PJRT_Buffer_ElementType_Args t = {.struct_size = PJRT_Buffer_ElementType_Args_STRUCT_SIZE,
                                      .buffer = pjrt};
    PJDL_TRY(PJDL_CALL(p->api, PJRT_Buffer_ElementType, &t));
    PJRT_Buffer_Dimensions_Args d = {.struct_size = PJRT_Buffer_Dimensions_Args_STRUCT_SIZE,
                                     .buffer = pjrt};
    PJDL_TRY(PJDL_CALL(p->api, PJRT_Buffer_Dimensions, &d));
    if (d.num_dims > PJDL_MAX_RANK)
        return pjdl__fail(PJDL_UNIMPLEMENTED,
                          "PJRT_Buffer_Dimensions reports %zu dimensions; at most %d are supported",
                          d.num_dims, PJDL_MAX_RANK);
    if (d.num_dims > 0 && d.dims == NULL)
        return pjdl__fail(PJDL_INTERNAL,
                          "PJRT_Buffer_Dimensions reports %zu dimensions but returned dims NULL",
                          d.num_dims);
    for (size_t i = 0; i < d.num_dims; i++)
        if (d.dims[i] < 0)
            return pjdl__fail(PJDL_INTERNAL, "PJRT_Buffer_Dimensions reports dimension %zu as %lld",
                              i, (long long)d.dims[i]);
    if (t.type == PJRT_Buffer_Type_INVALID || pjdl__element_type_of(t.type) == NULL)
        return pjdl__fail(PJDL_UNIMPLEMENTED,
                          "PJRT_Buffer_ElementType reports element type %d, which is not a "
                          "PJRT_Buffer_Type this library knows",
                          (int)t.type);
    *type = t.type;
    *dims = d.dims;
    *ndim = d.num_dims;
    return PJDL_OK;
}

/* Device and memory of the buffer, as this client's objects. */
static pjdl_code read_placement(pjdl_buffer *b) {
    const pjdl_plugin *p = b->client->plugin;
    PJDL_TRY(PJDL_NEED(p, PJRT_Buffer_Device));
    PJRT_Buffer_Device_Args d = {.struct_size = PJRT_Buffer_Device_Args_STRUCT_SIZE,
                                 .buffer = b->buffer};
    PJDL_TRY(PJDL_CALL(p->api, PJRT_Buffer_Device, &d));
    b->device = pjdl__client_lookup_device(b->client, d.device);
    if (b->device == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "the buffer's device is not an addressable device of this client");
    b->memory = b->device->default_memory;
    if (PJDL_HAS(p, PJRT_Buffer_Memory)) {
        PJRT_Buffer_Memory_Args m = {.struct_size = PJRT_Buffer_Memory_Args_STRUCT_SIZE,
                                     .buffer = b->buffer};
        PJRT_Error *error = p->api->PJRT_Buffer_Memory(&m);
        if (error == NULL && m.memory != NULL) {
            pjdl_memory *mem = pjdl__client_lookup_memory(b->client, m.memory);
            if (mem != NULL)
                b->memory = mem;
        }
        pjdl__drop_error(p->api, error);
    }
    return PJDL_OK;
}

static void set_compact(pjdl_buffer *b) {
    /* Unsigned: an empty buffer's other dimensions may be huge (its strides
     * are never used); a non-empty buffer's size is checked. */
    uint64_t stride = 1;
    for (size_t i = b->ndim; i-- > 0;) {
        b->strides[i] = (int64_t)stride;
        stride *= b->dims[i] > 0 ? (uint64_t)b->dims[i] : 1;
    }
}

/* Whether the strides are compact row-major (extent-1 dimensions aside). */
static bool row_major(const pjdl_buffer *b) {
    int64_t stride = 1;
    for (size_t i = b->ndim; i-- > 0;) {
        if (b->dims[i] > 1 && b->strides[i] != stride)
            return false;
        stride *= b->dims[i] > 0 ? b->dims[i] : 1;
    }
    return true;
}

/* The memory layout as element strides; failures are kept for export. */
static pjdl_code read_layout(pjdl_buffer *b) {
    const pjdl_plugin *p = b->client->plugin;
    set_compact(b);
    b->layout_code = PJDL_OK;
    b->layout_untrusted = false;
    if (b->elem_size == 0) {
        b->layout_code = pjdl__fail(PJDL_UNIMPLEMENTED, "element type %s has no data",
                                    pjdl_pjrt_type_name(b->type));
    } else if (PJDL_HAS(p, PJRT_Buffer_GetMemoryLayout)) {
        PJRT_Buffer_GetMemoryLayout_Args a = {
            .struct_size = PJRT_Buffer_GetMemoryLayout_Args_STRUCT_SIZE, .buffer = b->buffer};
        pjdl_code code = PJDL_CALL(p->api, PJRT_Buffer_GetMemoryLayout, &a);
        /* No layouts at all means the default, compact row-major. */
        if (code == PJDL_OK)
            b->layout_code = pjdl__layout_to_strides(&a.layout, b->dims, (int32_t)b->ndim,
                                                     b->elem_size, b->strides);
        if (code == PJDL_OK && b->layout_code != PJDL_OK)
            pjdl__fail_context(b->layout_code, "PJRT_Buffer_GetMemoryLayout reports ");
        else if (code != PJDL_UNIMPLEMENTED)
            b->layout_code = code;
    }
    if (b->layout_code == PJDL_OK && !row_major(b) &&
        (pjdl__client_layout_trust(b->client) & PJDL_TRUST_LAYOUTS) != PJDL_TRUST_LAYOUTS) {
        b->layout_untrusted = true;
        b->layout_code = pjdl__fail(
            PJDL_FAILED_PRECONDITION,
            "the plugin (PJRT C API %d.%d) reports a layout other than row-major for this buffer, "
            "but it ignores the layouts it is given (a probe of the client: %s), so neither the "
            "layout nor a host copy through it can be trusted",
            b->client->plugin->major, b->client->plugin->minor,
            pjdl__client_layout_trust(b->client) & PJDL_TRUST_DEVICE_LAYOUTS
                ? "a transposed view read back untransposed"
                : "a buffer made with a column-major device layout held row-major bytes");
    }
    if (b->layout_code == PJDL_OK)
        return PJDL_OK;
    set_compact(b);
    return pjdl__strdup(pjdl_last_error(), strlen(pjdl_last_error()), &b->layout_error);
}

static pjdl_code compute_size(pjdl_buffer *b) {
    /* Sub-byte types count one byte per element: their host form. The
     * layout's strides are then element strides, which is what DLPack
     * wants for packed data too. */
    const pjdl__element_type *info = pjdl__element_type_of(b->type);
    b->elem_size =
        info != NULL && info->bits > 0 && info->bits < 8 ? 1 : pjdl_pjrt_type_size(b->type);
    size_t n = 1;
    /* A zero anywhere makes an empty buffer, whatever the other dimensions
     * (they may be huge: their product is never used). */
    for (size_t i = 0; i < b->ndim && n != 0; i++)
        if (b->dims[i] == 0)
            n = 0;
    for (size_t i = 0; i < b->ndim && n != 0; i++)
        if (__builtin_mul_overflow(n, (size_t)b->dims[i], &n))
            return pjdl__fail(PJDL_INTERNAL, "PJRT_Buffer_Dimensions reports dimensions whose "
                                             "number of elements overflows");
    if (__builtin_mul_overflow(n, b->elem_size, &b->size_bytes))
        return pjdl__fail(PJDL_INTERNAL, "PJRT_Buffer_Dimensions reports dimensions whose size in "
                                         "bytes overflows");
    return PJDL_OK;
}

/* Fills everything after the dimensions are known. */
static pjdl_code buffer_fill(pjdl_buffer *b) {
    pjdl_code code = compute_size(b);
    if (code == PJDL_OK)
        code = read_placement(b);
    if (code == PJDL_OK)
        code = read_layout(b);
    return code;
}

/* ------------------------------------------------ view blocks, recycled */

/* The allocation of an imported view of up to VIEW_RANK dimensions (the
 * buffer, the owner, dims and strides) has one size, so that the last one
 * a thread frees in pjdl_buffer_release is kept in that thread's stock of
 * one block (common/thread_stock.h) and taken by its next view import: no
 * malloc/free pair per import, and the heap a plugin allocates around each
 * view is left as it is (on XLA's CPU plugin glibc's malloc spent ~1/8 of
 * an import consolidating around our block: bench/README.md). Blocks freed
 * on other threads (a plugin's callback thread) go back to malloc. */
enum { VIEW_RANK = 4 };
#define VIEW_BLOCK_SIZE                                                                            \
    (sizeof(pjdl_buffer) + sizeof(import_owner) + 2 * VIEW_RANK * sizeof(int64_t))
/* Whether a buffer's allocation is a view block: an imported view's (with
 * its owner), of up to VIEW_RANK dimensions. */
static bool is_view_block(bool owner, size_t ndim) {
    return owner && ndim <= VIEW_RANK;
}

/* A buffer's allocation from malloc. Out of line: the common view import
 * inlines buffer_alloc and keeps this, as its other rare steps, out of its
 * hot code (bench/README.md, ninth look). */
__attribute__((noinline)) static pjdl_buffer *block_malloc(size_t size) {
    return pjdl__malloc(size);
}

static pjdl_buffer *view_block_take(void) {
    pjdl_buffer *b = pjdl__stock_take(VIEW_BLOCK_SIZE);
    return __builtin_expect(b != NULL, 1) ? b : block_malloc(VIEW_BLOCK_SIZE);
}

PJDL_HOT void pjdl__buffer_recycle_block(pjdl_buffer *b) {
    bool keep = is_view_block(b->view_owner != NULL, b->ndim) && b->export_home == NULL &&
                b->layout_error == NULL;
    if (!keep || !pjdl__stock_keep(b, VIEW_BLOCK_SIZE))
        pjdl__buffer_free_block(b);
}

/* Every field of a new buffer, each stored on its own: a compound literal
 * (or a memset) clears the whole block first, which GCC does with `rep
 * stos`, over a third of the cycles of pjdl__buffer_new_view (perf
 * annotate). A field added to pjdl_buffer is set here; the assertion is the
 * reminder, with the size on x86-64 glibc these stores were written for
 * (the valgrind twins of the tests catch a field left unset). Inlined:
 * pjdl__buffer_new_view's own stores then replace these where they differ. */
__attribute__((always_inline)) static inline void
buffer_init(pjdl_buffer *b, pjdl_client *client, PJRT_Buffer *pjrt, PJRT_Buffer_Type type,
            size_t ndim, import_owner *view_owner, int64_t *dims) {
#if defined(__x86_64__) && defined(__GLIBC__)
    _Static_assert(sizeof(pjdl_buffer) == 200, "a field was added: set it in buffer_init");
#endif
    atomic_init(&b->refs, 1);
    b->client = client;
    b->buffer = pjrt;
    /* The default mutex, no call, copied from a constant in pieces of at
     * most 32 bytes: whole, GCC clears or copies its 40 bytes with `rep
     * stosl` / `rep movsl` whatever the string-op strategy (CMakeLists.txt),
     * slow to start on every view (bench/README.md, eighth look). */
    static const pthread_mutex_t default_mutex = PTHREAD_MUTEX_INITIALIZER;
    _Static_assert(sizeof default_mutex > 32, "copied in two pieces");
    memcpy(&b->mu, &default_mutex, 32);
    memcpy((char *)&b->mu + 32, (const char *)&default_mutex + 32, sizeof b->mu - 32);
    atomic_init(&b->deleted, false);
    atomic_init(&b->transferred, false);
    atomic_init(&b->ready, false);
    atomic_init(&b->pin_busy, false);
    atomic_init(&b->pinned, false);
    b->settle = false;
    b->type = type;
    b->elem_size = 0;
    b->size_bytes = 0;
    b->device = NULL;
    b->memory = NULL;
    b->layout_code = PJDL_OK;
    b->layout_untrusted = false;
    b->layout_error = NULL;
    b->ndim = ndim;
    b->dims = dims;
    b->strides = dims + ndim;
    b->view_owner = view_owner;
    atomic_init(&b->export_known, false);
    b->export_data = NULL;
    b->export_dtype = (DLDataType){0, 0, 0};
    b->export_home = NULL;
    atomic_init(&b->export_device, 0);
}

/* The allocation of a buffer of `ndim` dimensions, with room for the owner
 * of an imported tensor after the struct when `owner` is set (a view
 * block, from the thread's stock, when it is a view of up to VIEW_RANK
 * dimensions); *head is where its dims start. NULL, with the error set,
 * when out of memory. */
static inline pjdl_buffer *buffer_alloc(bool owner, size_t ndim, size_t *head) {
    *head = sizeof(pjdl_buffer) + (owner ? sizeof(import_owner) : 0);
    bool view_block = is_view_block(owner, ndim);
    size_t size = view_block ? VIEW_BLOCK_SIZE : *head + 2 * ndim * sizeof(int64_t);
    pjdl_buffer *b = view_block ? view_block_take() : block_malloc(size);
    if (__builtin_expect(b == NULL, 0))
        pjdl__fail(PJDL_RESOURCE_EXHAUSTED, "out of memory allocating %zu bytes for a buffer",
                   size);
    return b;
}

/* A buffer object with its dimensions, not yet filled. */
static pjdl_code buffer_new(pjdl_client *client, PJRT_Buffer *pjrt, PJRT_Buffer_Type type,
                            const int64_t *dims, size_t ndim, pjdl_buffer **out) {
    size_t head;
    pjdl_buffer *b = buffer_alloc(false, ndim, &head);
    if (b == NULL)
        return PJDL_RESOURCE_EXHAUSTED;
    buffer_init(b, client, pjrt, type, ndim, NULL, (int64_t *)((char *)b + head));
    for (size_t i = 0; i < ndim; i++)
        b->dims[i] = dims[i];
    *out = b;
    return PJDL_OK;
}

void pjdl__buffer_free_block(pjdl_buffer *b) {
    free(b->export_home);
    if (b->layout_error != NULL)
        free(b->layout_error);
    free(b);
}

pjdl_code pjdl__buffer_adopt(pjdl_client *client, PJRT_Buffer *pjrt, pjdl_buffer **out) {
    PJRT_Buffer_Type type = PJRT_Buffer_Type_INVALID;
    const int64_t *dims = NULL;
    size_t ndim = 0;
    pjdl_code code = read_type_and_dims(client->plugin, pjrt, &type, &dims, &ndim);
    pjdl_buffer *b = NULL;
    if (code == PJDL_OK)
        code = buffer_new(client, pjrt, type, dims, ndim, &b);
    if (code != PJDL_OK)
        return code;
    code = buffer_fill(b);
    if (code != PJDL_OK) {
        pjdl__buffer_free_block(b);
        return code;
    }
    pjdl__client_ref(client);
    *out = b;
    return PJDL_OK;
}

pjdl_buffer *pjdl__buffer_view_block(pjdl_client *client, PJRT_Buffer_Type type, size_t elem_size,
                                     size_t size_bytes, size_t ndim, pjdl_device *device,
                                     pjdl_memory *memory, DLManagedTensorVersioned *versioned,
                                     DLManagedTensor *legacy) {
    /* One function from the allocation to the owner: every field stored
     * once (callgrind: ~25 instructions of every view import less than
     * building it in layers). */
    size_t head;
    pjdl_buffer *b = buffer_alloc(true, ndim, &head);
    if (b == NULL)
        return NULL;
    buffer_init(b, client, NULL, type, ndim, (import_owner *)(b + 1),
                (int64_t *)((char *)b + head));
    b->elem_size = elem_size;
    b->size_bytes = size_bytes;
    b->device = device;
    b->memory = memory != NULL ? memory : device->default_memory;
    pjdl__import_owner_init(b->view_owner, versioned, legacy, b);
    return b;
}

pjdl_code pjdl__buffer_new_view(pjdl_client *client, PJRT_Buffer_Type type,
                                const pjdl_layout *layout, pjdl_device *device, pjdl_memory *memory,
                                DLManagedTensorVersioned *versioned, DLManagedTensor *legacy,
                                pjdl_buffer **out) {
    /* As compute_size finds for `type`: the tensor's element size is the
     * PJRT type's (one byte for a sub-byte type, packed or not), and
     * num_elements times it was checked not to overflow. */
    size_t ndim = (size_t)layout->ndim;
    pjdl_buffer *b = pjdl__buffer_view_block(client, type, layout->elem_size,
                                             (size_t)layout->num_elements * layout->elem_size, ndim,
                                             device, memory, versioned, legacy);
    if (b == NULL)
        return PJDL_RESOURCE_EXHAUSTED;
    /* The dims, and the element strides of the dense layout minor_to_major
     * describes (extents of 0 count as 1, as in set_compact): a
     * permutation, so every dimension is visited once. */
    uint64_t stride = 1;
    for (size_t k = 0; k < ndim; k++) {
        size_t d = (size_t)layout->minor_to_major[k];
        int64_t extent = layout->shape[d];
        b->dims[d] = extent;
        b->strides[d] = (int64_t)stride;
        stride *= extent > 0 ? (uint64_t)extent : 1;
    }
    *out = b;
    return PJDL_OK;
}

void pjdl__buffer_view_created(pjdl_buffer *b, PJRT_Buffer *pjrt) {
    b->buffer = pjrt;
    pjdl__client_ref(b->client);
}

pjdl_code pjdl_buffer_wrap(pjdl_client *client, PJRT_Buffer *pjrt_buffer, pjdl_buffer **out) {
    pjdl__clear_error();
    if (client == NULL || pjrt_buffer == NULL || out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_buffer_wrap: client, pjrt_buffer and out must not be NULL");
    return pjdl__buffer_adopt(client, pjrt_buffer, out);
}

void pjdl_buffer_retain(pjdl_buffer *buffer) {
    if (buffer)
        atomic_fetch_add_explicit(&buffer->refs, 1, memory_order_relaxed);
}

PJDL_HOT void pjdl_buffer_release(pjdl_buffer *buffer) {
    if (buffer == NULL)
        return;
    /* Seeing 1, the caller holds the only reference and nobody can take
     * another (that needs one): the common case needs no atomic write. */
    if (atomic_load_explicit(&buffer->refs, memory_order_acquire) != 1 &&
        atomic_fetch_sub_explicit(&buffer->refs, 1, memory_order_acq_rel) != 1)
        return;
    pjdl__buffer_destroy(buffer);
}

PJDL_HOT void pjdl__buffer_destroy(pjdl_buffer *buffer) {
    if (atomic_load_explicit(&buffer->pinned, memory_order_relaxed))
        pjdl__buffer_unpin_final(buffer);
    if (buffer->view_owner != NULL)
        pjdl__import_owner_destroying(buffer->view_owner);
    /* An imported view's plugin has PJRT_Buffer_Destroy (plugin->views). */
    if (buffer->view_owner != NULL)
        destroy_present(pjdl__client_api(buffer->client), buffer->buffer);
    else
        pjdl__host_transfer_destroy(
            buffer->client->plugin, buffer->buffer,
            buffer->settle && !atomic_load_explicit(&buffer->ready, memory_order_acquire));
    pjdl__client_unref(buffer->client);
    /* An imported view's allocation also holds the owner of the producer's
     * tensor, which may still wait for PJRT to release the memory. */
    if (buffer->view_owner != NULL)
        pjdl__import_owner_unhold(buffer->view_owner);
    else
        pjdl__buffer_free_block(buffer);
}

pjdl_code pjdl__buffer_check_live_locked(const pjdl_buffer *buffer) {
    if (buffer->transferred)
        return pjdl__fail(PJDL_FAILED_PRECONDITION,
                          "the buffer's memory was released to DLPack by a transfer-mode export");
    if (buffer->deleted)
        return pjdl__fail(PJDL_FAILED_PRECONDITION, "the buffer was deleted");
    return PJDL_OK;
}

pjdl_code pjdl_buffer_pjrt(pjdl_buffer *buffer, PJRT_Buffer **out) {
    pjdl__clear_error();
    if (buffer == NULL || out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_buffer_pjrt: buffer and out must not be NULL");
    pthread_mutex_lock(&buffer->mu);
    pjdl_code code = pjdl__buffer_check_live_locked(buffer);
    pthread_mutex_unlock(&buffer->mu);
    if (code != PJDL_OK)
        return code;
    /* The caller may count the handle's external references or donate it:
     * the library's pin stays only while one of its exports is live. */
    pjdl__buffer_unpin_idle(buffer);
    *out = buffer->buffer;
    return PJDL_OK;
}

void pjdl__buffer_pin_lock(pjdl_buffer *b) {
    for (unsigned spins = 0; atomic_exchange_explicit(&b->pin_busy, true, memory_order_acquire);
         spins++)
        if (spins >= 64)
            sched_yield();
}

void pjdl__buffer_pin_unlock(pjdl_buffer *b) {
    atomic_store_explicit(&b->pin_busy, false, memory_order_release);
}

pjdl_code pjdl_buffer_delete(pjdl_buffer *buffer) {
    pjdl__clear_error();
    if (buffer == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_buffer_delete: buffer is NULL");
    pjdl_code code = PJDL_OK;
    pthread_mutex_lock(&buffer->mu);
    if (buffer->transferred) {
        code = pjdl__buffer_check_live_locked(buffer);
    } else if (!buffer->deleted) {
        const pjdl_plugin *p = buffer->client->plugin;
        code = PJDL_NEED(p, PJRT_Buffer_Delete);
        if (code == PJDL_OK) {
            PJRT_Buffer_Delete_Args args = {.struct_size = PJRT_Buffer_Delete_Args_STRUCT_SIZE,
                                            .buffer = buffer->buffer};
            /* Under the pin lock too: XLA's plugin crashes when a buffer is
             * deleted while its external reference count changes. */
            pjdl__buffer_pin_lock(buffer);
            code = PJDL_CALL(p->api, PJRT_Buffer_Delete, &args);
            pjdl__buffer_pin_unlock(buffer);
        }
        /* Set before the pin is looked at: an export that starts after
         * the unpin sees it (export.c, pin_once). */
        atomic_store(&buffer->deleted, code == PJDL_OK);
    }
    pthread_mutex_unlock(&buffer->mu);
    if (code == PJDL_OK)
        pjdl__buffer_unpin_idle(buffer); /* frees the memory unless an export holds it */
    return code;
}

bool pjdl_buffer_is_deleted(pjdl_buffer *buffer) {
    if (buffer == NULL)
        return true;
    pthread_mutex_lock(&buffer->mu);
    bool gone = buffer->deleted || buffer->transferred;
    pthread_mutex_unlock(&buffer->mu);
    return gone;
}

pjdl_client *pjdl_buffer_client(const pjdl_buffer *buffer) {
    return buffer ? buffer->client : NULL;
}

pjdl_device *pjdl_buffer_device(const pjdl_buffer *buffer) {
    return buffer ? buffer->device : NULL;
}

pjdl_memory *pjdl_buffer_memory(const pjdl_buffer *buffer) {
    return buffer ? buffer->memory : NULL;
}

PJRT_Buffer_Type pjdl_buffer_type(const pjdl_buffer *buffer) {
    return buffer ? buffer->type : PJRT_Buffer_Type_INVALID;
}

size_t pjdl_buffer_ndim(const pjdl_buffer *buffer) {
    return buffer ? buffer->ndim : 0;
}

const int64_t *pjdl_buffer_dims(const pjdl_buffer *buffer) {
    return buffer ? buffer->dims : NULL;
}

size_t pjdl_buffer_size_bytes(const pjdl_buffer *buffer) {
    return buffer ? buffer->size_bytes : 0;
}

pjdl_code pjdl_buffer_dl_device(const pjdl_buffer *buffer, DLDevice *out) {
    if (buffer == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_buffer_dl_device: buffer is NULL");
    return pjdl_device_dl(buffer->device, buffer->memory, out);
}
