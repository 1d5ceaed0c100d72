/* A real computation on XLA's CPU plugin, fed and drained through DLPack.
 *
 * Two host arrays are handed to the plugin as DLPack tensors and viewed in
 * place (no copy), a StableHLO program computes a * b + 1 and the transpose
 * of a, and the two results are handed back as DLPack tensors over the
 * plugin's own memory. Exits 1 if any check fails.
 *
 *   xla-compute [PLUGIN]    PLUGIN: argv[1], else $PJRT_XLA_CPU_PLUGIN */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pjrt_dlpack.h"
/* xla_compute_program: the text of xla_compute.mlir, the StableHLO program
 * (a * b + 1, and the transpose of a), generated into a header by CMake. */
#include "xla_compute_program.h"

#define CHECK(call)                                                                                \
    do {                                                                                           \
        pjdl_code check_code_ = (call);                                                            \
        if (check_code_ != PJDL_OK) {                                                              \
            fprintf(stderr, "%s: %s: %s\n", #call, pjdl_code_name(check_code_),                    \
                    pjdl_last_error());                                                            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static int failures;

static void expect(int ok, const char *what) {
    printf("  %-58s %s\n", what, ok ? "ok" : "FAILED");
    if (!ok)
        failures++;
}

/* A host tensor the way any DLPack producer hands one out: the producer
 * owns the memory and learns through the deleter when the consumer is
 * done. XLA views only data aligned to 64 bytes, so the memory is. */
typedef struct host_tensor {
    DLManagedTensorVersioned managed;
    int64_t shape[2];
    int deleted;
} host_tensor;

static void host_tensor_deleter(DLManagedTensorVersioned *self) {
    host_tensor *t = self->manager_ctx;
    free(self->dl_tensor.data);
    t->deleted++;
}

static void host_tensor_init(host_tensor *t, const float values[6]) {
    void *data = NULL;
    if (posix_memalign(&data, 64, 6 * sizeof(float)) != 0) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    memcpy(data, values, 6 * sizeof(float));
    memset(t, 0, sizeof *t);
    t->shape[0] = 2;
    t->shape[1] = 3;
    t->managed.version.major = DLPACK_MAJOR_VERSION;
    t->managed.version.minor = DLPACK_MINOR_VERSION;
    t->managed.manager_ctx = t;
    t->managed.deleter = host_tensor_deleter;
    t->managed.dl_tensor = (DLTensor){.data = data,
                                      .device = {kDLCPU, 0},
                                      .ndim = 2,
                                      .dtype = {kDLFloat, 32, 1},
                                      .shape = t->shape,
                                      .strides = NULL,
                                      .byte_offset = 0};
}

/* Exports a result, prints it, and checks it against `want`. */
static void drain(const char *name, pjdl_buffer *result, const float *want) {
    DLManagedTensorVersioned *t = NULL;
    CHECK(pjdl_buffer_export(result, NULL, &t)); /* waits until computed */
    const DLTensor *d = &t->dl_tensor;
    const float *values = (const float *)((const char *)d->data + d->byte_offset);
    void *device_data = NULL;
    CHECK(pjdl_buffer_data_pointer(result, &device_data));
    printf("%s: DLPack tensor %lldx%lld on %s, data %p\n", name, (long long)d->shape[0],
           (long long)d->shape[1], pjdl_dl_device_type_name(d->device.device_type), d->data);
    int equal = 1;
    /* Strides may be NULL (row-major) or the plugin's layout. */
    for (int64_t i = 0; i < d->shape[0]; i++) {
        printf("   ");
        for (int64_t j = 0; j < d->shape[1]; j++) {
            int64_t s0 = d->strides ? d->strides[0] : d->shape[1];
            int64_t s1 = d->strides ? d->strides[1] : 1;
            float v = values[i * s0 + j * s1];
            printf(" %6.1f", (double)v);
            equal &= v == want[i * d->shape[1] + j];
        }
        printf("\n");
    }
    expect(values == device_data, "the exported tensor is the plugin's memory (no copy)");
    expect(!(t->flags & DLPACK_FLAG_BITMASK_IS_COPIED), "not flagged as a copy");
    expect(equal, "values as computed by hand");
    t->deleter(t);
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : getenv("PJRT_XLA_CPU_PLUGIN");
    if (path == NULL || path[0] == '\0') {
        fprintf(stderr, "usage: %s PLUGIN (or set PJRT_XLA_CPU_PLUGIN to XLA's CPU plugin)\n",
                argv[0]);
        return 2;
    }
    pjdl_plugin *plugin = NULL;
    pjdl_client *client = NULL;
    CHECK(pjdl_plugin_load(path, &plugin));
    CHECK(pjdl_client_create(plugin, NULL, 0, &client));
    printf("plugin %s: platform %s %s, %zu devices\n", path, pjdl_client_platform_name(client),
           pjdl_client_platform_version(client), pjdl_client_device_count(client));

    pjdl_executable *exe = NULL;
    CHECK(pjdl_executable_compile(client, xla_compute_program, strlen(xla_compute_program), "mlir",
                                  &exe));
    printf("compiled: %zu results\n", pjdl_executable_output_count(exe));

    const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {10, 20, 30, 40, 50, 60};
    host_tensor ta, tb;
    host_tensor_init(&ta, a);
    host_tensor_init(&tb, b);
    void *a_data = ta.managed.dl_tensor.data, *b_data = tb.managed.dl_tensor.data;
    pjdl_import_options never_copy = PJDL_IMPORT_OPTIONS_INIT;
    never_copy.copy = PJDL_COPY_NEVER;
    pjdl_buffer *inputs[2];
    CHECK(pjdl_import(&client, 1, &ta.managed, &never_copy, &inputs[0]));
    CHECK(pjdl_import(&client, 1, &tb.managed, &never_copy, &inputs[1]));
    void *pa = NULL, *pb = NULL;
    CHECK(pjdl_buffer_data_pointer(inputs[0], &pa));
    CHECK(pjdl_buffer_data_pointer(inputs[1], &pb));
    printf("inputs: a at %p, b at %p; the plugin's buffers at %p, %p\n", a_data, b_data, pa, pb);
    expect(pa == a_data && pb == b_data, "the inputs are views of the DLPack tensors");

    pjdl_buffer *results[2];
    size_t n = 0;
    CHECK(pjdl_executable_execute(exe, inputs, 2, results, 2, &n));
    expect(n == 2, "two results");
    /* The producers' memory is the plugin's until it lets go of it. */
    pjdl_buffer_release(inputs[0]);
    pjdl_buffer_release(inputs[1]);
    pjdl_executable_release(exe);

    const float want_s[6] = {11, 41, 91, 161, 251, 361};
    const float want_t[6] = {1, 4, 2, 5, 3, 6};
    drain("a * b + 1", results[0], want_s);
    drain("transpose(a)", results[1], want_t);
    pjdl_buffer_release(results[0]);
    pjdl_buffer_release(results[1]);
    pjdl_client_release(client);
    /* The client's release waited for everything in flight, inputs' holds
     * included; each producer's deleter ran exactly once. */
    expect(ta.deleted == 1 && tb.deleted == 1, "each input's deleter ran once");
    pjdl_plugin_release(plugin);
    if (failures) {
        printf("xla-compute: %d checks FAILED\n", failures);
        return 1;
    }
    printf("xla-compute OK\n");
    return 0;
}
