/* Export checks: every element type, 0-d, zero-size, multi-dimensional and
 * strided buffers. Each exported tensor is compared field by field with what
 * was put in, and its data is read back. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void shape_text(const int64_t *dims, int ndim, char *out, size_t n) {
    size_t used = (size_t)snprintf(out, n, "[");
    for (int i = 0; i < ndim && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, "%s%" PRId64, i ? "," : "", dims[i]);
    if (used < n)
        snprintf(out + used, n - used, "]");
}

/* Compares an exported tensor with the buffer it came from; reads the data
 * back when `want` is given. `want_strides` NULL: compact row-major. */
static void verify_tensor(ck_ctx *ctx, ck_result *r, const char *what, pjdl_buffer *buf,
                          const DLTensor *t, DLDataType dtype, const int64_t *dims, int ndim,
                          const void *want, size_t size) {
    char a[128], b[128];
    if (t->dtype.code != dtype.code || t->dtype.bits != dtype.bits || t->dtype.lanes != dtype.lanes)
        ck_fail(r, "%s: expected dtype code %d bits %d lanes %d, got code %d bits %d lanes %d",
                what, dtype.code, dtype.bits, dtype.lanes, t->dtype.code, t->dtype.bits,
                t->dtype.lanes);
    if (t->ndim != ndim) {
        ck_fail(r, "%s: expected ndim %d, got %d", what, ndim, t->ndim);
        return;
    }
    if (ndim > 0 && t->shape == NULL) {
        ck_fail(r, "%s: expected a shape, got NULL", what);
        return;
    }
    if (ndim > 0 && memcmp(t->shape, dims, (size_t)ndim * sizeof *dims) != 0) {
        shape_text(dims, ndim, a, sizeof a);
        shape_text(t->shape, ndim, b, sizeof b);
        ck_fail(r, "%s: expected shape %s, got %s", what, a, b);
        return;
    }
    DLDevice dl;
    if (pjdl_buffer_dl_device(buf, &dl) == PJDL_OK &&
        (dl.device_type != t->device.device_type || dl.device_id != t->device.device_id))
        ck_fail(r, "%s: expected device %s:%d, got %s:%d", what,
                pjdl_dl_device_type_name((DLDeviceType)dl.device_type), (int)dl.device_id,
                pjdl_dl_device_type_name((DLDeviceType)t->device.device_type),
                (int)t->device.device_id);
    size_t esize = (size_t)dtype.bits / 8;
    if (t->byte_offset % (esize ? esize : 1) != 0)
        ck_fail(r, "%s: byte_offset %" PRIu64 " not a multiple of the element size", what,
                t->byte_offset);
    if (want == NULL || size == 0)
        return;
    if (t->data == NULL) {
        ck_fail(r, "%s: expected a data pointer, got NULL for %zu bytes", what, size);
        return;
    }
    unsigned char *got = malloc(size);
    if (got == NULL)
        return;
    char msg[512];
    pjdl_code rc = ck_read_memory(ctx, (char *)t->data + t->byte_offset, t->device, t->dtype,
                                  t->shape, t->ndim, t->strides, got, size, false, msg, sizeof msg);
    if (rc == PJDL_OK)
        ck_expect_bytes(r, what, want, got, size);
    else if (rc == PJDL_UNIMPLEMENTED && !r->noted_unreadable) {
        r->noted_unreadable = true;
        ck_note(r,
                "data not read back: the memory is not host-readable and the plugin cannot "
                "view it (%s)",
                msg);
    } else
        ck_fail(r, "%s: reading the data back: %s", what, msg);
    free(got);
}

static const DLTensor *export_tensor(ck_result *r, const char *what, pjdl_buffer *buf,
                                     const pjdl_export_options *o, DLManagedTensorVersioned **mt) {
    pjdl_code rc = pjdl_buffer_export(buf, o, mt);
    if (rc != PJDL_OK) {
        ck_fail(r, "%s: export: expected OK, got %s: %s", what, pjdl_code_name(rc),
                pjdl_last_error());
        return NULL;
    }
    if ((*mt)->deleter == NULL)
        ck_fail(r, "%s: the exported tensor has no deleter", what);
    if ((*mt)->version.major != DLPACK_MAJOR_VERSION)
        ck_fail(r, "%s: expected DLPack major %d, got %u", what, DLPACK_MAJOR_VERSION,
                (*mt)->version.major);
    return &(*mt)->dl_tensor;
}

static void delete_tensor(DLManagedTensorVersioned *mt) {
    if (mt != NULL && mt->deleter != NULL)
        mt->deleter(mt);
}

/* Exports one type; false when the plugin does not support it. */
static bool export_one_type(ck_ctx *ctx, ck_result *r, PJRT_Buffer_Type type, DLDataType dt) {
    const char *name = pjdl_pjrt_type_name(type);
    size_t esize = pjdl_pjrt_type_size(type);
    int64_t dims[2] = {2, 3};
    size_t size = 6 * esize;
    unsigned char data[6 * 16];
    ck_pattern(data, size, (unsigned)type, type);
    pjdl_buffer *buf = NULL;
    pjdl_code rc = pjdl_buffer_from_host(ctx->client, data, type, dims, 2, NULL, NULL, &buf);
    if (rc == PJDL_UNIMPLEMENTED || (rc == PJDL_INVALID_ARGUMENT && type != PJRT_Buffer_Type_F32))
        return false;
    if (rc != PJDL_OK) {
        ck_fail(r, "%s: creating the buffer: %s: %s", name, pjdl_code_name(rc), pjdl_last_error());
        return true;
    }
    if (pjdl_buffer_type(buf) != type)
        ck_fail(r, "%s: the plugin reports element type %s for a %s buffer", name,
                pjdl_pjrt_type_name(pjdl_buffer_type(buf)), name);
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    DLManagedTensorVersioned *mt = NULL;
    const DLTensor *t = export_tensor(r, name, buf, &o, &mt);
    if (t != NULL)
        verify_tensor(ctx, r, name, buf, t, dt, dims, 2, data, size);
    delete_tensor(mt);
    pjdl_buffer_release(buf);
    return true;
}

void ck_export_types(ck_ctx *ctx, ck_result *r) {
    char done[512] = "", unsupported[512] = "";
    size_t nd = 0, nu = 0;
    for (int type = 1; type <= PJRT_Buffer_Type_F6E3M2FN; type++) {
        DLDataType dt;
        if (pjdl_dtype_from_pjrt((PJRT_Buffer_Type)type, &dt) != PJDL_OK ||
            pjdl_pjrt_type_size((PJRT_Buffer_Type)type) == 0)
            continue; /* not expressible in DLPack, or sub-byte (subbyte.storage) */
        const char *name = pjdl_pjrt_type_name((PJRT_Buffer_Type)type);
        int before = r->failures;
        if (export_one_type(ctx, r, (PJRT_Buffer_Type)type, dt)) {
            if (r->failures == before)
                nd += (size_t)snprintf(done + nd, nd < sizeof done ? sizeof done - nd : 0, "%s%s",
                                       nd ? " " : "", name);
        } else {
            nu += (size_t)snprintf(unsupported + nu,
                                   nu < sizeof unsupported ? sizeof unsupported - nu : 0, "%s%s",
                                   nu ? " " : "", name);
        }
    }
    /* The pre-1.0 struct too. */
    float f[4] = {1.5f, -2.0f, 3.25f, 4.0f};
    int64_t dims[1] = {4};
    pjdl_buffer *buf = NULL;
    if (pjdl_buffer_from_host(ctx->client, f, PJRT_Buffer_Type_F32, dims, 1, NULL, NULL, &buf) ==
        PJDL_OK) {
        DLManagedTensor *legacy = NULL;
        pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
        pjdl_code rc = pjdl_buffer_export_legacy(buf, &o, &legacy);
        if (rc != PJDL_OK) {
            ck_fail(r, "legacy export: expected OK, got %s: %s", pjdl_code_name(rc),
                    pjdl_last_error());
        } else {
            verify_tensor(ctx, r, "legacy f32", buf, &legacy->dl_tensor, ck_f32, dims, 1, f,
                          sizeof f);
            if (legacy->deleter)
                legacy->deleter(legacy);
        }
        pjdl_buffer_release(buf);
    }
    if (r->status == CK_PASS)
        ck_note(r, "exported %s", nd ? done : "nothing");
    if (nu)
        ck_note(r, "types the plugin does not support: %s", unsupported);
}

static void export_shape(ck_ctx *ctx, ck_result *r, const int64_t *dims, int ndim) {
    char what[96];
    shape_text(dims, ndim, what, sizeof what);
    size_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= (size_t)dims[i];
    float *data = malloc((n ? n : 1) * sizeof *data);
    if (data == NULL)
        return;
    ck_pattern(data, n * sizeof *data, 3, PJRT_Buffer_Type_U8);
    for (size_t i = 0; i < n; i++)
        data[i] = (float)i + 0.5f; /* keep them ordinary floats */
    pjdl_buffer *buf = NULL;
    pjdl_code rc = pjdl_buffer_from_host(ctx->client, data, PJRT_Buffer_Type_F32, dims,
                                         (size_t)ndim, NULL, NULL, &buf);
    if (rc != PJDL_OK) {
        ck_fail(r, "f32%s: creating the buffer: %s: %s", what, pjdl_code_name(rc),
                pjdl_last_error());
        free(data);
        return;
    }
    if ((int)pjdl_buffer_ndim(buf) != ndim ||
        (ndim && memcmp(pjdl_buffer_dims(buf), dims, (size_t)ndim * sizeof *dims) != 0)) {
        char got[96];
        shape_text(pjdl_buffer_dims(buf), (int)pjdl_buffer_ndim(buf), got, sizeof got);
        ck_fail(r, "f32%s: the plugin reports dimensions %s", what, got);
    }
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    DLManagedTensorVersioned *mt = NULL;
    const DLTensor *t = export_tensor(r, what, buf, &o, &mt);
    if (t != NULL)
        verify_tensor(ctx, r, what, buf, t, ck_f32, dims, ndim, data, n * sizeof *data);
    delete_tensor(mt);
    pjdl_buffer_release(buf);
    free(data);
}

void ck_export_shapes(ck_ctx *ctx, ck_result *r) {
    static const int64_t scalar[1] = {0};
    static const int64_t empty_a[2] = {0, 3}, empty_b[2] = {2, 0};
    static const int64_t d3[3] = {2, 3, 4}, d2[2] = {5, 7}, d4[4] = {2, 1, 3, 2};
    export_shape(ctx, r, scalar, 0);
    export_shape(ctx, r, empty_a, 2);
    export_shape(ctx, r, empty_b, 2);
    export_shape(ctx, r, d2, 2);
    export_shape(ctx, r, d3, 3);
    export_shape(ctx, r, d4, 4);
    if (r->status == CK_PASS)
        ck_note(r, "0-d, [0,3], [2,0], [5,7], [2,3,4], [2,1,3,2]");
}

/* Whether the library refused the column-major buffer because the plugin
 * does not hold the layouts it is given (FAILED_PRECONDITION from the
 * export, and from a host copy too): the plugin's fault, named; no wrong
 * data reached the caller. */
static bool strided_refused(ck_result *r, pjdl_buffer *buf) {
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    DLManagedTensorVersioned *mt = NULL;
    pjdl_code rc = pjdl_buffer_export(buf, &o, &mt);
    if (rc != PJDL_FAILED_PRECONDITION) {
        delete_tensor(mt);
        return false;
    }
    char why[512];
    snprintf(why, sizeof why, "%s", pjdl_last_error());
    float host[12];
    rc = pjdl_buffer_to_host(buf, host, sizeof host);
    if (rc != PJDL_FAILED_PRECONDITION)
        ck_fail(r, "column-major [3,4]: the export was refused (%s), but a host copy was not (%s)",
                why, pjdl_code_name(rc));
    else
        ck_unsupported(r,
                       "the plugin does not hold the layouts it is given, so the library refuses "
                       "to export this column-major buffer or copy it to the host (%s)",
                       why);
    return true;
}

void ck_export_strided(ck_ctx *ctx, ck_result *r) {
    /* A 3x4 f32 buffer stored column-major on the device. */
    const int64_t dims[2] = {3, 4};
    const int64_t m2m[2] = {0, 1};
    float data[12];
    for (int i = 0; i < 12; i++)
        data[i] = (float)(i * 10 + 1);
    PJRT_Buffer_MemoryLayout layout;
    memset(&layout, 0, sizeof layout);
    layout.struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE;
    layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
    layout.tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
    layout.tiled.minor_to_major = m2m;
    layout.tiled.minor_to_major_size = 2;
    PJRT_Client_BufferFromHostBuffer_Args h = ck_f32_host_args(ctx, data, dims, 2);
    h.device_layout = &layout;
    char msg[512];
    pjdl_code rc = raw_buffer_from_host(ctx->api, &h, msg, sizeof msg);
    PJRT_Buffer *pb = h.buffer;
    if (rc != PJDL_OK) {
        ck_unsupported(r,
                       "the plugin does not create buffers with a column-major device layout "
                       "(%s: %s)",
                       pjdl_code_name(rc), msg);
        return;
    }
    pjdl_buffer *buf = NULL;
    rc = pjdl_buffer_wrap(ctx->client, pb, &buf);
    if (rc != PJDL_OK) {
        ck_fail(r, "pjdl_buffer_wrap: %s: %s", pjdl_code_name(rc), pjdl_last_error());
        raw_buffer_destroy(ctx->api, pb);
        return;
    }
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    DLManagedTensorVersioned *mt = NULL;
    if (strided_refused(r, buf)) {
        pjdl_buffer_release(buf);
        return;
    }
    const DLTensor *t = export_tensor(r, "column-major [3,4]", buf, &o, &mt);
    if (t != NULL) {
        bool copied = (mt->flags & DLPACK_FLAG_BITMASK_IS_COPIED) != 0;
        if (!copied && (t->strides == NULL || t->strides[0] != 1 || t->strides[1] != 3))
            ck_fail(r, "column-major [3,4]: expected strides [1,3] (or a flagged copy), got %s",
                    t->strides ? "other strides" : "NULL (row-major)");
        verify_tensor(ctx, r, "column-major [3,4]", buf, t, ck_f32, dims, 2, data, sizeof data);
        if (r->status == CK_PASS)
            ck_note(r, "column-major [3,4] exported %s",
                    copied ? "as a copy" : "with strides [1,3]");
    }
    delete_tensor(mt);
    pjdl_buffer_release(buf);
}
