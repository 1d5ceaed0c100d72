/* Pinning: memory held by an external reference (or an exported tensor)
 * stays valid after the buffer is deleted; transfer mode. The memory is read
 * back after other allocations had a chance to reuse it; a direct read runs
 * in a child process so that reading freed memory fails the check instead of
 * crashing the command. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define PIN_FLOATS 1024

static pjdl_memory *pin_memory(ck_ctx *ctx) {
    pjdl_memory *m = ck_host_memory(ctx);
    return m != NULL ? m : pjdl_device_default_memory(ctx->dev);
}

/* Reads `data` (PIN_FLOATS f32 in `mem`) and compares with `want`; false
 * (recorded) if it differs or cannot be read. `live`: the buffer surely
 * lives, so the read is done here (a crash in it is this check's FAIL,
 * named by the step); else in a child process (see the top). */
static bool expect_intact(ck_ctx *ctx, ck_result *r, const char *what, bool live, void *data,
                          DLDevice device, const float *want) {
    float *got = malloc(PIN_FLOATS * sizeof *got);
    if (got == NULL)
        return false;
    int64_t dims[1] = {PIN_FLOATS};
    char msg[512];
    ck_step("reading %s", what);
    pjdl_code rc = ck_read_memory(ctx, data, device, ck_f32, dims, 1, NULL, got,
                                  PIN_FLOATS * sizeof *got, !live, msg, sizeof msg);
    bool ok = rc == PJDL_OK && ck_expect_bytes(r, what, want, got, PIN_FLOATS * sizeof *got);
    if (rc == PJDL_UNIMPLEMENTED)
        ck_unsupported(r, "%s: memory not readable: %s", what, msg);
    else if (rc != PJDL_OK)
        ck_fail(r, "%s: expected the memory to stay valid, but %s", what, msg);
    free(got);
    return ok;
}

static void pin_raw_in(ck_ctx *ctx, ck_result *r, pjdl_memory *mem) {
    const PJRT_Api *api = ctx->api;
    DLDevice dl;
    if (pjdl_device_dl(ctx->dev, mem, &dl) != PJDL_OK) {
        ck_unsupported(r, "the memory has no DLDevice: %s", pjdl_last_error());
        return;
    }
    float want[PIN_FLOATS];
    for (int i = 0; i < PIN_FLOATS; i++)
        want[i] = (float)i * 3.0f + 0.5f;
    int64_t dims[1] = {PIN_FLOATS};
    PJRT_Client_BufferFromHostBuffer_Args h = ck_f32_host_args(ctx, want, dims, 1);
    h.memory = mem ? pjdl_memory_pjrt(mem) : NULL;
    if (h.memory != NULL)
        h.device = NULL; /* the memory says where */
    char msg[512];
    pjdl_code rc = raw_buffer_from_host(api, &h, msg, sizeof msg);
    PJRT_Buffer *pb = h.buffer;
    if (rc != PJDL_OK) {
        ck_fail(r, "PJRT_Client_BufferFromHostBuffer: %s: %s", pjdl_code_name(rc), msg);
        return;
    }
    void *ptr = NULL;
    if ((rc = raw_buffer_await(api, pb, msg, sizeof msg)) != PJDL_OK ||
        (rc = raw_buffer_pointer(api, pb, &ptr, msg, sizeof msg)) != PJDL_OK) {
        ck_fail(r, "preparing the buffer: %s: %s", pjdl_code_name(rc), msg);
        raw_buffer_destroy(api, pb);
        return;
    }
    /* The same read while the buffer surely lives: a failed read after the
     * delete is blamed on the pin only if this one worked. */
    if (!expect_intact(ctx, r, "the memory of a live buffer", true, ptr, dl, want)) {
        raw_buffer_destroy(api, pb);
        return;
    }
    rc = raw_buffer_increase(api, pb, msg, sizeof msg);
    if (rc != PJDL_OK) {
        if (rc == PJDL_UNIMPLEMENTED)
            ck_unsupported(r, "no external references: %s", msg);
        else
            ck_fail(r, "IncreaseExternalReferenceCount: expected OK, got %s: %s",
                    pjdl_code_name(rc), msg);
        raw_buffer_destroy(api, pb);
        return;
    }
    if ((rc = raw_buffer_delete(api, pb, msg, sizeof msg)) != PJDL_OK)
        ck_fail(r, "PJRT_Buffer_Delete while pinned: expected OK, got %s: %s", pjdl_code_name(rc),
                msg);
    ck_churn churn;
    ck_churn_fill(ctx, mem, PIN_FLOATS * sizeof(float), &churn);
    char what[128];
    snprintf(what, sizeof what, "pinned %s memory after PJRT_Buffer_Delete",
             mem ? pjdl_memory_kind(mem) : "default");
    expect_intact(ctx, r, what, false, ptr, dl, want);
    rc = raw_buffer_decrease(api, pb, msg, sizeof msg);
    if (rc != PJDL_OK)
        ck_fail(r, "DecreaseExternalReferenceCount after delete: expected OK, got %s: %s",
                pjdl_code_name(rc), msg);
    rc = raw_buffer_decrease(api, pb, msg, sizeof msg);
    if (rc == PJDL_OK)
        ck_fail(r, "DecreaseExternalReferenceCount below zero: expected an error, got OK "
                   "(the count is not tracked)");
    raw_buffer_destroy(api, pb);
    ck_churn_release(&churn);
    if (r->status == CK_PASS)
        ck_note(r, "pinned %s memory survived delete and reuse; decrease at zero refused",
                mem ? pjdl_memory_kind(mem) : "default");
}

void ck_pin_raw(ck_ctx *ctx, ck_result *r) {
    pjdl_memory *host = ck_host_memory(ctx);
    pjdl_memory *def = pjdl_device_default_memory(ctx->dev);
    if (host != NULL)
        pin_raw_in(ctx, r, host);
    if (host == NULL || (def != NULL && def != host))
        pin_raw_in(ctx, r, def);
}

/* A fresh buffer of PIN_FLOATS floats and its export. */
typedef struct exported {
    pjdl_memory *mem; /* where the buffer lives */
    float *want;      /* its content */
    pjdl_buffer *buf;
    DLManagedTensorVersioned *mt;
} exported;

/* Creates the buffer (content from `seed`) and exports it with `mode`; on
 * failure records it and returns false, with nothing left to release. */
static bool export_fresh(ck_ctx *ctx, ck_result *r, const char *what, pjdl_export_mode mode,
                         unsigned seed, exported *e) {
    e->mem = pin_memory(ctx);
    pjdl_code rc = ck_make_buffer(ctx, e->mem, PIN_FLOATS, seed, &e->want, &e->buf);
    if (rc != PJDL_OK) {
        ck_fail(r, "creating a buffer: %s: %s", pjdl_code_name(rc), pjdl_last_error());
        return false;
    }
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.mode = mode;
    rc = pjdl_buffer_export(e->buf, &o, &e->mt);
    if (rc != PJDL_OK) {
        ck_fail(r, "%s: expected OK, got %s: %s", what, pjdl_code_name(rc), pjdl_last_error());
        pjdl_buffer_release(e->buf);
        free(e->want);
        return false;
    }
    return true;
}

/* With the buffer released: lets other allocations reuse freed memory,
 * expects the tensor's data intact, then deletes the tensor. */
static void expect_export_intact(ck_ctx *ctx, ck_result *r, const char *what, exported *e) {
    ck_churn churn;
    ck_churn_fill(ctx, e->mem, PIN_FLOATS * sizeof(float), &churn);
    DLTensor *t = &e->mt->dl_tensor;
    expect_intact(ctx, r, what, false, (char *)t->data + t->byte_offset, t->device, e->want);
    e->mt->deleter(e->mt);
    ck_churn_release(&churn);
    free(e->want);
}

/* The exported tensor read while its buffer surely lives (see pin_raw_in);
 * false (recorded, everything released) if that fails. */
static bool export_readable(ck_ctx *ctx, ck_result *r, exported *e) {
    DLTensor *t = &e->mt->dl_tensor;
    if (expect_intact(ctx, r, "an exported tensor of a live buffer", true,
                      (char *)t->data + t->byte_offset, t->device, e->want))
        return true;
    e->mt->deleter(e->mt);
    pjdl_buffer_release(e->buf);
    free(e->want);
    return false;
}

void ck_pin_export(ck_ctx *ctx, ck_result *r) {
    exported e;
    if (!export_fresh(ctx, r, "export", PJDL_EXPORT_SHARE, 9, &e) || !export_readable(ctx, r, &e))
        return;
    pjdl_code rc = pjdl_buffer_delete(e.buf);
    if (rc != PJDL_OK)
        ck_fail(r, "pjdl_buffer_delete with a live export: expected OK, got %s: %s",
                pjdl_code_name(rc), pjdl_last_error());
    if (!pjdl_buffer_is_deleted(e.buf))
        ck_fail(r, "expected the buffer to report deleted after pjdl_buffer_delete");
    pjdl_buffer_release(e.buf);
    expect_export_intact(ctx, r, "exported tensor after its buffer was deleted and released", &e);
}

void ck_transfer_mode(ck_ctx *ctx, ck_result *r) {
    exported e;
    if (!export_fresh(ctx, r, "transfer export", PJDL_EXPORT_TRANSFER, 11, &e))
        return;
    pjdl_buffer *buf = e.buf;
    if (!pjdl_buffer_is_deleted(buf))
        ck_fail(r, "after a transfer export: expected the buffer to report deleted");
    PJRT_Buffer *pb = NULL;
    pjdl_code rc = pjdl_buffer_pjrt(buf, &pb);
    if (rc != PJDL_FAILED_PRECONDITION)
        ck_fail(r, "pjdl_buffer_pjrt after a transfer export: expected FAILED_PRECONDITION, got %s",
                pjdl_code_name(rc));
    float one[PIN_FLOATS];
    rc = pjdl_buffer_to_host(buf, one, sizeof one);
    if (rc != PJDL_FAILED_PRECONDITION)
        ck_fail(r,
                "pjdl_buffer_to_host after a transfer export: expected FAILED_PRECONDITION, "
                "got %s",
                pjdl_code_name(rc));
    DLManagedTensorVersioned *again = NULL;
    pjdl_export_options share = PJDL_EXPORT_OPTIONS_INIT;
    rc = pjdl_buffer_export(buf, &share, &again);
    if (rc != PJDL_FAILED_PRECONDITION) {
        ck_fail(r, "a second export after a transfer: expected FAILED_PRECONDITION, got %s",
                pjdl_code_name(rc));
        if (rc == PJDL_OK)
            again->deleter(again);
    }
    pjdl_buffer_release(buf);
    expect_export_intact(ctx, r, "transferred tensor after its buffer was released", &e);
}
