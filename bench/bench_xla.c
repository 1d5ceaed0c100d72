/* pjdl_bench_xla: the library's overhead over a real plugin's own calls,
 * on XLA's CPU plugin (--plugin, default $PJRT_XLA_CPU_PLUGIN).
 *
 *   xla.pin_pair      the plugin's IncreaseExternalReferenceCount +
 *                     DecreaseExternalReferenceCount on one buffer, ns
 *   xla.export        pjdl_buffer_export (share, ready) + its deleter, ns:
 *                     the same pin pair plus everything the library adds
 *   xla.view_pair     the plugin's CreateViewOfDeviceBuffer + Destroy, ns
 *   xla.import        pjdl_import (view, copy NEVER) + pjdl_buffer_release, ns
 *   xla.export_ratio  xla.export / xla.pin_pair (target <= 1.5)
 *   xla.import_ratio  xla.import / xla.view_pair (target <= 1.5)
 *
 * Each pair is measured interleaved with its baseline (bench_interleave), on
 * a 16x16 f32 tensor in 64-byte-aligned host memory (XLA views nothing less
 * aligned). --smoke runs each once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_lib.h"
#include "bench_util.h"
#include "pjrt_dlpack.h"

typedef struct fixture {
    pjdl_plugin *plugin;
    pjdl_client *client;
    const PJRT_Api *api;
    float *data;
    int64_t shape[2];
    DLManagedTensorVersioned tensor; /* the producer's; its deleter does nothing */
    pjdl_buffer *buffer;             /* a buffer of the plugin's own memory */
    PJRT_Buffer *pjrt;               /* and its PJRT handle */
} fixture;

static void die(const char *what, PJRT_Error *error, const PJRT_Api *api) {
    fprintf(stderr, "pjdl_bench_xla: %s failed", what);
    if (error != NULL) {
        PJRT_Error_Message_Args m = {.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE,
                                     .error = error};
        api->PJRT_Error_Message(&m);
        fprintf(stderr, ": %.*s", (int)m.message_size, m.message);
    } else {
        fprintf(stderr, ": %s", pjdl_last_error());
    }
    fprintf(stderr, "\n");
    exit(1);
}

static void noop_deleter(DLManagedTensorVersioned *self) {
    (void)self;
}

static void loop_pin_pair(void *arg, int64_t n) {
    fixture *f = arg;
    for (int64_t i = 0; i < n; i++) {
        PJRT_Buffer_IncreaseExternalReferenceCount_Args inc = {
            .struct_size = PJRT_Buffer_IncreaseExternalReferenceCount_Args_STRUCT_SIZE,
            .buffer = f->pjrt};
        PJRT_Error *e = f->api->PJRT_Buffer_IncreaseExternalReferenceCount(&inc);
        if (e != NULL)
            die("IncreaseExternalReferenceCount", e, f->api);
        PJRT_Buffer_DecreaseExternalReferenceCount_Args dec = {
            .struct_size = PJRT_Buffer_DecreaseExternalReferenceCount_Args_STRUCT_SIZE,
            .buffer = f->pjrt};
        if ((e = f->api->PJRT_Buffer_DecreaseExternalReferenceCount(&dec)) != NULL)
            die("DecreaseExternalReferenceCount", e, f->api);
    }
}

static void loop_export(void *arg, int64_t n) {
    fixture *f = arg;
    for (int64_t i = 0; i < n; i++) {
        DLManagedTensorVersioned *mt = NULL;
        if (pjdl_buffer_export(f->buffer, NULL, &mt) != PJDL_OK)
            die("pjdl_buffer_export", NULL, f->api);
        BENCH_SINK(mt->dl_tensor.data);
        mt->deleter(mt);
    }
}

static void loop_view_pair(void *arg, int64_t n) {
    fixture *f = arg;
    bench_plugin_view_pair(f->client, f->data, f->shape, n);
}

static void loop_import(void *arg, int64_t n) {
    fixture *f = arg;
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_NEVER;
    for (int64_t i = 0; i < n; i++) {
        pjdl_buffer *b = NULL;
        if (pjdl_import(&f->client, 1, &f->tensor, &io, &b) != PJDL_OK)
            die("pjdl_import", NULL, f->api);
        pjdl_buffer_release(b);
    }
}

static void fixture_open(fixture *f, const char *plugin) {
    memset(f, 0, sizeof *f);
    if (pjdl_plugin_load(plugin, &f->plugin) != PJDL_OK ||
        pjdl_client_create(f->plugin, NULL, 0, &f->client) != PJDL_OK)
        die("loading the plugin", NULL, NULL);
    f->api = pjdl_plugin_api(f->plugin);
    f->shape[0] = f->shape[1] = 16;
    f->data = aligned_alloc(64, 16 * 16 * sizeof(float));
    if (f->data == NULL)
        die("allocating the tensor", NULL, NULL);
    for (int i = 0; i < 256; i++)
        f->data[i] = (float)i;
    f->tensor.version.major = DLPACK_MAJOR_VERSION;
    f->tensor.version.minor = DLPACK_MINOR_VERSION;
    f->tensor.deleter = noop_deleter;
    f->tensor.dl_tensor = (DLTensor){.data = f->data,
                                     .device = {kDLCPU, 0},
                                     .ndim = 2,
                                     .dtype = {kDLFloat, 32, 1},
                                     .shape = f->shape};
    if (pjdl_buffer_from_host(f->client, f->data, PJRT_Buffer_Type_F32, f->shape, 2, NULL, NULL,
                              &f->buffer) != PJDL_OK ||
        pjdl_buffer_await(f->buffer) != PJDL_OK || pjdl_buffer_pjrt(f->buffer, &f->pjrt) != PJDL_OK)
        die("making the buffer", NULL, NULL);
}

static void fixture_close(fixture *f) {
    pjdl_buffer_release(f->buffer);
    pjdl_client_release(f->client);
    pjdl_plugin_release(f->plugin);
    free(f->data);
}

int main(int argc, char **argv) {
    bench_args args;
    if (!bench_args_parse(argc, argv, &args))
        return 2;
    const char *plugin = args.plugin ? args.plugin : getenv("PJRT_XLA_CPU_PLUGIN");
    if (plugin == NULL || plugin[0] == '\0') {
        fprintf(stderr, "pjdl_bench_xla: no plugin: pass --plugin or set PJRT_XLA_CPU_PLUGIN\n");
        return 2;
    }
    int rounds = args.smoke ? 1 : (args.rounds ? args.rounds : 101);
    int64_t batch = args.smoke ? 2 : 2000;
    fixture f;
    fixture_open(&f, plugin);
    int major, minor;
    pjdl_plugin_abi_version(f.plugin, &major, &minor);
    bench_emit("xla.abi_minor", minor, "");
    bench_case pins[] = {{"xla.pin_pair", loop_pin_pair, &f, 0},
                         {"xla.export", loop_export, &f, 0}};
    bench_interleave(pins, 2, rounds, batch);
    bench_case views[] = {{"xla.view_pair", loop_view_pair, &f, 0},
                          {"xla.import", loop_import, &f, 0}};
    bench_interleave(views, 2, rounds, batch);
    bench_emit("xla.export_ratio", pins[1].median_ns / pins[0].median_ns, "x");
    bench_emit("xla.import_ratio", views[1].median_ns / views[0].median_ns, "x");
    fixture_close(&f);
    return 0;
}
