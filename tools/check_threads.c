/* Concurrent use: several threads export, import and release at once, on a
 * shared buffer and on their own; every deleter runs exactly once and the
 * shared buffer's data is intact at the end. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SHARED_FLOATS 1024
#define ITERATIONS 40
#define ROUNDS 3

typedef struct worker {
    ck_ctx *ctx;
    pjdl_buffer *shared;
    void *shared_ptr;
    DLDevice shared_dl;
    const float *want;
    bool views;
    atomic_int *import_calls;
    int imports;
    int exports;
    char error[512];
} worker;

static void worker_fail(worker *w, const char *fmt, const char *a, const char *b) {
    if (w->error[0] == '\0')
        snprintf(w->error, sizeof w->error, fmt, a, b);
}

static void one_export(worker *w) {
    DLManagedTensorVersioned *mt = NULL;
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    pjdl_code rc = pjdl_buffer_export(w->shared, &o, &mt);
    if (rc != PJDL_OK) {
        worker_fail(w, "export of the shared buffer: %s: %s", pjdl_code_name(rc),
                    pjdl_last_error());
        return;
    }
    w->exports++;
    if ((char *)mt->dl_tensor.data + mt->dl_tensor.byte_offset != w->shared_ptr)
        worker_fail(w, "export of the shared buffer: %s%s", "the data pointer changed", "");
    else if (pjdl_dl_device_type_host_reachable(mt->dl_tensor.device.device_type) &&
             memcmp(w->shared_ptr, w->want, SHARED_FLOATS * sizeof(float)) != 0)
        worker_fail(w, "export of the shared buffer: %s%s", "the data changed", "");
    mt->deleter(mt);
}

static void one_import(worker *w) {
    int64_t dims[1] = {SHARED_FLOATS};
    ck_tensor *t =
        ck_tensor_new(w->shared_ptr, w->shared_dl, ck_f32, dims, 1, NULL, w->import_calls, NULL);
    if (t == NULL)
        return;
    pjdl_buffer *b = NULL;
    pjdl_code rc = ck_import_view(w->ctx, t, &b);
    if (rc != PJDL_OK) {
        worker_fail(w, "import of a view: %s: %s", pjdl_code_name(rc), pjdl_last_error());
        return;
    }
    w->imports++;
    /* Export the view too: the pin and the view's release race with other
     * threads' work. */
    DLManagedTensorVersioned *mt = NULL;
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    if (pjdl_buffer_export(b, &o, &mt) == PJDL_OK) {
        pjdl_buffer_release(b);
        mt->deleter(mt);
    } else {
        pjdl_buffer_release(b);
    }
}

static void own_buffer(worker *w, unsigned seed) {
    pjdl_buffer *b = NULL;
    float *want = NULL;
    if (ck_make_buffer(w->ctx, NULL, 64, seed, &want, &b) != PJDL_OK) {
        worker_fail(w, "creating a buffer: %s%s", pjdl_last_error(), "");
        return;
    }
    DLManagedTensorVersioned *mt = NULL;
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.mode = seed % 2 ? PJDL_EXPORT_TRANSFER : PJDL_EXPORT_SHARE;
    pjdl_code rc = pjdl_buffer_export(b, &o, &mt);
    pjdl_buffer_release(b); /* the tensor outlives its buffer */
    if (rc != PJDL_OK) {
        worker_fail(w, "export of an own buffer: %s: %s", pjdl_code_name(rc), pjdl_last_error());
    } else {
        if (pjdl_dl_device_type_host_reachable(mt->dl_tensor.device.device_type) &&
            memcmp((char *)mt->dl_tensor.data + mt->dl_tensor.byte_offset, want,
                   64 * sizeof(float)) != 0)
            worker_fail(w, "an own buffer's export after release: %s%s", "the data changed", "");
        mt->deleter(mt);
    }
    free(want);
}

static void *worker_main(void *arg) {
    worker *w = arg;
    for (unsigned i = 0; i < ITERATIONS && w->error[0] == '\0'; i++) {
        one_export(w);
        if (w->views && i % 4 == 0)
            one_import(w);
        if (i % 8 == 0)
            own_buffer(w, i + 1);
    }
    return NULL;
}

/* After the concurrent exports are all gone, a new export must still pin
 * the memory: a count that lost updates under concurrency does not. */
static void check_pins_balanced(ck_ctx *ctx, ck_result *r, pjdl_buffer *shared, const float *want) {
    char msg[512];
    DLManagedTensorVersioned *mt = NULL;
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    pjdl_code rc = pjdl_buffer_export(shared, &o, &mt);
    if (rc != PJDL_OK) {
        ck_fail(r, "export after the threads: %s: %s", pjdl_code_name(rc), pjdl_last_error());
        return;
    }
    pjdl_buffer_delete(shared);
    ck_churn churn;
    ck_churn_fill(ctx, pjdl_buffer_memory(shared), SHARED_FLOATS * sizeof(float), &churn);
    float *got = malloc(SHARED_FLOATS * sizeof *got);
    DLTensor *t = &mt->dl_tensor;
    if (got != NULL) {
        rc = ck_read_memory(ctx, (char *)t->data + t->byte_offset, t->device, t->dtype, t->shape,
                            t->ndim, t->strides, got, SHARED_FLOATS * sizeof *got, true, msg,
                            sizeof msg);
        if (rc == PJDL_OK)
            ck_expect_bytes(r, "an export made after the threads, buffer deleted", want, got,
                            SHARED_FLOATS * sizeof *got);
        else if (rc != PJDL_UNIMPLEMENTED)
            ck_fail(r, "an export made after the threads, buffer deleted: %s", msg);
        free(got);
    }
    mt->deleter(mt);
    ck_churn_release(&churn);
}

/* After round `round`: once the imports' deleters have run, the plugin's
 * external reference count of the shared buffer is zero. The library keeps
 * one pin from its first export on, and drops it when the PJRT handle is
 * taken with no export live: a count that lost an export keeps it, and the
 * decrease succeeds. */
static void expect_no_pins(ck_ctx *ctx, ck_result *r, pjdl_buffer *shared, atomic_int *import_calls,
                           int imports, int round) {
    PJRT_Buffer *pb = NULL;
    char msg[256];
    if (pjdl_buffer_pjrt(shared, &pb) != PJDL_OK) {
        ck_fail(r, "pjdl_buffer_pjrt after round %d: %s", round + 1, pjdl_last_error());
        return;
    }
    if (ck_wait_count(import_calls, imports, 1000) == imports &&
        raw_buffer_decrease(ctx->api, pb, msg, sizeof msg) == PJDL_OK)
        ck_fail(r,
                "after round %d: expected the external reference count to be zero "
                "(decrease refused), but a decrease succeeded",
                round + 1);
}

void ck_threads(ck_ctx *ctx, ck_result *r) {
    int nthreads = ctx->args->threads > 0 ? ctx->args->threads : 4;
    float *want = NULL;
    pjdl_buffer *shared = NULL;
    if (ck_make_buffer(ctx, NULL, SHARED_FLOATS, 31, &want, &shared) != PJDL_OK) {
        ck_fail(r, "creating the shared buffer: %s", pjdl_last_error());
        return;
    }
    void *ptr = NULL;
    DLDevice dl;
    if (pjdl_buffer_data_pointer(shared, &ptr) != PJDL_OK ||
        pjdl_buffer_dl_device(shared, &dl) != PJDL_OK) {
        ck_fail(r, "the shared buffer's address: %s", pjdl_last_error());
        pjdl_buffer_release(shared);
        free(want);
        return;
    }
    atomic_int import_calls = 0;
    /* Views are optional: probe once before the threads rely on them. */
    worker probe = {ctx, shared, ptr, dl, want, true, &import_calls, 0, 0, ""};
    one_import(&probe);
    bool views = probe.error[0] == '\0';
    if (!views && strstr(probe.error, "UNIMPLEMENTED") == NULL)
        ck_fail(r, "a view import before the threads started: %s", probe.error);
    else if (!views)
        ck_note(r, "no view imports (%s)", probe.error);
    /* Rounds, each followed by a look at the pin count: a count that loses
     * updates may end a round balanced by chance, but rarely every one. */
    static worker w[64];
    pthread_t tid[64];
    int started = 0, imports = probe.imports, exports = 0;
    for (int round = 0; round < ROUNDS && r->status != CK_FAIL; round++) {
        started = 0;
        for (int i = 0; i < nthreads; i++) {
            w[i] = (worker){ctx, shared, ptr, dl, want, views, &import_calls, 0, 0, ""};
            if (pthread_create(&tid[i], NULL, worker_main, &w[i]) != 0)
                break;
            started++;
        }
        for (int i = 0; i < started; i++) {
            pthread_join(tid[i], NULL);
            imports += w[i].imports;
            exports += w[i].exports;
            if (w[i].error[0])
                ck_fail(r, "thread %d: %s", i, w[i].error);
        }
        expect_no_pins(ctx, r, shared, &import_calls, imports, round);
    }
    int calls = ck_wait_count(&import_calls, imports, 1000);
    if (calls != imports)
        ck_fail(r, "expected %d deleter calls for %d imports, got %d", imports, imports, calls);
    float *back = malloc(SHARED_FLOATS * sizeof *back);
    if (back != NULL) {
        pjdl_code rc = pjdl_buffer_to_host(shared, back, SHARED_FLOATS * sizeof *back);
        if (rc != PJDL_OK)
            ck_fail(r, "the shared buffer afterwards: %s: %s", pjdl_code_name(rc),
                    pjdl_last_error());
        else
            ck_expect_bytes(r, "the shared buffer afterwards", want, back,
                            SHARED_FLOATS * sizeof *back);
        free(back);
    }
    if (r->status == CK_PASS)
        check_pins_balanced(ctx, r, shared, want);
    pjdl_buffer_release(shared);
    free(want);
    if (r->status == CK_PASS)
        ck_note(r, "%d threads: %d exports, %d view imports, every deleter once", started, exports,
                imports);
}
