/* Readiness: an export without a stream returns only when the data is in
 * memory; with a stream, the consumer's stream is made to wait, and a stream
 * on a platform without streams is an error. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pjrt_ref_ext.h"

void ck_ready_no_stream(ck_ctx *ctx, ck_result *r) {
    /* The data can only be observed directly where the host can read it. */
    pjdl_memory *mem = ck_host_memory(ctx);
    const size_t n = 256 * 1024; /* 1 MiB of f32 */
    unsigned char *want = malloc(n * 4), *got = malloc(n * 4);
    if (want == NULL || got == NULL) {
        free(want);
        free(got);
        return;
    }
    for (unsigned round = 0; round < 3 && r->status != CK_FAIL; round++) {
        ck_pattern(want, n * 4, 40 + round, PJRT_Buffer_Type_U8);
        int64_t dims[1] = {(int64_t)n};
        pjdl_buffer *buf = NULL;
        pjdl_code rc = pjdl_buffer_from_host(ctx->client, want, PJRT_Buffer_Type_U32, dims, 1, NULL,
                                             mem, &buf);
        if (rc != PJDL_OK) {
            ck_fail(r, "creating a buffer: %s: %s", pjdl_code_name(rc), pjdl_last_error());
            break;
        }
        /* No await: the export itself must wait. */
        pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
        DLManagedTensorVersioned *mt = NULL;
        rc = pjdl_buffer_export(buf, &o, &mt);
        if (rc != PJDL_OK) {
            ck_fail(r, "export without a stream: %s: %s", pjdl_code_name(rc), pjdl_last_error());
            pjdl_buffer_release(buf);
            break;
        }
        DLTensor *t = &mt->dl_tensor;
        if (mem != NULL && pjdl_dl_device_type_host_reachable(t->device.device_type)) {
            memcpy(got, (char *)t->data + t->byte_offset, n * 4);
            ck_expect_bytes(r, "data right after export returned", want, got, n * 4);
        }
        /* The plugin's own view: the ready event must say ready now. */
        PJRT_Buffer *pb = NULL;
        bool ready = false;
        char msg[256];
        if (pjdl_buffer_pjrt(buf, &pb) == PJDL_OK &&
            raw_buffer_is_ready(ctx->api, pb, &ready, msg, sizeof msg) == PJDL_OK && !ready)
            ck_fail(r, "after export without a stream: expected the ready event to be ready, got "
                       "not ready");
        mt->deleter(mt);
        pjdl_buffer_release(buf);
    }
    free(want);
    free(got);
    if (mem == NULL)
        ck_unsupported(r, "no host-readable memory: data arrival not observable, only the "
                          "ready event was checked");
    else if (r->status == CK_PASS)
        ck_note(r, "3 exports of 1 MiB in %s memory: data present on return",
                pjdl_memory_kind(mem));
}

static void stream_on_streamless(ck_ctx *ctx, ck_result *r, const char *why) {
    pjdl_buffer *buf = NULL;
    if (ck_make_buffer(ctx, NULL, 16, 5, NULL, &buf) != PJDL_OK) {
        ck_fail(r, "creating a buffer: %s", pjdl_last_error());
        return;
    }
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.has_stream = true;
    o.stream = 1;
    DLManagedTensorVersioned *mt = NULL;
    pjdl_code rc = pjdl_buffer_export(buf, &o, &mt);
    if (rc == PJDL_OK) {
        ck_fail(r, "export with stream 1 on a platform without streams: expected an error, got OK");
        mt->deleter(mt);
    } else {
        ck_note(r, "no streams here (%s); a stream is refused with %s", why, pjdl_code_name(rc));
    }
    pjdl_buffer_release(buf);
}

/* The reference plugin's test extension, if this is (a wrapper of) it: it
 * lets the check act as a consumer framework with a stream of its own. */
static const PJRT_Ref_Extension *ref_extension(const PJRT_Api *api) {
    const PJRT_Extension_Base *e = pjdl_api_extensions(api);
    for (int i = 0; e != NULL && i < 64; i++, e = e->next)
        if (e->type == PJRT_REF_EXTENSION_TYPE && e->struct_size >= PJRT_Ref_Extension_STRUCT_SIZE)
            return (const PJRT_Ref_Extension *)e;
    return NULL;
}

typedef struct consumer_read {
    const void *data;
    const void *want;
    size_t size;
    atomic_int ran;
    atomic_int matched;
} consumer_read;

/* Runs on the consumer's stream: what a kernel reading the tensor sees. */
static void consumer_reads(PJRT_Error_Code status, const char *message, void *arg) {
    (void)message;
    consumer_read *c = arg;
    atomic_store(&c->matched,
                 status == PJRT_Error_Code_OK && memcmp(c->data, c->want, c->size) == 0);
    atomic_store(&c->ran, 1);
}

/* Exports a buffer that is still in flight onto a consumer stream, queues a
 * read on that stream, and checks the read saw the data. */
static void consumer_stream_order(ck_ctx *ctx, ck_result *r, const PJRT_Ref_Extension *ext,
                                  pjdl_memory *mem) {
    const PJRT_Api *api = ctx->api;
    char msg[256];
    PJRT_Ref_CreateStream_Args cs = {0};
    cs.struct_size = PJRT_Ref_CreateStream_Args_STRUCT_SIZE;
    cs.device = pjdl_device_pjrt(ctx->dev);
    pjdl_code rc = raw_take_error(api, ext->create_stream(&cs), msg, sizeof msg);
    if (rc != PJDL_OK) {
        ck_note(r, "no consumer stream (%s)", msg);
        return;
    }
    const size_t size = 1 << 20;
    unsigned char *want = malloc(size);
    if (want != NULL) {
        ck_pattern(want, size, 77, PJRT_Buffer_Type_U8);
        int64_t dims[1] = {(int64_t)size};
        pjdl_buffer *buf = NULL;
        rc =
            pjdl_buffer_from_host(ctx->client, want, PJRT_Buffer_Type_U8, dims, 1, NULL, mem, &buf);
        pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
        o.has_stream = true;
        o.stream = cs.stream;
        DLManagedTensorVersioned *mt = NULL;
        if (rc == PJDL_OK)
            rc = pjdl_buffer_export(buf, &o, &mt);
        if (rc != PJDL_OK) {
            ck_fail(r, "export onto a consumer stream: %s: %s", pjdl_code_name(rc),
                    pjdl_last_error());
        } else {
            consumer_read c = {(char *)mt->dl_tensor.data + mt->dl_tensor.byte_offset, want, size,
                               0, 0};
            PJRT_Ref_EnqueueHostCallback_Args eq = {0};
            eq.struct_size = PJRT_Ref_EnqueueHostCallback_Args_STRUCT_SIZE;
            eq.stream = cs.stream;
            eq.callback = consumer_reads;
            eq.user_arg = &c;
            PJRT_Ref_SynchronizeStream_Args sy = {0};
            sy.struct_size = PJRT_Ref_SynchronizeStream_Args_STRUCT_SIZE;
            sy.stream = cs.stream;
            if (raw_take_error(api, ext->enqueue_host_callback(&eq), msg, sizeof msg) != PJDL_OK)
                ck_note(r, "cannot queue work on the consumer stream (%s)", msg);
            else if (raw_take_error(api, ext->synchronize_stream(&sy), msg, sizeof msg) != PJDL_OK)
                ck_fail(r, "consumer stream after the export: %s", msg);
            else if (!atomic_load(&c.ran))
                ck_fail(r, "work queued on the consumer stream did not run");
            else if (!atomic_load(&c.matched))
                ck_fail(r, "consumer stream: work queued after the export read the tensor before "
                           "its data arrived (the stream was not made to wait)");
            else
                ck_note(r, "work on a consumer stream saw the data");
            mt->deleter(mt);
        }
        pjdl_buffer_release(buf);
        free(want);
    }
    PJRT_Ref_DestroyStream_Args ds = {0};
    ds.struct_size = PJRT_Ref_DestroyStream_Args_STRUCT_SIZE;
    ds.stream = cs.stream;
    raw_take_error(api, ext->destroy_stream(&ds), NULL, 0);
}

void ck_ready_stream(ck_ctx *ctx, ck_result *r) {
    if (raw_stream_extension(ctx->api) == NULL) {
        ck_unsupported(r, "the plugin has no stream extension");
        stream_on_streamless(ctx, r, "no stream extension");
        return;
    }
    intptr_t stream = 0;
    pjdl_code rc = pjdl_device_stream(ctx->dev, &stream);
    if (rc != PJDL_OK) {
        stream_on_streamless(ctx, r, pjdl_last_error());
        return;
    }
    float *host = NULL;
    pjdl_buffer *buf = NULL;
    const size_t n = 4096;
    int64_t dims[1] = {(int64_t)n};
    host = malloc(n * sizeof *host);
    if (host == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        host[i] = (float)i;
    rc = pjdl_buffer_from_host(ctx->client, host, PJRT_Buffer_Type_F32, dims, 1, NULL, NULL, &buf);
    if (rc != PJDL_OK) {
        ck_fail(r, "creating a buffer: %s: %s", pjdl_code_name(rc), pjdl_last_error());
        free(host);
        return;
    }
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.has_stream = true;
    o.stream = stream;
    DLManagedTensorVersioned *mt = NULL;
    rc = pjdl_buffer_export(buf, &o, &mt);
    if (rc != PJDL_OK) {
        ck_fail(r, "export on the device's stream: expected OK, got %s: %s", pjdl_code_name(rc),
                pjdl_last_error());
    } else {
        /* Read through the plugin, as a consumer on that stream would: a
         * view that is ready where the stream is (so after its wait). A view
         * without the stream may be read before the data arrives. */
        DLTensor *t = &mt->dl_tensor;
        float *got = malloc(n * sizeof *got);
        char msg[512];
        if (got != NULL) {
            ctx->view_stream = stream;
            rc =
                ck_read_memory(ctx, (char *)t->data + t->byte_offset, t->device, t->dtype, t->shape,
                               t->ndim, t->strides, got, n * sizeof *got, false, msg, sizeof msg);
            ctx->view_stream = 0;
            if (rc == PJDL_OK)
                ck_expect_bytes(r, "data read after the stream export", host, got, n * sizeof *got);
            else if (rc != PJDL_UNIMPLEMENTED)
                ck_fail(r, "reading the stream export: %s", msg);
            free(got);
        }
        mt->deleter(mt);
    }
    pjdl_buffer_release(buf);
    free(host);
    if (r->status == CK_PASS)
        ck_note(r, "exported on stream 0x%lx, data read back", (unsigned long)stream);
    const PJRT_Ref_Extension *ext = ref_extension(ctx->api);
    pjdl_memory *mem = ck_host_memory(ctx);
    if (ext != NULL && mem != NULL)
        consumer_stream_order(ctx, r, ext, mem);
    else
        ck_note(r, "consumer-stream ordering not observed (needs a way to queue work on a "
                   "stream and host-readable memory)");
}
