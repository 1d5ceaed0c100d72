/* Rejection: malformed DLPack tensors are refused by the import (and their
 * deleter is not called), and the plugin refuses malformed views and host
 * buffers itself. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

typedef struct bad_case {
    const char *what;
    pjdl_copy copy;
    bool any_error; /* any error is right, not only INVALID_ARGUMENT */
} bad_case;

/* Imports `t`; expects an error and no deleter call. Frees t. */
static void expect_refused(ck_ctx *ctx, ck_result *r, const bad_case *c, ck_tensor *t,
                           atomic_int *calls) {
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = c->copy;
    pjdl_buffer *b = NULL;
    pjdl_code rc = pjdl_import(&ctx->client, 1, &t->mt, &io, &b);
    if (rc == PJDL_OK) {
        ck_fail(r, "import of %s: expected INVALID_ARGUMENT, got OK", c->what);
        pjdl_buffer_release(b);
        ck_wait_count(calls, 1, 500);
        return; /* the library owns t now */
    }
    if (!c->any_error && rc != PJDL_INVALID_ARGUMENT)
        ck_fail(r, "import of %s: expected INVALID_ARGUMENT, got %s: %s", c->what,
                pjdl_code_name(rc), pjdl_last_error());
    else if (pjdl_last_error()[0] == '\0')
        ck_fail(r, "import of %s: refused without a message", c->what);
    if (atomic_load(calls) != 0)
        ck_fail(r, "import of %s failed but called the deleter", c->what);
    free(t);
}

void ck_reject_tensors(ck_ctx *ctx, ck_result *r) {
    /* Real memory of the device, so only the defect is wrong. */
    pjdl_buffer *owner = NULL;
    if (ck_make_buffer(ctx, NULL, 64, 3, NULL, &owner) != PJDL_OK) {
        ck_fail(r, "creating a buffer: %s", pjdl_last_error());
        return;
    }
    void *data = NULL;
    DLDevice dev;
    if (pjdl_buffer_data_pointer(owner, &data) != PJDL_OK ||
        pjdl_buffer_dl_device(owner, &dev) != PJDL_OK) {
        ck_fail(r, "the buffer's address: %s", pjdl_last_error());
        pjdl_buffer_release(owner);
        return;
    }
    const DLDataType f32 = {kDLFloat, 32, 1};
    const int64_t d8x8[2] = {8, 8};
    int n = 0;
#define BAD(desc, copy_mode, any, mutate)                                                          \
    do {                                                                                           \
        atomic_int calls = 0;                                                                      \
        ck_tensor *t = ck_tensor_new(data, dev, f32, d8x8, 2, NULL, &calls, NULL);                 \
        if (t == NULL)                                                                             \
            break;                                                                                 \
        DLTensor *x = &t->mt.dl_tensor;                                                            \
        (void)x;                                                                                   \
        mutate;                                                                                    \
        bad_case c = {desc, copy_mode, any};                                                       \
        expect_refused(ctx, r, &c, t, &calls);                                                     \
        n++;                                                                                       \
    } while (0)
    BAD("ndim -1", PJDL_COPY_IF_NEEDED, false, x->ndim = -1);
    BAD("ndim 1000", PJDL_COPY_IF_NEEDED, false, x->ndim = 1000);
    BAD("a NULL shape", PJDL_COPY_IF_NEEDED, false, x->shape = NULL);
    BAD("shape [-8,8]", PJDL_COPY_IF_NEEDED, false, x->shape[0] = -8);
    BAD("shape [2^62,2^62] (overflow)", PJDL_COPY_IF_NEEDED, false,
        (x->shape[0] = (int64_t)1 << 62, x->shape[1] = (int64_t)1 << 62));
    BAD("lanes 4", PJDL_COPY_IF_NEEDED, true, x->dtype.lanes = 4);
    BAD("lanes 0", PJDL_COPY_IF_NEEDED, false, x->dtype.lanes = 0);
    BAD("float of 7 bits", PJDL_COPY_IF_NEEDED, true, x->dtype.bits = 7);
    BAD("dtype code 200", PJDL_COPY_IF_NEEDED, false, x->dtype.code = 200);
    BAD("device type 9999", PJDL_COPY_IF_NEEDED, true, x->device.device_type = (DLDeviceType)9999);
    /* Host memory is one memory whatever the id (DLPack gives it id 0), so a
     * wrong id is wrong only for device memory. */
    if (!pjdl_dl_device_type_host_reachable(dev.device_type))
        BAD("device id 4096", PJDL_COPY_NEVER, true, x->device.device_id = 4096);
    BAD("NULL data with 64 elements", PJDL_COPY_IF_NEEDED, false, x->data = NULL);
    BAD("DLPack major version + 1", PJDL_COPY_IF_NEEDED, true,
        t->mt.version.major = DLPACK_MAJOR_VERSION + 1);
    BAD("byte_offset 2 for f32 (no copy allowed)", PJDL_COPY_NEVER, true, x->byte_offset = 2);
    BAD("gap strides [16,1] (no copy allowed)", PJDL_COPY_NEVER, true,
        (t->strides[0] = 16, t->strides[1] = 1, x->strides = t->strides));
    BAD("broadcast strides [0,1] (no copy allowed)", PJDL_COPY_NEVER, true,
        (t->strides[0] = 0, t->strides[1] = 1, x->strides = t->strides));
    BAD("negative strides [-8,1] (no copy allowed)", PJDL_COPY_NEVER, true,
        (t->strides[0] = -8, t->strides[1] = 1, x->strides = t->strides));
    BAD("read-only tensor (no copy allowed)", PJDL_COPY_NEVER, true,
        t->mt.flags |= DLPACK_FLAG_BITMASK_READ_ONLY);
#undef BAD
    pjdl_buffer_release(owner);
    if (r->status == CK_PASS)
        ck_note(r, "%d malformed tensors refused, no deleter called", n);
}

void ck_reject_plugin(ck_ctx *ctx, ck_result *r) {
    const PJRT_Api *api = ctx->api;
    char msg[512];
    float data[16] = {0};
    PJRT_Device *dev = pjdl_device_pjrt(ctx->dev);
    int n = 0;
    /* Host buffers with impossible dimensions. */
    const int64_t neg[2] = {4, -4};
    PJRT_Buffer *b = NULL;
    ck_step("BufferFromHostBuffer with dims [4,-4]");
    pjdl_code rc = raw_buffer_from_host(api, ctx->pc, data, PJRT_Buffer_Type_F32, neg, 2, dev, NULL,
                                        NULL, &b, msg, sizeof msg);
    n++;
    if (rc == PJDL_OK) {
        ck_fail(r, "BufferFromHostBuffer with dims [4,-4]: expected an error, got OK");
        raw_buffer_destroy(api, b);
    }
    /* Only values of the right types: the C API does not ask a plugin to
     * survive an element type outside the enum (XLA's CPU plugin aborts the
     * process on PJRT_Buffer_Type_INVALID), so that is not asked here. */
    const int64_t d4[1] = {4};
    /* Views: needs memory the plugin accepts; use a buffer of its own. */
    if (RAW_HAS(api, PJRT_Client_CreateViewOfDeviceBuffer)) {
        pjdl_buffer *owner = NULL;
        void *ptr = NULL;
        if (ck_make_buffer(ctx, NULL, 64, 4, NULL, &owner) == PJDL_OK &&
            pjdl_buffer_data_pointer(owner, &ptr) == PJDL_OK) {
            PJRT_Buffer *v = NULL;
            ck_step("CreateViewOfDeviceBuffer with dims [4,-4]");
            rc = raw_create_view(api, ctx->pc, ptr, PJRT_Buffer_Type_F32, neg, 2, NULL, dev, NULL,
                                 NULL, NULL, &v, msg, sizeof msg);
            n++;
            if (rc == PJDL_OK) {
                ck_fail(r, "CreateViewOfDeviceBuffer with dims [4,-4]: expected an error, got OK");
                raw_buffer_destroy(api, v);
            }
            ck_step("CreateViewOfDeviceBuffer of a NULL pointer");
            rc = raw_create_view(api, ctx->pc, NULL, PJRT_Buffer_Type_F32, d4, 1, NULL, dev, NULL,
                                 NULL, NULL, &v, msg, sizeof msg);
            n++;
            if (rc == PJDL_OK) {
                ck_fail(r, "CreateViewOfDeviceBuffer of a NULL pointer: expected an error, got OK");
                raw_buffer_destroy(api, v);
            }
            ck_step("CreateViewOfDeviceBuffer without device or memory");
            rc = raw_create_view(api, ctx->pc, ptr, PJRT_Buffer_Type_F32, d4, 1, NULL, NULL, NULL,
                                 NULL, NULL, &v, msg, sizeof msg);
            n++;
            if (rc == PJDL_OK) {
                ck_fail(r, "CreateViewOfDeviceBuffer without device or memory: expected an error, "
                           "got OK");
                raw_buffer_destroy(api, v);
            }
        }
        pjdl_buffer_release(owner);
    }
    if (r->status == CK_PASS)
        ck_note(r, "%d malformed requests refused by the plugin", n);
}
