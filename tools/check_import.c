/* Import checks: DLPack tensors become zero-copy views, with the right
 * layout, and the producer's deleter runs once when the view is released. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Imports `t` (COPY_NEVER). Returns the buffer, or NULL after recording an
 * unsupported plugin (views impossible) or a failure; the wrapper `t` is
 * freed then. */
static pjdl_buffer *import_view(ck_ctx *ctx, ck_result *r, const char *what, ck_tensor *t) {
    pjdl_buffer *b = NULL;
    pjdl_code rc = ck_import_view(ctx, t, &b);
    if (rc == PJDL_OK)
        return b;
    if (rc == PJDL_UNIMPLEMENTED && !RAW_HAS(ctx->api, PJRT_Client_CreateViewOfDeviceBuffer))
        ck_unsupported(r, "%s: no CreateViewOfDeviceBuffer: %s", what, pjdl_last_error());
    else if (rc == PJDL_UNIMPLEMENTED)
        ck_unsupported(r, "%s: the plugin cannot view this memory: %s", what, pjdl_last_error());
    else
        ck_fail(r, "%s: import (copy never): expected a view, got %s: %s", what, pjdl_code_name(rc),
                pjdl_last_error());
    return NULL;
}

/* Checks a view: same data pointer, same dims, content `want`. */
static void verify_view(ck_result *r, const char *what, pjdl_buffer *view, void *data,
                        const int64_t *dims, int ndim, const float *want, size_t n) {
    void *p = NULL;
    pjdl_code rc = pjdl_buffer_data_pointer(view, &p);
    if (rc == PJDL_OK && p != data)
        ck_fail(r, "%s: expected a zero-copy view at %p, got data at %p", what, data, p);
    if ((int)pjdl_buffer_ndim(view) != ndim ||
        memcmp(pjdl_buffer_dims(view), dims, (size_t)ndim * sizeof *dims) != 0)
        ck_fail(r, "%s: the view has other dimensions than the tensor", what);
    if (pjdl_buffer_type(view) != PJRT_Buffer_Type_F32)
        ck_fail(r, "%s: expected element type f32, got %s", what,
                pjdl_pjrt_type_name(pjdl_buffer_type(view)));
    float *got = calloc(n ? n : 1, sizeof *got);
    if (got == NULL)
        return;
    rc = pjdl_buffer_to_host(view, got, n * sizeof *got);
    if (rc != PJDL_OK)
        ck_fail(r, "%s: copying the view to host: %s: %s", what, pjdl_code_name(rc),
                pjdl_last_error());
    else
        ck_expect_bytes(r, what, want, got, n * sizeof *got);
    free(got);
}

/* The shape and strides a view is made with. */
typedef struct layout {
    const char *what;
    int ndim;
    int64_t dims[3];
    int64_t strides[3]; /* all 0: none (compact row-major) */
} layout;

/* An f32 tensor of layout `l` over `data`, imported as a view: the view must
 * show `want`, and the producer's deleter must run once after its release.
 * Returns false when no view was made (`owned`, the memory the tensor's
 * deleter frees, is then the caller's again). */
static bool view_and_verify(ck_ctx *ctx, ck_result *r, const layout *l, void *data, DLDevice device,
                            const float *want, void *owned) {
    const int64_t *strides = l->strides[0] || l->strides[1] ? l->strides : NULL;
    size_t n = 1;
    for (int d = 0; d < l->ndim; d++)
        n *= (size_t)l->dims[d];
    atomic_int calls = 0;
    ck_tensor *t = ck_tensor_new(data, device, ck_f32, l->dims, l->ndim, strides, &calls, owned);
    pjdl_buffer *view = t ? import_view(ctx, r, l->what, t) : NULL;
    if (view == NULL)
        return false;
    verify_view(r, l->what, view, data, l->dims, l->ndim, want, n);
    pjdl_buffer_release(view);
    int got = ck_wait_count(&calls, 1, 1000);
    if (got != 1)
        ck_fail(r, "%s: expected the producer's deleter to run once after release, got %d", l->what,
                got);
    return true;
}

/* Exports a fresh [rows,cols] f32 buffer of the first device's default
 * memory; the caller deletes the tensor and releases the buffer. */
static bool device_tensor(ck_ctx *ctx, ck_result *r, int64_t rows, int64_t cols, float **host,
                          pjdl_buffer **buf, DLManagedTensorVersioned **mt) {
    size_t n = (size_t)(rows * cols);
    float *data = malloc(n * sizeof *data);
    if (data == NULL)
        return false;
    for (size_t i = 0; i < n; i++)
        data[i] = (float)i * 2.0f + 1.0f;
    int64_t dims[2] = {rows, cols};
    pjdl_code rc =
        pjdl_buffer_from_host(ctx->client, data, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, buf);
    if (rc == PJDL_OK) {
        pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
        rc = pjdl_buffer_export(*buf, &o, mt);
        if (rc != PJDL_OK)
            pjdl_buffer_release(*buf);
    }
    if (rc != PJDL_OK) {
        ck_fail(r, "making a device tensor to import: %s: %s", pjdl_code_name(rc),
                pjdl_last_error());
        free(data);
        return false;
    }
    *host = data;
    return true;
}

void ck_import_views(ck_ctx *ctx, ck_result *r) {
    /* 1. Device memory: the tensor exported from a buffer, viewed again. */
    float *host = NULL;
    pjdl_buffer *src = NULL;
    DLManagedTensorVersioned *mt = NULL;
    if (!device_tensor(ctx, r, 4, 6, &host, &src, &mt))
        return;
    static const layout device46 = {"device memory [4,6]", 2, {4, 6}, {0}};
    const int64_t *dims = device46.dims;
    DLTensor *dt = &mt->dl_tensor;
    view_and_verify(ctx, r, &device46, (char *)dt->data + dt->byte_offset, dt->device, host, NULL);
    /* Importing the exported tensor itself hands its deleter to the library. */
    pjdl_buffer *round = NULL;
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_NEVER;
    pjdl_code rc = pjdl_import(&ctx->client, 1, mt, &io, &round);
    if (rc == PJDL_OK) {
        verify_view(r, "round trip export->import", round, (char *)dt->data + dt->byte_offset, dims,
                    2, host, 24);
        pjdl_buffer_release(round);
    } else {
        if (r->status != CK_UNSUPPORTED)
            ck_fail(r, "round trip export->import: %s: %s", pjdl_code_name(rc), pjdl_last_error());
        mt->deleter(mt);
    }
    /* The source stays usable after its export's view went away. */
    float back[24];
    rc = pjdl_buffer_to_host(src, back, sizeof back);
    if (rc != PJDL_OK)
        ck_fail(r, "the exported buffer after the round trip: %s: %s", pjdl_code_name(rc),
                pjdl_last_error());
    else
        ck_expect_bytes(r, "the exported buffer after the round trip", host, back, sizeof back);
    pjdl_buffer_release(src);
    free(host);

    /* 2. Host memory the command allocated, where the client has kDLCPU. */
    DLDevice cpu = {kDLCPU, 0};
    if (pjdl_client_find_dl(ctx->client, cpu, NULL, NULL) == PJDL_OK) {
        float *mem = aligned_alloc(64, 64 * sizeof(float));
        if (mem == NULL)
            return;
        for (int i = 0; i < 64; i++)
            mem[i] = (float)i - 7.5f;
        static const layout host88 = {"host memory [8,8]", 2, {8, 8}, {0}};
        if (!view_and_verify(ctx, r, &host88, mem, cpu, mem, mem))
            free(mem);
    } else {
        ck_note(r, "no memory maps to kDLCPU: host tensors not viewed");
    }
}

void ck_import_layouts(ck_ctx *ctx, ck_result *r) {
    /* The 24 floats of a [4,6] tensor read through other strides: as the
     * transpose, as a 3-d permutation ([2,3,4] memory read as [4,2,3]), and
     * with explicit row-major strides and a size-1 dimension of an odd
     * stride (compact too). */
    static const layout layouts[] = {
        {"transposed [6,4] strides [1,6]", 2, {6, 4}, {1, 6}},
        {"permuted [4,2,3] strides [1,12,4]", 3, {4, 2, 3}, {1, 12, 4}},
        {"[4,1,6] strides [6,99,1]", 3, {4, 1, 6}, {6, 99, 1}},
    };
    float *host = NULL;
    pjdl_buffer *src = NULL;
    DLManagedTensorVersioned *mt = NULL;
    if (!device_tensor(ctx, r, 4, 6, &host, &src, &mt))
        return;
    DLTensor *dt = &mt->dl_tensor;
    void *data = (char *)dt->data + dt->byte_offset;
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        const layout *l = &layouts[i];
        float want[24];
        ck_gather(want, host, l->dims, l->ndim, l->strides, sizeof *want);
        view_and_verify(ctx, r, l, data, dt->device, want, NULL);
    }
    mt->deleter(mt);
    pjdl_buffer_release(src);
    free(host);
}
