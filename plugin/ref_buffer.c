/* Buffers: shapes, creation, metadata queries, deletion, external
 * references and data pointers. */
#include <string.h>

#include "element_type.h" /* common/: packed sub-byte types */
#include "ref_internal.h"

/* The element type's sizes: bytes per element on the host (one for a
 * sub-byte type) and, for a packed sub-byte type, its bits (else 0). One
 * lookup of the table on this per-buffer path; ref_type_size's errors. */
static PJRT_Error *type_sizes(PJRT_Buffer_Type type, const char *fn, size_t *element_size,
                              unsigned *packed_bits) {
    const pjdl__element_type *info = pjdl__element_type_of(type);
    if (info == NULL || info->bits == 0)
        return ref_type_size(type, fn, element_size);
    *element_size = info->bits < 8 ? 1 : info->bits / 8;
    *packed_bits = info->bits < 8 && pjdl__element_type_packed(type) ? (unsigned)info->bits : 0;
    return NULL;
}

PJRT_Error *ref_shape_init(ref_shape *shape, const char *fn, PJRT_Buffer_Type type,
                           const int64_t *dims, size_t num_dims,
                           const PJRT_Buffer_MemoryLayout *layout) {
    /* Only the scalars are cleared: the arrays hold num_dims entries each
     * and clearing all REF_MAX_DIMS of them costs more than a view. */
    shape->num_dims = 0;
    shape->num_elements = 0;
    shape->size = 0;
    PJRT_Error *err = type_sizes(type, fn, &shape->element_size, &shape->packed_bits);
    if (err != NULL)
        return err;
    if (num_dims > REF_MAX_DIMS)
        return REF_INVALID("%s: %zu dimensions; the pjrt_ref plugin supports at most %d", fn,
                           num_dims, REF_MAX_DIMS);
    if (num_dims > 0 && dims == NULL)
        return REF_INVALID("%s: dims is NULL but num_dims is %zu", fn, num_dims);
    shape->type = type;
    shape->num_dims = num_dims;
    /* One pass: the dimensions, their product (an overflow only counts
     * when no dimension is 0: an empty array's other dimensions may be
     * anything) and, without a layout, the row-major order. */
    size_t elements = 1;
    bool empty = false, overflow = false;
    for (size_t i = 0; i < num_dims; i++) {
        if (dims[i] < 0)
            return REF_INVALID("%s: dimension %zu is negative (%lld)", fn, i, (long long)dims[i]);
        shape->dims[i] = dims[i];
        shape->minor_to_major[i] = (int64_t)(num_dims - 1 - i);
        empty = empty || dims[i] == 0;
        overflow = overflow || __builtin_mul_overflow(elements, (uint64_t)dims[i], &elements);
    }
    if (empty)
        elements = 0;
    else if (overflow)
        return REF_INVALID("%s: the number of elements overflows", fn);
    size_t bytes;
    if (__builtin_mul_overflow(elements, shape->element_size, &bytes) || bytes > INT64_MAX)
        return REF_INVALID("%s: the array's size in bytes overflows", fn);
    shape->num_elements = elements;
    /* Packed sub-byte types take fewer bytes on the device, as in XLA. */
    shape->size = shape->packed_bits != 0 ? pjdl__packed_size(elements, shape->packed_bits) : bytes;
    if (layout != NULL &&
        (err = ref_layout_parse(layout, fn, shape->dims, num_dims, shape->element_size,
                                shape->minor_to_major)) != NULL)
        return err;
    if (layout != NULL) {
        ref_dense_strides(shape->dims, num_dims, shape->element_size, shape->minor_to_major,
                          shape->strides);
        return NULL;
    }
    /* Row-major, as ref_dense_strides would find it for C order. */
    uint64_t stride = shape->element_size;
    for (size_t i = num_dims; i-- > 0;) {
        shape->strides[i] = (int64_t)stride;
        stride *= dims[i] > 0 ? (uint64_t)dims[i] : 1;
    }
    return NULL;
}

/* Buffers of up to STOCKED_DIMS dimensions take one size of block, which
 * the thread that frees one keeps for its next (ref_alloc_stocked): a view
 * made and destroyed per import then costs no malloc and free. */
enum { STOCKED_DIMS = 4 };

static size_t buffer_block_size(size_t num_dims) {
    return sizeof(PJRT_Buffer) +
           3 * (num_dims <= STOCKED_DIMS ? STOCKED_DIMS : num_dims) * sizeof(int64_t);
}

/* A buffer of `shape` in `memory` whose ready event is `ready` (taken, also
 * on failure); the caller sets its storage. `what` names it in errors. */
static PJRT_Error *buffer_alloc(ref_memory *memory, const ref_shape *shape, int parts,
                                PJRT_Event *ready, const char *what, PJRT_Buffer **out) {
    size_t n = shape->num_dims, size = buffer_block_size(n);
    /* Not ref_alloc: every field is set here, and the arrays are filled. */
    PJRT_Buffer *b = n <= STOCKED_DIMS ? ref_alloc_stocked(memory->client, size)
                                       : ref_alloc_raw(memory->client, size);
    if (b == NULL) {
        ref_event_release(ready);
        return ref_error_oom(what);
    }
    /* Field by field: a compound literal would clear the whole struct first
     * (GCC: `rep stosq`, slow to start for a block this small). A field
     * added to PJRT_Buffer is set here; the assertion is the reminder, with
     * the size on x86-64 glibc these stores were written for. view_mem is
     * a view's (ref_buffer_new_view sets it). */
#if defined(__x86_64__) && defined(__GLIBC__)
    _Static_assert(sizeof(PJRT_Buffer) == 264, "a field was added: set it in buffer_alloc");
#endif
    b->client = memory->client; /* held by the allocation (PJRT_Client.hold) */
    b->memory = memory;
    b->type = shape->type;
    b->element_size = shape->element_size;
    b->num_dims = n;
    b->size = shape->size;
    b->packed_bits = shape->packed_bits;
    b->ready = ready;
    b->mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER; /* the default mutex, no call */
    b->deleted = false;
    b->external_refs = 0;
    b->mem = NULL;
    b->pinned = NULL;
    atomic_init(&b->parts, parts);
    b->dims = b->dim_storage;
    b->minor_to_major = b->dims + n;
    b->strides = b->minor_to_major + n;
    for (size_t i = 0; i < n; i++) {
        b->dims[i] = shape->dims[i];
        b->minor_to_major[i] = shape->minor_to_major[i];
        b->strides[i] = shape->strides[i];
    }
    *out = b;
    return NULL;
}

PJRT_Error *ref_buffer_new(ref_memory *memory, const ref_shape *shape, ref_mem *mem,
                           PJRT_Event *ready, PJRT_Buffer **out) {
    PJRT_Error *err = buffer_alloc(memory, shape, 1, ready, "creating a buffer", out);
    if (err != NULL) {
        ref_mem_release(mem);
        return err;
    }
    (*out)->mem = mem;
    return NULL;
}

PJRT_Error *ref_buffer_new_view(ref_memory *memory, const ref_shape *shape, void *data,
                                PJRT_Event *ready, PJRT_Buffer **out) {
    PJRT_Buffer *b = NULL;
    PJRT_Error *err = buffer_alloc(memory, shape, 2, ready, "creating a view", &b);
    if (err != NULL)
        return err;
    ref_mem *mem = &b->view_mem;
    atomic_init(&mem->refs, 1);
    mem->client = b->client; /* the allocation holds the client */
    mem->memory = memory;
    mem->data = data;
    mem->size = shape->size;
    mem->owned = false;
    mem->prev = mem->next = NULL;
    mem->on_delete = NULL; /* set by the caller */
    mem->on_delete_arg = NULL;
    mem->release_event = NULL;
    mem->container = b;
    b->mem = mem;
    *out = b;
    return NULL;
}

void ref_buffer_release_part(PJRT_Buffer *b) {
    /* Parts are never added: seeing 1, this is the last one and needs no
     * atomic write (the common case: a view released by its Destroy). */
    if (atomic_load_explicit(&b->parts, memory_order_acquire) != 1 &&
        atomic_fetch_sub_explicit(&b->parts, 1, memory_order_acq_rel) != 1)
        return;
    if (b->num_dims <= STOCKED_DIMS)
        ref_free_stocked(b->client, b, buffer_block_size(b->num_dims));
    else
        ref_free(b->client, b);
}

static PJRT_Error *deleted_error(const char *fn) {
    return ref_error(PJRT_Error_Code_FAILED_PRECONDITION,
                     "%s: the buffer has been deleted (PJRT_Buffer_Delete)", fn);
}

bool ref_buffer_is_deleted(PJRT_Buffer *buffer) {
    pthread_mutex_lock(&buffer->mu);
    bool deleted = buffer->deleted;
    pthread_mutex_unlock(&buffer->mu);
    return deleted;
}

PJRT_Error *ref_check_not_deleted(PJRT_Buffer *b, const char *fn) {
    return ref_buffer_is_deleted(b) ? deleted_error(fn) : NULL;
}

PJRT_Error *ref_buffer_acquire(PJRT_Buffer *buffer, const char *fn, ref_mem **out) {
    pthread_mutex_lock(&buffer->mu);
    ref_mem *mem = buffer->deleted ? NULL : ref_mem_retain(buffer->mem);
    pthread_mutex_unlock(&buffer->mu);
    if (mem == NULL)
        return deleted_error(fn);
    *out = mem;
    return NULL;
}

/* Drops the buffer's own reference to its storage. The pin (if any) keeps
 * the storage alive until the external reference count returns to zero. */
static void buffer_delete(PJRT_Buffer *b) {
    pthread_mutex_lock(&b->mu);
    ref_mem *mem = b->mem;
    b->mem = NULL;
    b->deleted = true;
    pthread_mutex_unlock(&b->mu);
    ref_mem_release(mem);
}

PJRT_Error *ref_PJRT_Buffer_Destroy(PJRT_Buffer_Destroy_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Buffer_Destroy_Args);
    PJRT_Buffer *b = args->buffer;
    if (b == NULL)
        return NULL;
    /* Destroy is the handle's last call: nothing else may use it now, so
     * its state needs no lock. The handle owns its external references:
     * destroying it releases any that are left, as upstream PJRT does. */
    ref_mem *mem = b->mem, *pinned = b->pinned;
    b->mem = b->pinned = NULL;
    b->deleted = true;
    ref_mem_release(pinned);
    ref_event_release(b->ready);
    pthread_mutex_destroy(&b->mu);
    if (mem == &b->view_mem && atomic_load_explicit(&mem->refs, memory_order_acquire) == 1) {
        /* A view whose storage nobody else holds: both parts of the
         * allocation are this call's, and releasing the storage frees it. */
        atomic_store_explicit(&b->parts, 1, memory_order_relaxed);
        ref_mem_release(mem);
        return NULL;
    }
    ref_mem_release(mem);
    ref_buffer_release_part(b);
    return NULL;
}

REF_DEFINE_QUERY(PJRT_Buffer_Delete, buffer, buffer_delete(self);)
REF_DEFINE_QUERY(PJRT_Buffer_IsDeleted, buffer, args->is_deleted = ref_buffer_is_deleted(self);)
REF_DEFINE_QUERY(PJRT_Buffer_ElementType, buffer, args->type = self->type;)
REF_DEFINE_QUERY(PJRT_Buffer_Dimensions, buffer, args->dims = self->dims;
                 args->num_dims = self->num_dims;)
REF_DEFINE_QUERY(PJRT_Buffer_UnpaddedDimensions, buffer, args->unpadded_dims = self->dims;
                 args->num_dims = self->num_dims;)
REF_DEFINE_QUERY(PJRT_Buffer_DynamicDimensionIndices, buffer, args->dynamic_dim_indices = NULL;
                 args->num_dynamic_dims = 0;)
REF_DEFINE_QUERY(PJRT_Buffer_OnDeviceSizeInBytes, buffer,
                 args->on_device_size_in_bytes = self->size;)
REF_DEFINE_QUERY(PJRT_Buffer_Device, buffer, args->device = self->memory->device;)
REF_DEFINE_QUERY(PJRT_Buffer_Memory, buffer, args->memory = &self->memory->base;)
REF_DEFINE_QUERY(PJRT_Buffer_IsOnCpu, buffer,
                 args->is_on_cpu = self->client->platform == REF_PLATFORM_CPU;)

PJRT_Error *ref_PJRT_Buffer_GetMemoryLayout(PJRT_Buffer_GetMemoryLayout_Args *args) {
    REF_CHECK_ENTRY(args, PJRT_Buffer_GetMemoryLayout, buffer);
    PJRT_Buffer_MemoryLayout *l = &args->layout;
    memset(l, 0, sizeof(*l));
    l->struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE;
    l->type = PJRT_Buffer_MemoryLayout_Type_Tiled;
    l->tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
    l->tiled.minor_to_major = args->buffer->minor_to_major;
    l->tiled.minor_to_major_size = args->buffer->num_dims;
    l->tiled.tile_dims = NULL;
    l->tiled.tile_dim_sizes = NULL;
    l->tiled.num_tiles = 0;
    return NULL;
}

PJRT_Error *ref_PJRT_Buffer_ReadyEvent(PJRT_Buffer_ReadyEvent_Args *args) {
    REF_CHECK_ENTRY(args, PJRT_Buffer_ReadyEvent, buffer);
    if (ref_buffer_is_deleted(args->buffer)) {
        /* As the C API documents: a deleted buffer's event is an error. */
        PJRT_Event *e = ref_event_new_ready(PJRT_Error_Code_FAILED_PRECONDITION,
                                            "PJRT_Buffer_ReadyEvent: the buffer has been deleted");
        if (e == NULL)
            return ref_error_oom("PJRT_Buffer_ReadyEvent");
        args->event = e;
        return NULL;
    }
    args->event = ref_event_retain(args->buffer->ready);
    return NULL;
}

static PJRT_Error *data_pointer(PJRT_Buffer *b, const char *fn, void **out) {
    pthread_mutex_lock(&b->mu);
    bool deleted = b->deleted;
    void *p = deleted ? NULL : b->mem->data;
    pthread_mutex_unlock(&b->mu);
    if (deleted)
        return deleted_error(fn);
    *out = p;
    return NULL;
}

PJRT_Error *ref_PJRT_Buffer_UnsafePointer(PJRT_Buffer_UnsafePointer_Args *args) {
    REF_CHECK_ENTRY(args, PJRT_Buffer_UnsafePointer, buffer);
    void *p = NULL;
    PJRT_Error *err = data_pointer(args->buffer, "PJRT_Buffer_UnsafePointer", &p);
    if (err == NULL)
        args->buffer_pointer = (uintptr_t)p;
    return err;
}

PJRT_Error *ref_PJRT_Buffer_OpaqueDeviceMemoryDataPointer(
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args *args) {
    REF_CHECK_ENTRY(args, PJRT_Buffer_OpaqueDeviceMemoryDataPointer, buffer);
    return data_pointer(args->buffer, "PJRT_Buffer_OpaqueDeviceMemoryDataPointer",
                        &args->device_memory_ptr);
}

PJRT_Error *ref_PJRT_Buffer_IncreaseExternalReferenceCount(
    PJRT_Buffer_IncreaseExternalReferenceCount_Args *args) {
    REF_CHECK_ENTRY(args, PJRT_Buffer_IncreaseExternalReferenceCount, buffer);
    PJRT_Buffer *b = args->buffer;
    pthread_mutex_lock(&b->mu);
    bool deleted = b->deleted;
    if (!deleted) {
        if (b->external_refs++ == 0)
            b->pinned = ref_mem_retain(b->mem);
    }
    pthread_mutex_unlock(&b->mu);
    if (deleted)
        return deleted_error("PJRT_Buffer_IncreaseExternalReferenceCount");
    return NULL;
}

PJRT_Error *ref_PJRT_Buffer_DecreaseExternalReferenceCount(
    PJRT_Buffer_DecreaseExternalReferenceCount_Args *args) {
    REF_CHECK_ENTRY(args, PJRT_Buffer_DecreaseExternalReferenceCount, buffer);
    PJRT_Buffer *b = args->buffer;
    ref_mem *unpin = NULL;
    pthread_mutex_lock(&b->mu);
    bool was_zero = b->external_refs == 0;
    if (!was_zero && --b->external_refs == 0) {
        unpin = b->pinned;
        b->pinned = NULL;
    }
    pthread_mutex_unlock(&b->mu);
    if (was_zero)
        return ref_error(PJRT_Error_Code_FAILED_PRECONDITION,
                         "PJRT_Buffer_DecreaseExternalReferenceCount: the external reference "
                         "count is already zero");
    /* Outside the lock: this may free the storage or run on_delete. */
    ref_mem_release(unpin);
    return NULL;
}

/* ------------------------------------------------------- creation entries */

PJRT_Error *ref_resolve_memory(PJRT_Client *client, PJRT_Device *device, ref_memory *memory,
                               const char *fn, ref_memory **out) {
    PJRT_Error *err;
    if (memory != NULL) {
        if ((err = ref_check_memory(client, memory, fn)) != NULL)
            return err;
        if (device != NULL && memory->device != device)
            return REF_INVALID("%s: memory %s is not a memory of device %s", fn,
                               memory->debug_string, device->description.debug_string);
        *out = memory;
        return NULL;
    }
    if (device == NULL)
        return REF_INVALID("%s: neither device nor memory is given", fn);
    if ((err = ref_check_device(client, device, fn)) != NULL)
        return err;
    *out = REF_MEMORY(device->memories[0]);
    return NULL;
}

PJRT_Error *
ref_PJRT_Client_CreateUninitializedBuffer(PJRT_Client_CreateUninitializedBuffer_Args *args) {
    static const char fn[] = "PJRT_Client_CreateUninitializedBuffer";
    REF_CHECK_ENTRY(args, PJRT_Client_CreateUninitializedBuffer, client);
    ref_memory *memory = NULL;
    PJRT_Error *err =
        ref_resolve_memory(args->client, args->device, REF_MEMORY(args->memory), fn, &memory);
    if (err != NULL)
        return err;
    ref_shape shape;
    err = ref_shape_init(&shape, fn, args->shape_element_type, args->shape_dims,
                         args->shape_num_dims, args->shape_layout);
    if (err != NULL)
        return err;
    ref_mem *mem;
    if ((err = ref_mem_alloc(memory, shape.size, &mem)) != NULL)
        return err;
    memset(mem->data, 0, shape.size); /* deterministic contents */
    PJRT_Event *ready = ref_event_new_ready(PJRT_Error_Code_OK, NULL);
    if (ready == NULL) {
        ref_mem_release(mem);
        return ref_error_oom(fn);
    }
    return ref_buffer_new(memory, &shape, mem, ready, &args->buffer);
}
