/* The on-delete callback of views: exactly once, and never while an external
 * reference still pins the memory. Counted on views the check creates
 * itself with PJRT_Client_CreateViewOfDeviceBuffer, then through the
 * library's import. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define VIEW_FLOATS 256

static void count_call(void *ptr, void *arg) {
    (void)ptr;
    atomic_fetch_add((atomic_int *)arg, 1);
}

typedef struct view_case {
    ck_ctx *ctx;
    ck_result *r;
    void *ptr;
    PJRT_Memory *memory;
} view_case;

/* A view of the case's memory whose on-delete callback counts in *calls
 * (NULL: no callback of the check's). */
static pjdl_code create_view(view_case *vc, atomic_int *calls, PJRT_Buffer **out, char *msg,
                             size_t n) {
    int64_t dims[1] = {VIEW_FLOATS};
    PJRT_Client_CreateViewOfDeviceBuffer_Args a = ck_f32_view_args(vc->ctx, vc->ptr, dims, 1);
    a.memory = vc->memory;
    a.on_delete_callback = calls ? count_call : NULL;
    a.on_delete_callback_arg = calls;
    pjdl_code rc = raw_create_view(vc->ctx->api, &a, msg, n);
    *out = a.buffer;
    return rc;
}

static PJRT_Buffer *make_view(view_case *vc, atomic_int *calls, const char *what) {
    PJRT_Buffer *v = NULL;
    char msg[512];
    pjdl_code rc = create_view(vc, calls, &v, msg, sizeof msg);
    if (rc != PJDL_OK) {
        ck_fail(vc->r, "%s: CreateViewOfDeviceBuffer: %s: %s", what, pjdl_code_name(rc), msg);
        return NULL;
    }
    return v;
}

static void expect_calls(ck_result *r, const char *what, atomic_int *calls, int want) {
    int got = ck_wait_count(calls, want, want ? 1000 : 0);
    if (got != want)
        ck_fail(r, "%s: expected on_delete_callback to have run %d time%s, got %d", what, want,
                want == 1 ? "" : "s", got);
}

/* Destroy without pins: exactly one call. */
static void case_destroy(view_case *vc) {
    atomic_int calls = 0;
    PJRT_Buffer *v = make_view(vc, &calls, "view, destroy");
    if (v == NULL)
        return;
    expect_calls(vc->r, "view alive", &calls, 0);
    raw_buffer_destroy(vc->ctx->api, v);
    expect_calls(vc->r, "view destroyed", &calls, 1);
}

/* Pinned, deleted: nothing until the pin goes; then exactly once. */
static void case_pinned(view_case *vc) {
    const PJRT_Api *api = vc->ctx->api;
    char msg[512];
    atomic_int calls = 0;
    PJRT_Buffer *v = make_view(vc, &calls, "view, pin, delete, unpin");
    if (v == NULL)
        return;
    pjdl_code rc = raw_buffer_increase(api, v, msg, sizeof msg);
    if (rc != PJDL_OK) {
        ck_fail(vc->r, "IncreaseExternalReferenceCount on a view: %s: %s", pjdl_code_name(rc), msg);
        raw_buffer_destroy(api, v);
        expect_calls(vc->r, "view destroyed", &calls, 1);
        return;
    }
    raw_buffer_delete(api, v, msg, sizeof msg);
    expect_calls(vc->r, "view deleted while pinned", &calls, 0);
    rc = raw_buffer_decrease(api, v, msg, sizeof msg);
    if (rc != PJDL_OK)
        ck_fail(vc->r, "DecreaseExternalReferenceCount on a deleted view: %s: %s",
                pjdl_code_name(rc), msg);
    expect_calls(vc->r, "view deleted, then unpinned", &calls, 1);
    raw_buffer_destroy(api, v);
    expect_calls(vc->r, "view deleted, unpinned, destroyed", &calls, 1);
}

/* Deleted, then destroyed, no pins: at most one call after the delete,
 * exactly one after the destroy. */
static void case_delete_destroy(view_case *vc) {
    char msg[512];
    atomic_int calls = 0;
    PJRT_Buffer *v = make_view(vc, &calls, "view, delete, destroy");
    if (v == NULL)
        return;
    raw_buffer_delete(vc->ctx->api, v, msg, sizeof msg);
    int after_delete = ck_wait_count(&calls, 1, 50);
    if (after_delete > 1)
        ck_fail(vc->r, "view deleted: expected at most 1 on_delete_callback call, got %d",
                after_delete);
    raw_buffer_destroy(vc->ctx->api, v);
    expect_calls(vc->r, "view deleted, destroyed", &calls, 1);
}

/* The library's import: the producer's deleter exactly once. */
static void case_import(view_case *vc, DLDevice dl) {
    atomic_int calls = 0;
    int64_t dims[1] = {VIEW_FLOATS};
    ck_tensor *t = ck_tensor_new(vc->ptr, dl, ck_f32, dims, 1, NULL, &calls, NULL);
    if (t == NULL)
        return;
    pjdl_buffer *b = NULL;
    pjdl_code rc = ck_import_view(vc->ctx, t, &b);
    if (rc == PJDL_UNIMPLEMENTED) {
        ck_note(vc->r, "the library's import made no view (%s)", pjdl_last_error());
        return;
    }
    if (rc != PJDL_OK) {
        ck_fail(vc->r, "import as a view: %s: %s", pjdl_code_name(rc), pjdl_last_error());
        return;
    }
    expect_calls(vc->r, "imported tensor, buffer alive", &calls, 0);
    DLManagedTensorVersioned *mt = NULL;
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    rc = pjdl_buffer_export(b, &o, &mt);
    pjdl_buffer_release(b);
    if (rc == PJDL_OK) {
        /* Re-exported: the view is pinned by the export. */
        expect_calls(vc->r, "imported, re-exported, buffer released", &calls, 0);
        mt->deleter(mt);
    }
    expect_calls(vc->r, "imported tensor after release", &calls, 1);
}

void ck_on_delete(ck_ctx *ctx, ck_result *r) {
    if (!RAW_HAS(ctx->api, PJRT_Client_CreateViewOfDeviceBuffer)) {
        ck_unsupported(r, "the plugin has no CreateViewOfDeviceBuffer");
        return;
    }
    /* Views of memory the plugin itself allocated, so that any plugin
     * accepts the address. */
    float *want = NULL;
    pjdl_buffer *owner = NULL;
    pjdl_code rc = ck_make_buffer(ctx, NULL, VIEW_FLOATS, 21, &want, &owner);
    free(want);
    if (rc != PJDL_OK) {
        ck_fail(r, "creating a buffer to view: %s: %s", pjdl_code_name(rc), pjdl_last_error());
        return;
    }
    view_case vc = {ctx, r, NULL, NULL};
    DLDevice dl;
    if ((rc = pjdl_buffer_data_pointer(owner, &vc.ptr)) != PJDL_OK ||
        (rc = pjdl_buffer_dl_device(owner, &dl)) != PJDL_OK) {
        ck_fail(r, "the buffer's address: %s: %s", pjdl_code_name(rc), pjdl_last_error());
        pjdl_buffer_release(owner);
        return;
    }
    pjdl_memory *m = pjdl_buffer_memory(owner);
    vc.memory = m ? pjdl_memory_pjrt(m) : NULL;
    /* Probe: a plugin that answers UNIMPLEMENTED has no views at all. */
    PJRT_Buffer *probe = NULL;
    char msg[512];
    rc = create_view(&vc, NULL, &probe, msg, sizeof msg);
    if (rc == PJDL_UNIMPLEMENTED) {
        ck_unsupported(r, "CreateViewOfDeviceBuffer is UNIMPLEMENTED: %s", msg);
        pjdl_buffer_release(owner);
        return;
    }
    raw_buffer_destroy(ctx->api, probe);
    case_destroy(&vc);
    case_pinned(&vc);
    case_delete_destroy(&vc);
    /* The library trusts the callback count; with a plugin that gets it
     * wrong, its deleter would run twice (a double free), so only then. */
    if (r->failures == 0)
        case_import(&vc, dl);
    else
        ck_note(r, "library import not tried: the plugin's callback count is wrong");
    pjdl_buffer_release(owner);
    if (r->status == CK_PASS)
        ck_note(r, "destroy; pin-delete-unpin-destroy; delete-destroy; library import: one call "
                   "each, none while pinned");
}
