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

/* Whether the tensor of the malformed cases, well formed, imports with
 * `copy` (the result is released): a malformed one refused with that mode
 * says something only then. */
static bool well_formed_imports(ck_ctx *ctx, void *data, DLDevice dev, pjdl_copy copy) {
    const int64_t d8x8[2] = {8, 8};
    /* No counter: the deleter may run after this returns. */
    ck_tensor *t = ck_tensor_new(data, dev, ck_f32, d8x8, 2, NULL, NULL, NULL);
    if (t == NULL)
        return false;
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = copy;
    pjdl_buffer *b = NULL;
    ck_step("importing a well-formed tensor (copy %s)",
            copy == PJDL_COPY_NEVER ? "never" : "if needed");
    if (pjdl_import(&ctx->client, 1, &t->mt, &io, &b) != PJDL_OK) {
        free(t); /* refused: still ours */
        return false;
    }
    pjdl_buffer_release(b);
    return true;
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
    const int64_t d8x8[2] = {8, 8};
    bool works[2] = {well_formed_imports(ctx, data, dev, PJDL_COPY_IF_NEEDED),
                     well_formed_imports(ctx, data, dev, PJDL_COPY_NEVER)};
    int n = 0, not_asked = 0;
#define BAD(desc, copy_mode, any, mutate)                                                          \
    do {                                                                                           \
        if (!works[(copy_mode) == PJDL_COPY_NEVER]) {                                              \
            not_asked++;                                                                           \
            break;                                                                                 \
        }                                                                                          \
        atomic_int calls = 0;                                                                      \
        ck_tensor *t = ck_tensor_new(data, dev, ck_f32, d8x8, 2, NULL, &calls, NULL);              \
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
    if (not_asked > 0)
        ck_note(r,
                "%d malformed tensors not asked: the same tensor, well formed, does not import "
                "%s either",
                not_asked, works[0] ? "without a copy" : "at all");
    if (n == 0)
        ck_unsupported(r, "no well-formed import works here, so no refusal can be judged");
    else if (r->status == CK_PASS)
        ck_note(r, "%d malformed tensors refused, no deleter called", n);
}

/* A request the plugin must refuse: `rc` and the buffer it made anyway. */
static void expect_plugin_refused(ck_ctx *ctx, ck_result *r, const char *what, pjdl_code rc,
                                  PJRT_Buffer *b) {
    if (rc == PJDL_OK) {
        ck_fail(r, "%s: expected an error, got OK", what);
        raw_buffer_destroy(ctx->api, b);
    }
}

/* The well-formed call `what` that comes before malformed ones: true when
 * it returned (its buffer is destroyed); otherwise the malformed calls are
 * not asked, and the result says so: `note` when a plugin may refuse the
 * call, a failure when it must accept it (`note` NULL). */
static bool well_formed_returned(ck_ctx *ctx, ck_result *r, const char *what, pjdl_code rc,
                                 const char *msg, PJRT_Buffer *buffer, const char *note) {
    if (rc == PJDL_OK) {
        raw_buffer_destroy(ctx->api, buffer);
        return true;
    }
    if (note == NULL)
        ck_fail(r, "%s: expected OK, got %s: %s", what, pjdl_code_name(rc), msg);
    else
        ck_note(r, "%s (%s: %s)", note, pjdl_code_name(rc), msg);
    return false;
}

/* Malformed views of memory the plugin accepts (`ptr`, one of its own
 * buffers'), after a well-formed view of the same memory returned (a crash
 * or an error on the malformed ones says nothing otherwise); returns how
 * many were asked. */
static int reject_views(ck_ctx *ctx, ck_result *r, void *ptr) {
    static const int64_t neg[2] = {4, -4}, d4[1] = {4};
    const struct {
        const char *what;
        bool null_ptr, no_device;
        const int64_t *dims;
        size_t ndim;
    } cases[] = {
        {"CreateViewOfDeviceBuffer with dims [4,-4]", false, false, neg, 2},
        {"CreateViewOfDeviceBuffer of a NULL pointer", true, false, d4, 1},
        {"CreateViewOfDeviceBuffer without device or memory", false, true, d4, 1},
    };
    char msg[512];
    PJRT_Client_CreateViewOfDeviceBuffer_Args good = ck_f32_view_args(ctx, ptr, d4, 1);
    const char *good_what = "CreateViewOfDeviceBuffer with dims [4]";
    ck_step("%s (well formed)", good_what);
    pjdl_code rc = raw_create_view(ctx->api, &good, msg, sizeof msg);
    if (!well_formed_returned(ctx, r, good_what, rc, msg, good.buffer,
                              "malformed views not asked: a well-formed view fails"))
        return 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        PJRT_Client_CreateViewOfDeviceBuffer_Args a =
            ck_f32_view_args(ctx, cases[i].null_ptr ? NULL : ptr, cases[i].dims, cases[i].ndim);
        if (cases[i].no_device)
            a.device = NULL;
        ck_malformed("%s", cases[i].what);
        rc = raw_create_view(ctx->api, &a, msg, sizeof msg);
        expect_plugin_refused(ctx, r, cases[i].what, rc, a.buffer);
    }
    return (int)(sizeof cases / sizeof cases[0]);
}

/* A host buffer with impossible dimensions, after the same call with
 * possible ones returned. Returns how many were asked. */
static int reject_host_buffer(ck_ctx *ctx, ck_result *r) {
    char msg[512];
    float data[16] = {0};
    const int64_t good_dims[2] = {4, 4}, neg[2] = {4, -4};
    PJRT_Client_BufferFromHostBuffer_Args good = ck_f32_host_args(ctx, data, good_dims, 2);
    const char *good_what = "BufferFromHostBuffer with dims [4,4]";
    ck_step("%s (well formed)", good_what);
    pjdl_code rc = raw_buffer_from_host(ctx->api, &good, msg, sizeof msg);
    if (!well_formed_returned(ctx, r, good_what, rc, msg, good.buffer, NULL))
        return 0;
    const char *what = "BufferFromHostBuffer with dims [4,-4]";
    PJRT_Client_BufferFromHostBuffer_Args h = ck_f32_host_args(ctx, data, neg, 2);
    ck_malformed("%s", what);
    rc = raw_buffer_from_host(ctx->api, &h, msg, sizeof msg);
    expect_plugin_refused(ctx, r, what, rc, h.buffer);
    return 1;
}

void ck_reject_plugin(ck_ctx *ctx, ck_result *r) {
    int n = reject_host_buffer(ctx, r);
    /* Only values of the right types: the C API does not ask a plugin to
     * survive an element type outside the enum (XLA's CPU plugin aborts the
     * process on PJRT_Buffer_Type_INVALID), so that is not asked here. */
    /* Views: needs memory the plugin accepts; use a buffer of its own. */
    if (RAW_HAS(ctx->api, PJRT_Client_CreateViewOfDeviceBuffer)) {
        pjdl_buffer *owner = NULL;
        void *ptr = NULL;
        ck_step("creating a buffer to view");
        if (ck_make_buffer(ctx, NULL, 64, 4, NULL, &owner) == PJDL_OK &&
            pjdl_buffer_data_pointer(owner, &ptr) == PJDL_OK)
            n += reject_views(ctx, r, ptr);
        pjdl_buffer_release(owner);
    }
    if (r->status == CK_PASS)
        ck_note(r, "%d malformed requests refused by the plugin", n);
}
