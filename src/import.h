/* Import internals shared by import.c, import_view.c and import_copy.c. */
#ifndef PJDL_SRC_IMPORT_H_
#define PJDL_SRC_IMPORT_H_

#include "internal.h"

/* The producer's tensor and the exactly-once call of its deleter.
 *
 * The deleter runs when both hold: the import succeeded (LIVE) and PJRT
 * released the memory (RELEASED). Whichever of the two comes last calls it.
 * A failed import (FAILED) never calls it: the caller keeps the tensor. The
 * state is one atomic word (import_owner.c).
 *
 * A view's owner lives in its pjdl_buffer's allocation (container): that
 * allocation is freed when PJRT released the memory and the buffer was
 * released (pjdl__import_owner_unhold), whichever is last. A copy's owner is
 * an allocation of its own, freed when the import decided and PJRT
 * released the source. */
typedef struct import_owner {
    atomic_uint bits;
    /* A view's container is being destroyed by thread `destroyer`: set
     * (release) by pjdl__import_owner_destroying, cleared by unhold. */
    atomic_bool destroying;
    pthread_t destroyer;
    DLManagedTensorVersioned *versioned; /* exactly one of the two is set */
    DLManagedTensor *legacy;
    /* The tensor's deleter, read once when the import starts: the tensor is
     * not read after the import call returns, so a producer that gives no
     * deleter (NULL) may free it then (pjdl_import). */
    void (*versioned_deleter)(DLManagedTensorVersioned *);
    void (*legacy_deleter)(DLManagedTensor *);
    pjdl_buffer *container; /* NULL: the owner is its own allocation */
} import_owner;

/* What the import works on. */
typedef struct import_job {
    const DLTensor *tensor;
    pjdl_layout layout;
    PJRT_Buffer_Type type;
    bool read_only;
    bool padded; /* the tensor says IS_SUBBYTE_TYPE_PADDED */
    pjdl_import_options options;
    pjdl_client *client;
    pjdl_device *device;
    pjdl_memory *memory;
    DLDevice target_dl; /* the DLDevice of (device, memory) */
    import_owner *owner;
    /* pjdl__import_copy made the buffer by a kImmutableUntilTransferCompletes
     * transfer (pjdl_buffer's settle). */
    bool settle;
    /* The view pjdl__import_fast asked `view_refused_by` for, and the
     * plugin's refusal (PJDL_OK: none tried): the first import_pjrt of that
     * client takes it as its view's outcome instead of asking again. */
    pjdl_code view_refusal;
    const pjdl_client *view_refused_by;
    /* A float4_e2m1fn tensor of 2 lanes (PyTorch's float4_e2m1fn_x2) seen
     * as scalars, its last dimension doubled: `tensor` then points here. */
    DLTensor scalars;
    int64_t scalar_dims[2 * PJDL_MAX_RANK]; /* shape, then strides */
} import_job;

/* The address of the tensor's first element. An empty tensor's data may be
 * NULL and its byte_offset anything (nothing is read): its data as is. */
static inline void *pjdl__import_data(const import_job *job) {
    if (job->layout.num_elements == 0)
        return job->tensor->data;
    return (char *)job->tensor->data + job->tensor->byte_offset;
}

pjdl_code pjdl__import_owner_new(DLManagedTensorVersioned *v, DLManagedTensor *l,
                                 import_owner **out);
/* Whether the owner's tensor has a deleter: without one, nothing can tell
 * the producer that PJRT is done with the memory, so a copy's read of it
 * is over when the import call returns. */
static inline bool pjdl__import_owner_has_deleter(const import_owner *o) {
    return o->versioned_deleter != NULL || o->legacy_deleter != NULL;
}
/* Sets up an owner that lives inside `container`'s allocation. */
void pjdl__import_owner_init(import_owner *owner, DLManagedTensorVersioned *v, DLManagedTensor *l,
                             pjdl_buffer *container);
/* The container buffer's last reference was released, and the calling
 * thread is about to destroy its PJRT buffer and then call
 * pjdl__import_owner_unhold: a release callback the plugin makes in
 * between on this thread (inside PJRT_Buffer_Destroy, the common case)
 * then needs no atomic read-modify-write, nobody else writing the state. */
void pjdl__import_owner_destroying(import_owner *owner);
/* The container buffer is gone (its last reference was released): frees
 * the allocation now, or lets PJRT's release do it. */
void pjdl__import_owner_unhold(import_owner *owner);
/* Marks the outcome and drops the import call's reference; on success calls
 * the deleter if PJRT already released the memory. */
void pjdl__import_owner_finish(import_owner *owner, bool success);
/* The import failed after PJRT took the memory: waits until PJRT released
 * it (so the caller may free it), never calls the deleter, and drops the
 * import call's reference. */
void pjdl__import_owner_abandon(import_owner *owner);
/* PJRT no longer needs the memory: calls the deleter if the import
 * succeeded, and drops the callback's reference. */
void pjdl__import_owner_release(import_owner *owner);

/* The release callback will never come (registration failed): drops its
 * reference without calling the deleter. */
void pjdl__import_owner_cancel(import_owner *owner);

/* Tries a zero-copy view; *out is the new PJRT buffer. On failure the owner
 * has no callback reference pending. */
pjdl_code pjdl__import_view(import_job *job, PJRT_Buffer **out);

/* The common import in one pass, into `client` (the first candidate):
 * a writable tensor of whole-byte elements, non-empty, in compact C order,
 * aligned, on the default memory of one of the client's devices, viewed
 * with no stream. Returns true when the import is done (*out set, *code
 * PJDL_OK). Returns false when the tensor is not that case, having done
 * nothing (*code PJDL_OK), or when the plugin did not create the view
 * (*code its error, the thread's error its message): the general path
 * (import.c) then decides, and takes that outcome as the client's view
 * rather than asking the plugin again. The caller checked the tensor's
 * version and flags and the options (none but copy, not ALWAYS). */
bool pjdl__import_fast(pjdl_client *client, const DLTensor *t, DLManagedTensorVersioned *v,
                       DLManagedTensor *l, pjdl_buffer **out, pjdl_code *code);

/* Copies the host-reachable tensor into the target; arranges for the owner
 * to be released once the source is no longer needed. */
pjdl_code pjdl__import_copy(import_job *job, PJRT_Buffer **out);

#endif
