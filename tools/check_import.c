/* Import checks: DLPack tensors become zero-copy views, with the right
 * layout, and the producer's deleter runs once when the view is released. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const DLDataType f32 = {kDLFloat, 32, 1};

/* Imports `t` (COPY_NEVER). Returns the buffer, or NULL after recording an
 * unsupported plugin (views impossible) or a failure. */
static pjdl_buffer *import_view(ck_ctx *ctx, ck_result *r, const char *what, ck_tensor *t) {
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_NEVER;
    pjdl_buffer *b = NULL;
    pjdl_code rc = pjdl_import(&ctx->client, 1, &t->mt, &io, &b);
    if (rc == PJDL_OK)
        return b;
    if (rc == PJDL_UNIMPLEMENTED && !RAW_HAS(ctx->api, PJRT_Client_CreateViewOfDeviceBuffer))
        ck_unsupported(r, "%s: no CreateViewOfDeviceBuffer: %s", what, pjdl_last_error());
    else if (rc == PJDL_UNIMPLEMENTED)
        ck_unsupported(r, "%s: the plugin cannot view this memory: %s", what, pjdl_last_error());
    else
        ck_fail(r, "%s: import (copy never): expected a view, got %s: %s", what, pjdl_code_name(rc),
                pjdl_last_error());
    free(t); /* on failure the caller keeps the tensor */
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

static void expect_deleted_once(ck_result *r, const char *what, atomic_int *calls) {
    int n = ck_wait_count(calls, 1, 1000);
    if (n != 1)
        ck_fail(r, "%s: expected the producer's deleter to run once after release, got %d", what,
                n);
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
    int64_t dims[2] = {4, 6};
    atomic_int calls = 0;
    DLTensor *dt = &mt->dl_tensor;
    ck_tensor *t = ck_tensor_new((char *)dt->data + dt->byte_offset, dt->device, f32, dims, 2, NULL,
                                 &calls, NULL);
    pjdl_buffer *view = t ? import_view(ctx, r, "device memory [4,6]", t) : NULL;
    if (view != NULL) {
        verify_view(r, "device memory [4,6]", view, t->mt.dl_tensor.data, dims, 2, host, 24);
        pjdl_buffer_release(view);
        expect_deleted_once(r, "device memory [4,6]", &calls);
    }
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
        int64_t d[2] = {8, 8};
        atomic_int hc = 0;
        ck_tensor *ht = ck_tensor_new(mem, cpu, f32, d, 2, NULL, &hc, mem);
        pjdl_buffer *hv = ht ? import_view(ctx, r, "host memory [8,8]", ht) : NULL;
        if (hv != NULL) {
            verify_view(r, "host memory [8,8]", hv, mem, d, 2, mem, 64);
            pjdl_buffer_release(hv);
            expect_deleted_once(r, "host memory [8,8]", &hc);
        } else {
            free(mem);
        }
    } else {
        ck_note(r, "no memory maps to kDLCPU: host tensors not viewed");
    }
}

void ck_import_layouts(ck_ctx *ctx, ck_result *r) {
    float *host = NULL;
    pjdl_buffer *src = NULL;
    DLManagedTensorVersioned *mt = NULL;
    if (!device_tensor(ctx, r, 4, 6, &host, &src, &mt))
        return;
    DLTensor *dt = &mt->dl_tensor;
    void *data = (char *)dt->data + dt->byte_offset;
    /* The same 24 floats read as the transpose: shape [6,4], strides [1,6]. */
    int64_t tdims[2] = {6, 4}, tstrides[2] = {1, 6};
    float want[24];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 4; j++)
            want[i * 4 + j] = host[j * 6 + i];
    atomic_int calls = 0;
    ck_tensor *t = ck_tensor_new(data, dt->device, f32, tdims, 2, tstrides, &calls, NULL);
    pjdl_buffer *view = t ? import_view(ctx, r, "transposed [6,4] strides [1,6]", t) : NULL;
    if (view != NULL) {
        verify_view(r, "transposed [6,4] strides [1,6]", view, data, tdims, 2, want, 24);
        pjdl_buffer_release(view);
        expect_deleted_once(r, "transposed view", &calls);
    }
    /* A 3-d permutation: [2,3,4] memory read as [4,2,3] with strides [1,12,4]. */
    int64_t pdims[3] = {4, 2, 3}, pstrides[3] = {1, 12, 4};
    float pwant[24];
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 2; b++)
            for (int c = 0; c < 3; c++)
                pwant[(a * 2 + b) * 3 + c] = host[a * 1 + b * 12 + c * 4];
    atomic_int pcalls = 0;
    ck_tensor *pt = ck_tensor_new(data, dt->device, f32, pdims, 3, pstrides, &pcalls, NULL);
    pjdl_buffer *pv = pt ? import_view(ctx, r, "permuted [4,2,3] strides [1,12,4]", pt) : NULL;
    if (pv != NULL) {
        verify_view(r, "permuted [4,2,3] strides [1,12,4]", pv, data, pdims, 3, pwant, 24);
        pjdl_buffer_release(pv);
        expect_deleted_once(r, "permuted view", &pcalls);
    }
    /* Explicit row-major strides and a size-1 dimension with an odd stride
     * are compact too. */
    int64_t rdims[3] = {4, 1, 6}, rstrides[3] = {6, 99, 1};
    atomic_int rcalls = 0;
    ck_tensor *rt = ck_tensor_new(data, dt->device, f32, rdims, 3, rstrides, &rcalls, NULL);
    pjdl_buffer *rv = rt ? import_view(ctx, r, "[4,1,6] strides [6,99,1]", rt) : NULL;
    if (rv != NULL) {
        verify_view(r, "[4,1,6] strides [6,99,1]", rv, data, rdims, 3, host, 24);
        pjdl_buffer_release(rv);
        expect_deleted_once(r, "[4,1,6] view", &rcalls);
    }
    mt->deleter(mt);
    pjdl_buffer_release(src);
    free(host);
}
