/* Import: a DLPack tensor as a pjdl_buffer, viewed when possible, else copied
 * when allowed. */
#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "element_type.h"
#include "import.h"
#include "platform.h"

/* The device a memory belongs to (the first that can address it). */
static pjdl_device *device_of_memory(const pjdl_memory *m) {
    const pjdl_client *c = m->client;
    for (size_t i = 0; i < c->num_devices; i++) {
        if (c->devices[i].default_memory == m)
            return &c->devices[i];
        for (size_t k = 0; k < c->devices[i].num_memories; k++)
            if (c->devices[i].memories[k] == m)
                return &c->devices[i];
    }
    return NULL;
}

/* Picks client, device and memory of the options' target (device= or
 * memory=). */
static pjdl_code find_target(import_job *job) {
    const pjdl_import_options *o = &job->options;
    if (o->memory != NULL) {
        job->memory = o->memory;
        job->device = device_of_memory(o->memory);
        if (job->device == NULL)
            return pjdl__fail(PJDL_INVALID_ARGUMENT, "import: the target memory has no device");
    } else {
        job->device = o->device;
        job->memory = o->device->default_memory;
    }
    job->client = job->device->client;
    return pjdl_device_dl(job->device, job->memory, &job->target_dl);
}

/* Why no view is possible (NULL: a view may be tried). */
static const char *view_obstacle(const import_job *job, pjdl_code *code) {
    *code = PJDL_INVALID_ARGUMENT;
    if (job->options.copy == PJDL_COPY_ALWAYS)
        return "copy=ALWAYS";
    if (!pjdl__dl_device_same(job->target_dl, job->tensor->device))
        return "the target device is not the tensor's device";
    if (job->read_only)
        return "the tensor is read-only and a PJRT buffer is writable";
    if (job->layout.kind == PJDL_LAYOUT_STRIDED)
        return job->layout.why_strided ? job->layout.why_strided
                                       : "the strides are not a compact layout";
    /* DLPack main: a Metal tensor's data is an id<MTLBuffer>, handed to the
     * plugin as is; an address inside the object cannot be made from it. */
    if (job->tensor->device.device_type == kDLMetal && job->tensor->byte_offset != 0 &&
        job->layout.num_elements != 0)
        return "a kDLMetal tensor's data is an id<MTLBuffer>, which a byte_offset cannot be "
               "added to";
    if (job->tensor->dtype.bits < 8 &&
        (job->layout.packed_bits != 0) != pjdl__element_type_packed(job->type))
        return job->layout.packed_bits != 0
                   ? "the tensor's sub-byte elements are packed, and PJRT buffers of its type "
                     "hold one element per byte"
                   : "the tensor's sub-byte elements are padded (one per byte), and PJRT "
                     "buffers of its type are packed";
    if (!job->layout.aligned)
        return "the data is not aligned to its element size";
    if (!PJDL_HAS(job->client->plugin, PJRT_Client_CreateViewOfDeviceBuffer)) {
        *code = PJDL_UNIMPLEMENTED;
        return "the plugin does not implement PJRT_Client_CreateViewOfDeviceBuffer";
    }
    if (job->layout.kind == PJDL_LAYOUT_PERMUTED &&
        !(pjdl__client_layout_trust(job->client) & PJDL_TRUST_VIEW_LAYOUTS)) {
        *code = PJDL_UNIMPLEMENTED;
        return "the plugin ignores the layout of a view (a transposed view of its own buffer "
               "read back untransposed), so a permuted tensor is not viewed";
    }
    return NULL;
}

/* Whether a copy is possible; fails with the reason when not. */
static pjdl_code check_copy(const import_job *job, pjdl_code code, const char *why) {
    if (job->options.copy == PJDL_COPY_NEVER)
        return pjdl__fail_copy_refused(
            code, "import: no zero-copy view is possible (%s) and copy=NEVER", why);
    DLDeviceType src = job->tensor->device.device_type;
    if (!pjdl__dl_host_reachable(src))
        return pjdl__fail(code,
                          "import: no zero-copy view is possible (%s), and memory of %s is not "
                          "reachable from the host for a copy",
                          why, pjdl_dl_device_type_name(src));
    return PJDL_OK;
}

static bool plugin_refused(pjdl_code code) {
    return code == PJDL_UNIMPLEMENTED || code == PJDL_INVALID_ARGUMENT;
}

/* A zero-copy view in a buffer made beforehand: its allocation holds the
 * owner the view's release callback needs. */
static pjdl_code import_as_view(import_job *job, DLManagedTensorVersioned *v, DLManagedTensor *l,
                                pjdl_buffer **out) {
    pjdl_buffer *b = NULL;
    PJDL_TRY(pjdl__buffer_new_view(job->client, job->type, &job->layout, job->device, job->memory,
                                   v, l, &b));
    job->owner = b->view_owner;
    PJRT_Buffer *pjrt = NULL;
    pjdl_code code = pjdl__import_view(job, &pjrt);
    if (code != PJDL_OK) {
        pjdl__import_owner_finish(job->owner, false); /* frees b */
        job->owner = NULL;
        return code;
    }
    pjdl__buffer_view_created(b, pjrt);
    pjdl__import_owner_finish(job->owner, true);
    *out = b;
    return PJDL_OK;
}

/* A copy into a new PJRT buffer, then adopted (its metadata read back). */
static pjdl_code import_as_copy(import_job *job, DLManagedTensorVersioned *v, DLManagedTensor *l,
                                pjdl_buffer **out) {
    PJDL_TRY(pjdl__import_owner_new(v, l, &job->owner));
    job->settle = false;
    PJRT_Buffer *pjrt = NULL;
    pjdl_code code = pjdl__import_copy(job, &pjrt);
    if (code != PJDL_OK) {
        pjdl__import_owner_finish(job->owner, false);
        job->owner = NULL;
        return code;
    }
    code = pjdl__buffer_adopt(job->client, pjrt, out);
    if (code == PJDL_OK) {
        (*out)->settle = job->settle;
        pjdl__import_owner_finish(job->owner, true);
        return PJDL_OK;
    }
    /* The caller keeps the tensor: once PJRT has let go of it, and without
     * its deleter being called. */
    pjdl__host_transfer_destroy(job->client->plugin, pjrt, job->settle);
    pjdl__import_owner_abandon(job->owner);
    return code;
}

/* A view when possible, else a copy when allowed. */
static pjdl_code import_pjrt(import_job *job, DLManagedTensorVersioned *v, DLManagedTensor *l,
                             pjdl_buffer **out) {
    pjdl_code code;
    char plugin_why[512];
    const char *why = view_obstacle(job, &code);
    /* A view pjdl__import_fast was refused is not asked for again. */
    pjdl_code refusal = job->view_refused_by == job->client ? job->view_refusal : PJDL_OK;
    job->view_refused_by = NULL;
    if (why == NULL) {
        code = refusal != PJDL_OK ? refusal : import_as_view(job, v, l, out);
        if (code == PJDL_OK || !plugin_refused(code))
            return code;
        snprintf(plugin_why, sizeof plugin_why, "%s", pjdl_last_error());
        why = plugin_why;
    }
    if ((code = check_copy(job, code, why)) != PJDL_OK)
        return code;
    return import_as_copy(job, v, l, out);
}

/* A sub-byte tensor without the padded flag is packed (DLPack's default):
 * its layout, measured one element per byte, counts elements; nbytes and hi
 * become packed sizes. Negative strides are refused (a packed element's
 * bits are found from its non-negative offset). */
static pjdl_code packed_layout(pjdl_layout *l, unsigned bits) {
    if (l->lo < 0)
        return pjdl__fail(PJDL_UNIMPLEMENTED, "import: a packed sub-byte tensor with negative "
                                              "strides is not supported");
    l->packed_bits = bits;
    l->nbytes = pjdl__packed_size((size_t)l->num_elements, bits);
    l->hi = (int64_t)pjdl__packed_size((size_t)l->hi, bits);
    return PJDL_OK;
}

/* PyTorch's float4_e2m1fn_x2 is kDLFloat4_e2m1fn with 2 lanes: each
 * element a byte of two packed fp4 values, the first in the low bits. That
 * is a packed F4E2M1FN array whose last dimension is twice as long, which
 * is how it is imported (the last dimension must be contiguous). */
static pjdl_code fp4x2_as_scalars(import_job *job, const DLTensor *t) {
    int32_t n = t->ndim;
    if (n < 1 || n > PJDL_MAX_RANK || t->shape == NULL)
        return pjdl__fail(PJDL_UNIMPLEMENTED,
                          "import: a float4_e2m1fn_x2 tensor needs 1 to %d "
                          "dimensions (the last holds the pairs), not %d",
                          PJDL_MAX_RANK, (int)n);
    int64_t *shape = job->scalar_dims, *strides = job->scalar_dims + PJDL_MAX_RANK;
    bool ok = t->strides == NULL || t->strides[n - 1] == 1 || t->shape[n - 1] <= 1;
    bool empty = false;
    for (int32_t i = 0; i < n; i++)
        empty = empty || t->shape[i] == 0;
    for (int32_t i = 0; ok && i < n; i++) {
        shape[i] = t->shape[i];
        strides[i] = t->strides ? t->strides[i] : 0;
        /* As in pjdl__tensor_check: a stride no element multiplies (extent
         * 1, or no elements at all) may be too large to double. */
        if (__builtin_mul_overflow(strides[i], 2, &strides[i])) {
            strides[i] = 0;
            ok = shape[i] <= 1 || empty;
        }
    }
    if (!ok || __builtin_mul_overflow(shape[n - 1], 2, &shape[n - 1]))
        return pjdl__fail(PJDL_UNIMPLEMENTED, "import: a float4_e2m1fn_x2 tensor's last dimension "
                                              "must be contiguous (stride 1), and its strides "
                                              "doubled must fit in int64");
    strides[n - 1] = 1;
    /* Two values in each byte: packed whatever the padded flag says. */
    job->padded = false;
    job->scalars = *t;
    job->scalars.dtype.lanes = 1;
    job->scalars.shape = shape;
    job->scalars.strides = t->strides ? strides : NULL;
    job->tensor = &job->scalars;
    return PJDL_OK;
}

static pjdl_code job_prepare(import_job *job, const DLTensor *t,
                             const pjdl_import_options *options) {
    if (options != NULL && options->struct_size == sizeof job->options) {
        job->options = *options; /* this version's struct: nothing to default */
    } else {
        job->options = (pjdl_import_options)PJDL_IMPORT_OPTIONS_INIT; /* what is not given */
        PJDL_TRY(pjdl__copy_options(options, options ? options->struct_size : 0,
                                    sizeof job->options, &job->options, sizeof job->options,
                                    "pjdl_import_options"));
    }
    pjdl_copy c = job->options.copy;
    if (c != PJDL_COPY_IF_NEEDED && c != PJDL_COPY_NEVER && c != PJDL_COPY_ALWAYS)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "import: unknown copy setting %d", (int)c);
    job->tensor = t;
    if (t->dtype.code == kDLFloat4_e2m1fn && t->dtype.bits == 4 && t->dtype.lanes == 2)
        PJDL_TRY(fp4x2_as_scalars(job, t));
    t = job->tensor;
    /* The common case, a whole-byte dtype in compact C order, first. */
    if (pjdl__dtype_to_pjrt_whole(t->dtype, &job->type) &&
        pjdl__tensor_check_c_order(t, &job->layout))
        return PJDL_OK;
    pjdl_code code = pjdl__tensor_check(t, &job->layout);
    if (code == PJDL_OK)
        code = pjdl__dtype_to_pjrt_checked(t->dtype, &job->type);
    if (code == PJDL_OK && t->dtype.bits < 8 && !job->padded)
        code = packed_layout(&job->layout, t->dtype.bits);
    return code;
}

/* Whether a failed import into one client leaves another candidate worth
 * trying: that client refused the tensor (no view, no copy), rather than the
 * tensor being bad or the plugin failing. */
static bool try_next_client(pjdl_code code) {
    return plugin_refused(code) || code == PJDL_FAILED_PRECONDITION;
}

/* Client `c` as the candidate of pass `pass` (0: devices holding the
 * tensor's memory by default, a cpu client for host memory; 1: devices that
 * merely have it too, an accelerator's pinned_host memory): sets job's
 * client, device and memory. */
static bool candidate(import_job *job, pjdl_client *c, int pass) {
    DLDevice dl = job->tensor->device;
    if (c == NULL || (pass == 1 && pjdl__client_find_dl_memory(c, dl, true, NULL, NULL)))
        return false; /* tried in pass 0 */
    if (!pjdl__client_find_dl_memory(c, dl, pass == 0, &job->device, &job->memory))
        return false;
    job->client = c;
    job->target_dl = dl;
    return true;
}

/* The first client's refusal, its message and copy mark written again. */
static pjdl_code first_refusal(pjdl_code code, const char *why, bool copy_refused) {
    pjdl__fail(code, "%s", why);
    pjdl__set_copy_refused(copy_refused);
    return code;
}

/* Without a target: the tensor into the first of the candidate clients
 * that takes it, in the order of `candidate`. A client that refuses it
 * passes it to the next one, except when the options name a stream (it is a
 * stream of the first); when all refuse, the first one's error is returned. */
static pjdl_code import_into_clients(import_job *job, pjdl_client *const *clients, size_t n,
                                     DLManagedTensorVersioned *v, DLManagedTensor *l,
                                     pjdl_buffer **out) {
    if (clients == NULL && n > 0)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "import: clients is NULL");
    pjdl_code first = PJDL_OK;
    char why[512]; /* set with `first`; not cleared: 512 bytes per import */
    bool why_copy = false;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            if (!candidate(job, clients[i], pass))
                continue;
            pjdl_code code = import_pjrt(job, v, l, out);
            if (code == PJDL_OK || !try_next_client(code))
                return code;
            if (first == PJDL_OK) {
                first = code;
                snprintf(why, sizeof why, "%s", pjdl_last_error());
                why_copy = pjdl_last_error_is_copy_refused();
            }
            if (job->options.has_stream)
                return first_refusal(first, why, why_copy);
        }
    }
    if (first != PJDL_OK)
        return first_refusal(first, why, why_copy);
    return pjdl__fail(PJDL_NOT_FOUND,
                      "import: none of the %zu clients has a device for the tensor's DLDevice "
                      "{%s, %d}",
                      n, pjdl_dl_device_type_name(job->tensor->device.device_type),
                      (int)job->tensor->device.device_id);
}

static pjdl_code import_general(pjdl_client *const *clients, size_t n, const DLTensor *t,
                                uint64_t flags, DLManagedTensorVersioned *v, DLManagedTensor *l,
                                const pjdl_import_options *options, pjdl_code refusal,
                                pjdl_buffer **out);

/* Whether pjdl__import_fast may try the import: options that ask for
 * nothing but copy (not ALWAYS), a writable tensor, a first client. */
static bool fast_possible(pjdl_client *const *clients, size_t n, uint64_t flags,
                          const pjdl_import_options *o) {
    return n > 0 && clients != NULL && clients[0] != NULL &&
           !(flags & DLPACK_FLAG_BITMASK_READ_ONLY) &&
           (o == NULL ||
            (o->struct_size == sizeof *o && o->device == NULL && o->memory == NULL &&
             !o->has_stream && (o->copy == PJDL_COPY_IF_NEEDED || o->copy == PJDL_COPY_NEVER)));
}

static pjdl_code import_any(pjdl_client *const *clients, size_t n, const DLTensor *t,
                            uint64_t flags, DLManagedTensorVersioned *v, DLManagedTensor *l,
                            const pjdl_import_options *options, pjdl_buffer **out) {
    pjdl_code refusal = PJDL_OK;
    if (fast_possible(clients, n, flags, options) &&
        pjdl__import_fast(clients[0], t, v, l, out, &refusal))
        return PJDL_OK;
    return import_general(clients, n, t, flags, v, l, options, refusal, out);
}

/* import_any's general path, after pjdl__import_fast's `refusal` of the
 * first client's view (PJDL_OK: none). Out of line: its job, kilobytes of
 * stack, is not set up for the common case. */
__attribute__((noinline)) static pjdl_code
import_general(pjdl_client *const *clients, size_t n, const DLTensor *t, uint64_t flags,
               DLManagedTensorVersioned *v, DLManagedTensor *l, const pjdl_import_options *options,
               pjdl_code refusal, pjdl_buffer **out) {
    /* The refusal's message is the thread's error, which the general path
     * reads; otherwise nothing of this import is there yet. */
    if (refusal == PJDL_OK)
        pjdl__clear_error();
    /* Field by field: job.layout has room for PJDL_MAX_RANK dimensions and
     * pjdl__tensor_check fills only what the tensor has. */
    import_job job; /* job.options: set by job_prepare */
    job.read_only = (flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    job.padded = (flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) != 0;
    job.type = PJRT_Buffer_Type_INVALID;
    job.client = NULL;
    job.device = NULL;
    job.memory = NULL;
    job.owner = NULL;
    job.view_refusal = refusal;
    job.view_refused_by = refusal != PJDL_OK ? clients[0] : NULL;
    PJDL_TRY(job_prepare(&job, t, options));
    if (job.options.device == NULL && job.options.memory == NULL)
        return import_into_clients(&job, clients, n, v, l, out);
    PJDL_TRY(find_target(&job));
    return import_pjrt(&job, v, l, out);
}

PJDL_HOT pjdl_code pjdl_import(pjdl_client *const *clients, size_t num_clients,
                               DLManagedTensorVersioned *tensor, const pjdl_import_options *options,
                               pjdl_buffer **out) {
    /* The thread's error is left alone unless the import fails (see
     * pjdl_last_error): every failure writes its own. */
    if (tensor == NULL || out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_import: tensor and out must not be NULL");
    if (tensor->version.major != DLPACK_MAJOR_VERSION)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_import: the tensor is DLPack version %u.%u; this library reads "
                          "major version %d",
                          tensor->version.major, tensor->version.minor, DLPACK_MAJOR_VERSION);
    /* A newer minor version may add flags; one we do not know could change
     * how the memory must be read (dlpack.h: use a tensor only when every
     * field is understood), so it is refused rather than ignored. */
    const uint64_t known = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED |
                           DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
    if (tensor->flags & ~known)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_import: the tensor (DLPack %u.%u) has flags 0x%llx that this "
                          "library does not know (it reads DLPack %d.%d)",
                          tensor->version.major, tensor->version.minor,
                          (unsigned long long)(tensor->flags & ~known), DLPACK_MAJOR_VERSION,
                          DLPACK_MINOR_VERSION);
    return import_any(clients, num_clients, &tensor->dl_tensor, tensor->flags, tensor, NULL,
                      options, out);
}

pjdl_code pjdl_import_legacy(pjdl_client *const *clients, size_t num_clients,
                             DLManagedTensor *tensor, const pjdl_import_options *options,
                             pjdl_buffer **out) {
    /* The thread's error is left alone unless the import fails (see
     * pjdl_last_error): every failure writes its own. */
    if (tensor == NULL || out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_import_legacy: tensor and out must not be NULL");
    /* No flags: sub-byte elements are packed, DLPack's default. */
    return import_any(clients, num_clients, &tensor->dl_tensor, 0, NULL, tensor, options, out);
}
