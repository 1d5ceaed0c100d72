/* pjrt-dlpack bench: for any plugin, the figures of bench/ (the project's
 * benchmarks, see bench/README.md): export and import latency (median ns)
 * at 1 KiB and at --size, against a malloc+free pair; the copy fallback,
 * contiguous and transposed, and host<->device transfers against memcpy;
 * two threads exporting against one. Each latency is measured interleaved
 * with its baseline (A, B, A, B, ...) so that load affects both. Small
 * default counts: a quick look; bench/ has the full benchmarks. */
#include <pthread.h>
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
    row rows[32];
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
    static row overflow;
    if (b->nrows == sizeof b->rows / sizeof b->rows[0])
        return &overflow; /* cannot happen: the table is sized for every row */
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
    progress_show(b->s->args->progress, "bench", i, 7, what);
}

/* Row names outlive the call: kept in a static table. */
static const char *name_of(const char *fmt, size_t size) {
    static char names[16][64];
    static size_t next;
    char *n = names[next++ % 16];
    snprintf(n, sizeof names[0], fmt, size / 1024);
    return n;
}

static void ratio_row(bench *b, const char *name, double value, double base) {
    if (value > 0 && base > 0)
        add_row(b, name, 0, value / base, "ratio");
}

/* One export + deleter; false (with the row marked n/a) on failure. */
static bool export_once(bench *b, pjdl_buffer *buf, const char *name) {
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    DLManagedTensorVersioned *mt = NULL;
    if (pjdl_buffer_export(buf, &o, &mt) != PJDL_OK) {
        na_row(b, name, pjdl_last_error());
        return false;
    }
    mt->deleter(mt);
    return true;
}

/* Export + deleter of `buf` (and of `big`, a buffer of --size bytes, when
 * given), interleaved with a malloc + free pair of the export's size. */
static void bench_export(bench *b, pjdl_buffer *buf, pjdl_buffer *big) {
    progress(b, 1, "export");
    const char *name = "export + deleter (share)";
    const char *big_name = name_of("export + deleter (share, %zu KiB)", b->copy_bytes);
    uint64_t *s_big = malloc((size_t)b->iterations * sizeof *s_big);
    uint64_t *s_malloc = malloc((size_t)b->iterations * sizeof *s_malloc);
    if (s_big == NULL || s_malloc == NULL) {
        free(s_big);
        free(s_malloc);
        na_row(b, name, "out of memory");
        return;
    }
    static volatile size_t export_size = 160;
    bool big_ok = big != NULL;
    for (int64_t i = 0; i < b->iterations; i++) {
        uint64_t t0 = cli_now_ns();
        if (!export_once(b, buf, name))
            goto out;
        uint64_t t1 = cli_now_ns();
        void *p = malloc(export_size);
        __asm__ volatile("" : : "r"(p) : "memory");
        free(p);
        uint64_t t2 = cli_now_ns();
        if (big_ok && !export_once(b, big, big_name))
            big_ok = false;
        uint64_t t3 = cli_now_ns();
        b->samples[i] = t1 - t0;
        s_malloc[i] = t2 - t1;
        s_big[i] = t3 - t2;
    }
    double small = median(b->samples, b->iterations);
    double m = median(s_malloc, b->iterations);
    add_row(b, name, b->iterations, small, "ns");
    add_row(b, "malloc + free (160 bytes)", b->iterations, m, "ns");
    ratio_row(b, "export / malloc+free", small, m);
    if (big_ok) {
        double large = median(s_big, b->iterations);
        add_row(b, big_name, b->iterations, large, "ns");
        ratio_row(b, name_of("export %zu KiB / 4 KiB", b->copy_bytes), large, small);
    }
out:
    free(s_big);
    free(s_malloc);
}

/* A counting tensor viewing the data of `buf` (rows x cols float32). */
static bool view_tensor(bench *b, pjdl_buffer *buf, int64_t n, bench_tensor *t, const char *name) {
    void *ptr = NULL;
    DLDevice dl;
    if (pjdl_buffer_data_pointer(buf, &ptr) != PJDL_OK ||
        pjdl_buffer_dl_device(buf, &dl) != PJDL_OK) {
        na_row(b, name, pjdl_last_error());
        return false;
    }
    DLDataType f32 = {kDLFloat, 32, 1};
    bench_tensor_init(t, ptr, dl, n, f32);
    return true;
}

static bool import_once(bench *b, bench_tensor *t, const char *name) {
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_NEVER;
    pjdl_buffer *v = NULL;
    if (pjdl_import(&b->s->client, 1, &t->mt, &io, &v) != PJDL_OK) {
        na_row(b, name, pjdl_last_error());
        return false;
    }
    pjdl_buffer_release(v);
    return true;
}

/* Import as a view + release at 4 KiB and at --size, interleaved. */
static void bench_import(bench *b, pjdl_buffer *buf, pjdl_buffer *big) {
    progress(b, 2, "import");
    const char *name = "import view + release";
    const char *big_name = name_of("import view + release (%zu KiB)", b->copy_bytes);
    bench_tensor t, tb;
    if (!view_tensor(b, buf, BENCH_FLOATS, &t, name))
        return;
    bool big_ok = big != NULL && view_tensor(b, big, (int64_t)(b->copy_bytes / 4), &tb, big_name);
    uint64_t *s_big = malloc((size_t)b->iterations * sizeof *s_big);
    if (s_big == NULL) {
        na_row(b, name, "out of memory");
        return;
    }
    for (int64_t i = 0; i < b->iterations; i++) {
        uint64_t t0 = cli_now_ns();
        if (!import_once(b, &t, name)) {
            free(s_big);
            return;
        }
        uint64_t t1 = cli_now_ns();
        if (big_ok && !import_once(b, &tb, big_name))
            big_ok = false;
        b->samples[i] = t1 - t0;
        s_big[i] = cli_now_ns() - t1;
    }
    double small = median(b->samples, b->iterations);
    add_row(b, name, b->iterations, small, "ns");
    if (big_ok) {
        double large = median(s_big, b->iterations);
        add_row(b, big_name, b->iterations, large, "ns");
        ratio_row(b, name_of("import %zu KiB / 4 KiB", b->copy_bytes), large, small);
    }
    free(s_big);
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_NEVER;
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

/* One timed import with copy=ALWAYS of t (its strides as set) + await. */
static bool copy_once(bench *b, bench_tensor *t, uint64_t *ns) {
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_ALWAYS;
    io.device = b->dev;
    pjdl_buffer *v = NULL;
    uint64_t t0 = cli_now_ns();
    pjdl_code rc = pjdl_import(&b->s->client, 1, &t->mt, &io, &v);
    if (rc == PJDL_OK)
        rc = pjdl_buffer_await(v);
    *ns = cli_now_ns() - t0;
    pjdl_buffer_release(v);
    return rc == PJDL_OK;
}

static uint64_t memcpy_once(void *dst, const void *src, size_t size) {
    uint64_t t0 = cli_now_ns();
    memcpy(dst, src, size);
    __asm__ volatile("" : : "r"(dst) : "memory");
    return cli_now_ns() - t0;
}

/* The copy fallback of an import, contiguous and transposed (a square
 * float32 array given column-major strides), interleaved with memcpy of the
 * same bytes into memory already faulted in. */
static void bench_copy(bench *b) {
    progress(b, 3, "copy");
    size_t size = b->copy_bytes;
    int64_t side = 1;
    while ((size_t)(side * 2 * side * 2) * 4 <= size)
        side *= 2;
    int64_t reps = b->iterations < 10 ? b->iterations : 10;
    unsigned char *src = aligned_alloc(64, (size + 63) / 64 * 64);
    unsigned char *dst = aligned_alloc(64, (size + 63) / 64 * 64);
    uint64_t *s_mem = malloc((size_t)reps * sizeof *s_mem);
    uint64_t *s_tr = malloc((size_t)reps * sizeof *s_tr);
    const char *copy_name = name_of("copy fallback import (%zu KiB)", size);
    const char *tr_name = name_of("transposed copy import (%zu KiB)", (size_t)(side * side * 4));
    if (src == NULL || dst == NULL || s_mem == NULL || s_tr == NULL) {
        na_row(b, copy_name, "out of memory");
        goto out;
    }
    memset(src, 0x5a, size);
    memset(dst, 0, size);
    DLDevice cpu = {kDLCPU, 0};
    bench_tensor t, tt;
    bench_tensor_init(&t, src, cpu, (int64_t)size, (DLDataType){kDLUInt, 8, 1});
    bench_tensor_init(&tt, src, cpu, side, (DLDataType){kDLFloat, 32, 1});
    int64_t tshape[2] = {side, side}, tstrides[2] = {1, side};
    tt.mt.dl_tensor.ndim = 2;
    tt.mt.dl_tensor.shape = tshape;
    tt.mt.dl_tensor.strides = tstrides;
    uint64_t ns;
    /* One untimed round of each first: page faults are not bandwidth. */
    if (!copy_once(b, &t, &ns)) {
        na_row(b, copy_name, pjdl_last_error());
        goto out;
    }
    bool tr_ok = copy_once(b, &tt, &ns);
    if (!tr_ok)
        na_row(b, tr_name, pjdl_last_error());
    memcpy_once(dst, src, size);
    for (int64_t i = 0; i < reps; i++) {
        if (!copy_once(b, &t, &b->samples[i])) {
            na_row(b, copy_name, pjdl_last_error());
            goto out;
        }
        s_mem[i] = memcpy_once(dst, src, size);
        if (tr_ok && !copy_once(b, &tt, &s_tr[i]))
            tr_ok = false;
    }
    double copy_gbs = (double)size / median(b->samples, reps);
    double mem_gbs = (double)size / median(s_mem, reps);
    add_row(b, copy_name, reps, copy_gbs, "GB/s");
    add_row(b, name_of("memcpy (%zu KiB)", size), reps, mem_gbs, "GB/s");
    ratio_row(b, "copy fallback / memcpy", copy_gbs, mem_gbs);
    if (tr_ok) {
        double tr_gbs = (double)(side * side * 4) / median(s_tr, reps);
        add_row(b, tr_name, reps, tr_gbs, "GB/s");
        ratio_row(b, "transposed copy / memcpy", tr_gbs, mem_gbs);
    }
out:
    free(src);
    free(dst);
    free(s_mem);
    free(s_tr);
}

/* Host -> device (pjdl_buffer_from_host until ready) and device -> host
 * (pjdl_buffer_to_host) of --size bytes, interleaved with memcpy. */
static void bench_transfers(bench *b) {
    progress(b, 4, "transfers");
    size_t size = b->copy_bytes / 4 * 4;
    int64_t dims[1] = {(int64_t)(size / 4)};
    int64_t reps = b->iterations < 10 ? b->iterations : 10;
    float *host = aligned_alloc(64, size + 64), *dst = aligned_alloc(64, size + 64);
    uint64_t *s_d2h = malloc((size_t)reps * sizeof *s_d2h);
    uint64_t *s_mem = malloc((size_t)reps * sizeof *s_mem);
    const char *h2d = name_of("host -> device (%zu KiB)", size);
    const char *d2h = name_of("device -> host (%zu KiB)", size);
    pjdl_buffer *dev = NULL;
    if (host == NULL || dst == NULL || s_d2h == NULL || s_mem == NULL) {
        na_row(b, h2d, "out of memory");
        goto out;
    }
    memset(host, 0x3c, size);
    memset(dst, 0, size);
    if (pjdl_buffer_from_host(b->s->client, host, PJRT_Buffer_Type_F32, dims, 1, NULL, NULL,
                              &dev) != PJDL_OK ||
        pjdl_buffer_await(dev) != PJDL_OK) {
        na_row(b, h2d, pjdl_last_error());
        goto out;
    }
    for (int64_t i = 0; i < reps; i++) {
        pjdl_buffer *nb = NULL;
        uint64_t t0 = cli_now_ns();
        pjdl_code rc = pjdl_buffer_from_host(b->s->client, host, PJRT_Buffer_Type_F32, dims, 1,
                                             NULL, NULL, &nb);
        if (rc == PJDL_OK)
            rc = pjdl_buffer_await(nb);
        uint64_t t1 = cli_now_ns();
        pjdl_buffer_release(nb);
        if (rc == PJDL_OK)
            rc = pjdl_buffer_to_host(dev, dst, size);
        uint64_t t2 = cli_now_ns();
        if (rc != PJDL_OK) {
            na_row(b, h2d, pjdl_last_error());
            goto out;
        }
        b->samples[i] = t1 - t0;
        s_d2h[i] = t2 - t1;
        s_mem[i] = memcpy_once(dst, host, size);
    }
    double mem_gbs = (double)size / median(s_mem, reps);
    double h = (double)size / median(b->samples, reps), d = (double)size / median(s_d2h, reps);
    add_row(b, h2d, reps, h, "GB/s");
    add_row(b, d2h, reps, d, "GB/s");
    ratio_row(b, "host -> device / memcpy", h, mem_gbs);
    ratio_row(b, "device -> host / memcpy", d, mem_gbs);
out:
    pjdl_buffer_release(dev);
    free(host);
    free(dst);
    free(s_d2h);
    free(s_mem);
}

typedef struct thread_job {
    bench *b;
    pjdl_buffer *buf;
    int64_t n;
    pthread_barrier_t *start;
    bool ok;
    uint64_t t0, t1; /* the thread's own start and end */
} thread_job;

static void *thread_run(void *arg) {
    thread_job *j = arg;
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    pthread_barrier_wait(j->start);
    j->t0 = cli_now_ns();
    j->ok = true;
    for (int64_t i = 0; i < j->n && j->ok; i++) {
        DLManagedTensorVersioned *mt = NULL;
        j->ok = pjdl_buffer_export(j->buf, &o, &mt) == PJDL_OK;
        if (j->ok)
            mt->deleter(mt);
    }
    j->t1 = cli_now_ns();
    return NULL;
}

/* Exports per second of `n` threads, each on its own buffer; -1 on failure. */
static double threads_rate(bench *b, pjdl_buffer **bufs, int n, int64_t per_thread) {
    pthread_t th[2];
    thread_job jobs[2];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)n + 1);
    for (int i = 0; i < n; i++) {
        jobs[i] = (thread_job){b, bufs[i], per_thread, &start, false, 0, 0};
        pthread_create(&th[i], NULL, thread_run, &jobs[i]);
    }
    pthread_barrier_wait(&start);
    bool ok = true;
    /* From the first thread's start to the last one's end: this thread may
     * not get a core back before the workers are done. */
    uint64_t t0 = UINT64_MAX, t1 = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        ok = ok && jobs[i].ok;
        t0 = jobs[i].t0 < t0 ? jobs[i].t0 : t0;
        t1 = jobs[i].t1 > t1 ? jobs[i].t1 : t1;
    }
    pthread_barrier_destroy(&start);
    return ok ? (double)n * (double)per_thread * 1e9 / (double)(t1 - t0) : -1;
}

/* Two threads exporting distinct buffers against one thread, alternating. */
static void bench_threads(bench *b, pjdl_buffer *buf, pjdl_buffer *other) {
    progress(b, 5, "threads");
    const char *name = "one thread export + deleter";
    if (other == NULL) {
        na_row(b, name, "no second buffer");
        return;
    }
    pjdl_buffer *bufs[2] = {buf, other};
    int64_t reps = b->iterations < 9 ? b->iterations : 9;
    int64_t per_thread = b->iterations * 50;
    double one[9], two[9];
    for (int64_t i = 0; i < reps; i++) {
        one[i] = threads_rate(b, bufs, 1, per_thread);
        two[i] = threads_rate(b, bufs, 2, per_thread);
        if (one[i] < 0 || two[i] < 0) {
            na_row(b, name, pjdl_last_error());
            return;
        }
    }
    uint64_t u1[9], u2[9];
    for (int64_t i = 0; i < reps; i++) {
        u1[i] = (uint64_t)one[i];
        u2[i] = (uint64_t)two[i];
    }
    double r1 = median(u1, reps), r2 = median(u2, reps);
    add_row(b, name, reps, r1, "ops/s");
    add_row(b, "two threads export + deleter", reps, r2, "ops/s");
    ratio_row(b, "two threads / one thread", r2, r1);
}

static void print_table(bench *b) {
    printf("plugin:   %s\n", b->s->path[0] ? b->s->path : "(default)");
    printf("platform: %s %s, device %d\n\n", pjdl_client_platform_name(b->s->client),
           pjdl_client_platform_version(b->s->client), pjdl_device_id(b->dev));
    printf("| %-36s | %10s | %12s | %-5s |\n", "benchmark", "iterations", "median", "unit");
    printf("|%s|%s|%s|%s|\n", "--------------------------------------", "------------",
           "--------------", "-------");
    for (size_t i = 0; i < b->nrows; i++) {
        row *r = &b->rows[i];
        if (r->value < 0) {
            printf("| %-36s | %10s | %12s | %-5s | %s\n", r->name, "-", "-", r->unit, r->note);
            continue;
        }
        char it[32] = "";
        if (r->iterations > 0)
            snprintf(it, sizeof it, "%lld", (long long)r->iterations);
        if (strcmp(r->unit, "ns") == 0 || strcmp(r->unit, "ops/s") == 0)
            printf("| %-36s | %10s | %12.0f | %-5s |\n", r->name, it, r->value, r->unit);
        else
            printf("| %-36s | %10s | %12.2f | %-5s |\n", r->name, it, r->value, r->unit);
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
    /* A second small buffer for the threads, and one of --size bytes. */
    pjdl_buffer *other = NULL, *big = NULL;
    if (pjdl_buffer_from_host(s.client, data, PJRT_Buffer_Type_F32, dims, 1, NULL, NULL, &other) !=
            PJDL_OK ||
        pjdl_buffer_await(other) != PJDL_OK) {
        pjdl_buffer_release(other);
        other = NULL;
    }
    int64_t big_dims[1] = {(int64_t)(b.copy_bytes / 4)};
    float *big_data = calloc(b.copy_bytes / 4 + 1, sizeof *big_data);
    if (big_data == NULL ||
        pjdl_buffer_from_host(s.client, big_data, PJRT_Buffer_Type_F32, big_dims, 1, NULL, NULL,
                              &big) != PJDL_OK ||
        pjdl_buffer_await(big) != PJDL_OK) {
        pjdl_buffer_release(big);
        big = NULL;
    }
    free(big_data);
    bench_export(&b, buf, big);
    bench_import(&b, buf, big);
    pjdl_buffer_release(big);
    bench_copy(&b);
    bench_transfers(&b);
    bench_threads(&b, buf, other);
    pjdl_buffer_release(other);
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
