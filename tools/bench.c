/* pjrt-dlpack bench: export and import latency (median ns) and the copy
 * fallback's bandwidth against memcpy. Small default counts: this is a quick
 * look, bench/ has the full benchmarks. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define BENCH_FLOATS 1024

typedef struct row {
    const char *name;
    int64_t iterations;
    double value;
    const char *unit;
    char note[160];
} row;

typedef struct bench {
    cli_session *s;
    pjdl_device *dev;
    int64_t iterations;
    size_t copy_bytes;
    uint64_t *samples;
    row rows[8];
    size_t nrows;
} bench;

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double median(uint64_t *v, int64_t n) {
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
}

static row *add_row(bench *b, const char *name, int64_t it, double value, const char *unit) {
    row *r = &b->rows[b->nrows++];
    r->name = name;
    r->iterations = it;
    r->value = value;
    r->unit = unit;
    r->note[0] = '\0';
    return r;
}

static void na_row(bench *b, const char *name, const char *why) {
    row *r = add_row(b, name, 0, -1, "ns");
    snprintf(r->note, sizeof r->note, "n/a: %s", why);
}

/* A tensor the benchmark reuses: its deleter only counts. */
typedef struct bench_tensor {
    DLManagedTensorVersioned mt;
    int64_t shape[1];
    atomic_int calls;
} bench_tensor;

static void bench_deleter(DLManagedTensorVersioned *self) {
    atomic_fetch_add(&((bench_tensor *)self)->calls, 1);
}

static void bench_tensor_init(bench_tensor *t, void *data, DLDevice dev, int64_t n,
                              DLDataType dtype) {
    memset(t, 0, sizeof *t);
    t->mt.version.major = DLPACK_MAJOR_VERSION;
    t->mt.version.minor = DLPACK_MINOR_VERSION;
    t->mt.deleter = bench_deleter;
    t->mt.dl_tensor.data = data;
    t->mt.dl_tensor.device = dev;
    t->mt.dl_tensor.dtype = dtype;
    t->mt.dl_tensor.ndim = 1;
    t->shape[0] = n;
    t->mt.dl_tensor.shape = t->shape;
}

static void progress(bench *b, size_t i, const char *what) {
    progress_show(b->s->args->progress, "bench", i, 4, what);
}

static void bench_export(bench *b, pjdl_buffer *buf) {
    progress(b, 1, "export");
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    for (int64_t i = 0; i < b->iterations; i++) {
        DLManagedTensorVersioned *mt = NULL;
        uint64_t t0 = cli_now_ns();
        pjdl_code rc = pjdl_buffer_export(buf, &o, &mt);
        if (rc != PJDL_OK) {
            na_row(b, "export + deleter (share)", pjdl_last_error());
            return;
        }
        mt->deleter(mt);
        b->samples[i] = cli_now_ns() - t0;
    }
    add_row(b, "export + deleter (share)", b->iterations, median(b->samples, b->iterations), "ns");
}

static void bench_import(bench *b, pjdl_buffer *buf) {
    progress(b, 2, "import");
    void *ptr = NULL;
    DLDevice dl;
    if (pjdl_buffer_data_pointer(buf, &ptr) != PJDL_OK ||
        pjdl_buffer_dl_device(buf, &dl) != PJDL_OK) {
        na_row(b, "import view + release", pjdl_last_error());
        return;
    }
    DLDataType f32 = {kDLFloat, 32, 1};
    bench_tensor t;
    bench_tensor_init(&t, ptr, dl, BENCH_FLOATS, f32);
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_NEVER;
    for (int64_t i = 0; i < b->iterations; i++) {
        pjdl_buffer *v = NULL;
        uint64_t t0 = cli_now_ns();
        if (pjdl_import(&b->s->client, 1, &t.mt, &io, &v) != PJDL_OK) {
            na_row(b, "import view + release", pjdl_last_error());
            return;
        }
        pjdl_buffer_release(v);
        b->samples[i] = cli_now_ns() - t0;
    }
    add_row(b, "import view + release", b->iterations, median(b->samples, b->iterations), "ns");
    /* Export then import the tensor: what a framework round trip costs. */
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    for (int64_t i = 0; i < b->iterations; i++) {
        DLManagedTensorVersioned *mt = NULL;
        pjdl_buffer *v = NULL;
        uint64_t t0 = cli_now_ns();
        if (pjdl_buffer_export(buf, &o, &mt) != PJDL_OK)
            return;
        if (pjdl_import(&b->s->client, 1, mt, &io, &v) != PJDL_OK) {
            mt->deleter(mt);
            na_row(b, "export -> import -> release", pjdl_last_error());
            return;
        }
        pjdl_buffer_release(v);
        b->samples[i] = cli_now_ns() - t0;
    }
    add_row(b, "export -> import -> release", b->iterations, median(b->samples, b->iterations),
            "ns");
}

static void bench_copy(bench *b) {
    progress(b, 3, "copy");
    size_t size = b->copy_bytes;
    int64_t reps = b->iterations < 10 ? b->iterations : 10;
    unsigned char *src = aligned_alloc(64, (size + 63) / 64 * 64);
    unsigned char *dst = aligned_alloc(64, (size + 63) / 64 * 64);
    if (src == NULL || dst == NULL) {
        free(src);
        free(dst);
        na_row(b, "copy fallback import", "out of memory");
        return;
    }
    memset(src, 0x5a, size);
    memset(dst, 0, size);
    DLDevice cpu = {kDLCPU, 0};
    DLDataType u8 = {kDLUInt, 8, 1};
    bench_tensor t;
    bench_tensor_init(&t, src, cpu, (int64_t)size, u8);
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_ALWAYS;
    io.device = b->dev;
    char copy_name[64], memcpy_name[64];
    static char names[2][64];
    snprintf(copy_name, sizeof copy_name, "copy fallback import (%zu KiB)", size / 1024);
    snprintf(memcpy_name, sizeof memcpy_name, "memcpy (%zu KiB)", size / 1024);
    memcpy(names[0], copy_name, sizeof copy_name);
    memcpy(names[1], memcpy_name, sizeof memcpy_name);
    double copy_gbs = -1;
    /* One untimed round of each first: page faults are not bandwidth. */
    pjdl_buffer *warm = NULL;
    if (pjdl_import(&b->s->client, 1, &t.mt, &io, &warm) == PJDL_OK) {
        pjdl_buffer_await(warm);
        pjdl_buffer_release(warm);
    }
    memcpy(dst, src, size);
    for (int64_t i = 0; i < reps; i++) {
        pjdl_buffer *v = NULL;
        uint64_t t0 = cli_now_ns();
        pjdl_code rc = pjdl_import(&b->s->client, 1, &t.mt, &io, &v);
        if (rc == PJDL_OK)
            rc = pjdl_buffer_await(v);
        b->samples[i] = cli_now_ns() - t0;
        pjdl_buffer_release(v);
        if (rc != PJDL_OK) {
            na_row(b, names[0], pjdl_last_error());
            reps = 0;
            break;
        }
    }
    if (reps > 0) {
        copy_gbs = (double)size / median(b->samples, reps);
        add_row(b, names[0], reps, copy_gbs, "GB/s");
    }
    int64_t mreps = b->iterations < 10 ? b->iterations : 10;
    for (int64_t i = 0; i < mreps; i++) {
        uint64_t t0 = cli_now_ns();
        memcpy(dst, src, size);
        __asm__ volatile("" : : "r"(dst) : "memory");
        b->samples[i] = cli_now_ns() - t0;
    }
    double mem_gbs = (double)size / median(b->samples, mreps);
    add_row(b, names[1], mreps, mem_gbs, "GB/s");
    if (copy_gbs > 0) {
        row *r = add_row(b, "copy fallback / memcpy", 0, copy_gbs / mem_gbs, "ratio");
        r->iterations = 0;
    }
    free(src);
    free(dst);
}

static void print_table(bench *b) {
    printf("plugin:   %s\n", b->s->path[0] ? b->s->path : "(default)");
    printf("platform: %s %s, device %d\n\n", pjdl_client_platform_name(b->s->client),
           pjdl_client_platform_version(b->s->client), pjdl_device_id(b->dev));
    printf("| %-34s | %10s | %12s | %-5s |\n", "benchmark", "iterations", "median", "unit");
    printf("|%s|%s|%s|%s|\n", "------------------------------------", "------------",
           "--------------", "-------");
    for (size_t i = 0; i < b->nrows; i++) {
        row *r = &b->rows[i];
        if (r->value < 0) {
            printf("| %-34s | %10s | %12s | %-5s | %s\n", r->name, "-", "-", r->unit, r->note);
            continue;
        }
        char it[32] = "";
        if (r->iterations > 0)
            snprintf(it, sizeof it, "%lld", (long long)r->iterations);
        if (strcmp(r->unit, "ns") == 0)
            printf("| %-34s | %10s | %12.0f | %-5s |\n", r->name, it, r->value, r->unit);
        else
            printf("| %-34s | %10s | %12.2f | %-5s |\n", r->name, it, r->value, r->unit);
    }
}

static void print_json(bench *b) {
    json_writer w;
    json_init(&w, stdout);
    json_begin_object(&w);
    json_key(&w, "plugin");
    json_string(&w, b->s->path);
    json_key(&w, "platform");
    json_string(&w, pjdl_client_platform_name(b->s->client));
    json_key(&w, "results");
    json_begin_array(&w);
    for (size_t i = 0; i < b->nrows; i++) {
        row *r = &b->rows[i];
        json_begin_object(&w);
        json_key(&w, "name");
        json_string(&w, r->name);
        json_key(&w, "iterations");
        json_int(&w, r->iterations);
        json_key(&w, "median");
        if (r->value < 0)
            json_null(&w);
        else
            json_double(&w, r->value);
        json_key(&w, "unit");
        json_string(&w, r->unit);
        if (r->note[0]) {
            json_key(&w, "note");
            json_string(&w, r->note);
        }
        json_end_object(&w);
    }
    json_end_array(&w);
    json_end_object(&w);
    json_finish(&w);
}

int cli_bench(const cli_args *args) {
    cli_session s = {0};
    s.args = args;
    if (!cli_plugin_resolve(args, s.path, sizeof s.path) || cli_plugin_load(&s) != PJDL_OK)
        return CLI_EXIT_NO_PLUGIN;
    if (cli_client_create(&s) != PJDL_OK) {
        cli_session_close(&s);
        return CLI_EXIT_NO_PLUGIN;
    }
    bench b = {0};
    b.s = &s;
    b.dev = pjdl_client_device(s.client, 0);
    b.iterations = args->iterations > 0 ? args->iterations : 200;
    b.copy_bytes = args->size_bytes > 0 ? (size_t)args->size_bytes : 4u << 20;
    b.samples = malloc((size_t)b.iterations * sizeof *b.samples);
    float *data = malloc(BENCH_FLOATS * sizeof *data);
    int rc = CLI_EXIT_OK;
    pjdl_buffer *buf = NULL;
    if (b.dev == NULL || b.samples == NULL || data == NULL) {
        fprintf(stderr, "pjrt-dlpack: %s\n", b.dev ? "out of memory" : "the client has no device");
        rc = b.dev ? CLI_EXIT_INTERNAL : CLI_EXIT_NO_PLUGIN;
        goto out;
    }
    for (int i = 0; i < BENCH_FLOATS; i++)
        data[i] = (float)i;
    int64_t dims[1] = {BENCH_FLOATS};
    if (pjdl_buffer_from_host(s.client, data, PJRT_Buffer_Type_F32, dims, 1, NULL, NULL, &buf) !=
            PJDL_OK ||
        pjdl_buffer_await(buf) != PJDL_OK) {
        fprintf(stderr, "pjrt-dlpack: cannot create a buffer: %s\n", pjdl_last_error());
        rc = CLI_EXIT_FAILED;
        goto out;
    }
    bench_export(&b, buf);
    bench_import(&b, buf);
    bench_copy(&b);
    progress_done(args->progress);
    if (args->json)
        print_json(&b);
    else
        print_table(&b);
out:
    pjdl_buffer_release(buf);
    free(data);
    free(b.samples);
    cli_session_close(&s);
    return rc;
}
