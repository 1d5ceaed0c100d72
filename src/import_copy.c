/* Import with a copy: PJRT_Client_BufferFromHostBuffer from host memory.
 *
 * Positive, aligned strides go to the plugin as byte strides and the
 * import returns once the plugin is done reading the producer's memory
 * (done_with_host_buffer), which is then released. Anything else (broadcast, negative strides,
 * unaligned data, a plugin that refuses the strides) is first packed into a
 * compact staging copy. A packed sub-byte tensor is always staged: unpacked
 * into PJRT's host form, one element per byte. */
#include <stdlib.h>

#include "element_type.h"
#include "import.h"

static bool plugin_refused(pjdl_code code) {
    return code == PJDL_UNIMPLEMENTED || code == PJDL_INVALID_ARGUMENT;
}

/* Whether the plugin may read the tensor in place: aligned, not empty, and
 * positive strides that never make two elements overlap (gaps are fine). */
static bool direct_ok(const pjdl_layout *l) {
    if (!l->aligned || l->num_elements == 0 || l->packed_bits != 0)
        return false;
    int64_t stride[PJDL_MAX_RANK], extent[PJDL_MAX_RANK];
    int n = 0;
    for (int32_t i = 0; i < l->ndim; i++) {
        if (l->shape[i] <= 1)
            continue;
        if (l->byte_strides[i] <= 0)
            return false;
        /* insertion sort by stride, ascending */
        int j = n++;
        for (; j > 0 && stride[j - 1] > l->byte_strides[i]; j--) {
            stride[j] = stride[j - 1];
            extent[j] = extent[j - 1];
        }
        stride[j] = l->byte_strides[i];
        extent[j] = l->shape[i];
    }
    int64_t span = (int64_t)l->elem_size;
    for (int i = 0; i < n; i++) {
        if (stride[i] < span)
            return false;
        span = stride[i] * extent[i]; /* no overflow: checked by pjdl__tensor_check */
    }
    return true;
}

static pjdl_code copy_from(import_job *job, const void *src, const int64_t *byte_strides,
                           PJRT_HostBufferSemantics semantics, PJRT_Buffer **out,
                           PJRT_Event **done) {
    return pjdl__host_to_device(job->client, src, job->type, job->tensor->shape,
                                (size_t)job->tensor->ndim, byte_strides, job->device, job->memory,
                                semantics, out, done);
}

/* The source is read in place, and the call returns once that is over
 * (done_with_host_buffer), the owner released: a copy is a copy of the
 * tensor as it was during the import, whatever its producer writes to it
 * afterwards (a transfer that read on would see those writes, the array
 * API's copy=True then not a copy). */
static pjdl_code copy_direct(import_job *job, PJRT_Buffer **out) {
    const pjdl_plugin *p = job->client->plugin;
    const void *src = pjdl__import_data(job);
    const int64_t *strides =
        job->layout.kind == PJDL_LAYOUT_ROW_MAJOR ? NULL : job->layout.byte_strides;
    PJRT_Event *done = NULL;
    pjdl_code code = copy_from(
        job, src, strides, PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes, out, &done);
    if (code == PJDL_OK && done != NULL) {
        pjdl__event_wait(p, done, 0); /* failed or not, the plugin no longer reads it */
        pjdl__event_destroy(p->api, done);
        job->settle = true;
        pjdl__import_owner_release(job->owner);
        return PJDL_OK;
    }
    if (code == PJDL_OK || !plugin_refused(code)) {
        if (code == PJDL_OK)
            pjdl__import_owner_release(job->owner);
        return code;
    }
    code =
        copy_from(job, src, strides, PJRT_HostBufferSemantics_kImmutableOnlyDuringCall, out, &done);
    pjdl__event_destroy(p->api, done);
    if (code == PJDL_OK)
        pjdl__import_owner_release(job->owner);
    return code;
}

/* Unpacks a packed sub-byte tensor (non-negative element strides in
 * byte_strides) into dst, one element per byte, row-major. */
static void unpack_strided(uint8_t *dst, const uint8_t *src, const pjdl_layout *l) {
    int64_t idx[PJDL_MAX_RANK] = {0};
    uint64_t off = 0;
    for (uint64_t i = 0; i < l->num_elements; i++) {
        dst[i] = pjdl__bits_get(src, off, l->packed_bits);
        for (int32_t d = l->ndim; d-- > 0;) {
            if (++idx[d] < l->shape[d]) {
                off += (uint64_t)l->byte_strides[d];
                break;
            }
            off -= (uint64_t)(l->shape[d] - 1) * (uint64_t)l->byte_strides[d];
            idx[d] = 0;
        }
    }
}

/* Packs the tensor compactly first (unpacks packed sub-byte elements); the
 * source is free once staged. */
static pjdl_code copy_staged(import_job *job, PJRT_Buffer **out) {
    const pjdl_plugin *p = job->client->plugin;
    const pjdl_layout *l = &job->layout;
    size_t size = l->packed_bits != 0 ? (size_t)l->num_elements : l->nbytes;
    void *staging = pjdl__aligned_alloc(size);
    if (staging == NULL)
        return pjdl__fail(PJDL_RESOURCE_EXHAUSTED, "out of memory for a %zu-byte staging copy",
                          size);
    if (l->packed_bits != 0)
        unpack_strided(staging, pjdl__import_data(job), l);
    else if (l->nbytes > 0)
        pjdl__strided_copy(staging, pjdl__import_data(job), l);
    PJRT_Event *done = NULL;
    pjdl_code code = copy_from(job, staging, NULL,
                               PJRT_HostBufferSemantics_kImmutableOnlyDuringCall, out, &done);
    if (plugin_refused(code)) {
        code = copy_from(job, staging, NULL,
                         PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes, out, &done);
        job->settle = code == PJDL_OK;
    }
    if (code == PJDL_OK) {
        pjdl_code waited = pjdl__event_wait(p, done, 0);
        (void)waited; /* the staging copy may go either way */
    }
    pjdl__event_destroy(p->api, done);
    free(staging);
    if (code == PJDL_OK)
        pjdl__import_owner_release(job->owner);
    return code;
}

pjdl_code pjdl__import_copy(import_job *job, PJRT_Buffer **out) {
    pjdl_code code = PJDL_UNIMPLEMENTED;
    if (direct_ok(&job->layout)) {
        code = copy_direct(job, out);
        if (code == PJDL_OK || !plugin_refused(code)) {
            if (code != PJDL_OK)
                pjdl__import_owner_cancel(job->owner);
            return code;
        }
    }
    code = copy_staged(job, out);
    if (code != PJDL_OK)
        pjdl__import_owner_cancel(job->owner);
    return code;
}
