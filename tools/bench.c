/* pjrt-dlpack bench: for any plugin, the figures of bench/ (the project's
 * benchmarks, see bench/README.md): export and import latency (median ns)
 * at 4 KiB and at --size, against a malloc+free pair; the copy fallback,
 * contiguous and transposed, and host<->device transfers against memcpy;
 * two threads exporting against one. The measuring is bench/'s own
 * (bench_util.c): each latency runs interleaved with its baseline, round
 * after round, and its median over the rounds is reported, so that load
 * affects both. The operations here run on the first device's buffers and
 * turn a failure into an "n/a" row, where bench/'s stop. Small default
 * counts: a quick look; bench/ has the full benchmarks. As in `info` and
 * `check`, the plugin runs in a child process under the watch (watch.h): a
 * plugin that crashes or does not return ends the child, not the command,
 * which names the entry point. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bench_util.h"
#include "cli.h"

#define BENCH_FLOATS 1024

typedef struct row {
    const char *name;
    int64_t iterations;
    double value;
    const char *unit;
    char note[160];
} row;

/* Shared with the parent: how far the child got, for its report. */
typedef struct bench_state {
    bool client_created;
    char step[64]; /* the section being measured, or the set-up step */
} bench_state;

typedef struct bench {
    cli_session *s;
    bench_state *state;
    pjdl_device *dev;
    int64_t iterations;
    size_t copy_bytes;
    row rows[32];
    size_t nrows;
} bench;

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
    snprintf(r->note, sizeof r->note, "n/a: %.150s", why); /* cut to fit */
}

static void ratio_row(bench *b, const char *name, double value, double base) {
    if (value > 0 && base > 0)
        add_row(b, name, 0, value / base, "ratio");
}

static void progress(bench *b, size_t i, const char *what) {
    snprintf(b->state->step, sizeof b->state->step, "the %s section", what);
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

/* ------------------------------------------------------------ operations */

/* One operation of the command as a loop of bench_interleave: the loop
 * stops at the first failure and keeps the library's message for the row. */
typedef struct op {
    bench *b;
    pjdl_buffer *buf; /* export, round trip, device -> host */
    /* import: a tensor over memory the operation does not own */
    DLManagedTensorVersioned tensor;
    int64_t shape[2], strides[2];
    pjdl_copy copy; /* import: NEVER (a view) or ALWAYS (the copy fallback) */
    void *host;     /* host <-> device: the host side, `bytes` bytes */
    size_t bytes;
    char error[160]; /* "" while every operation succeeded */
} op;

static bool op_ok(op *o, pjdl_code rc) {
    if (rc != PJDL_OK && o->error[0] == '\0')
        snprintf(o->error, sizeof o->error, "%s", pjdl_last_error());
    return rc == PJDL_OK;
}

static void tensor_deleter(DLManagedTensorVersioned *self) {
    (void)self; /* the memory is the benchmark's */
}

/* The import tensor: `n` elements of `dtype` at `data` (1-d). */
static void op_tensor(op *o, void *data, DLDevice device, DLDataType dtype, int64_t n) {
    DLManagedTensorVersioned *t = &o->tensor;
    t->version.major = DLPACK_MAJOR_VERSION;
    t->version.minor = DLPACK_MINOR_VERSION;
    t->deleter = tensor_deleter;
    t->dl_tensor.data = data;
    t->dl_tensor.device = device;
    t->dl_tensor.dtype = dtype;
    t->dl_tensor.ndim = 1;
    o->shape[0] = n;
    t->dl_tensor.shape = o->shape;
}

/* The import tensor over the memory of `buf` (n float32). */
static bool op_view_of(op *o, pjdl_buffer *buf, int64_t n) {
    void *ptr = NULL;
    DLDevice dl;
    if (!op_ok(o, pjdl_buffer_data_pointer(buf, &ptr)) ||
        !op_ok(o, pjdl_buffer_dl_device(buf, &dl)))
        return false;
    op_tensor(o, ptr, dl, (DLDataType){kDLFloat, 32, 1}, n);
    o->copy = PJDL_COPY_NEVER;
    return true;
}

static void loop_export(void *arg, int64_t n) {
    op *o = arg;
    pjdl_export_options eo = PJDL_EXPORT_OPTIONS_INIT;
    for (int64_t i = 0; i < n && o->error[0] == '\0'; i++) {
        DLManagedTensorVersioned *mt = NULL;
        if (op_ok(o, pjdl_buffer_export(o->buf, &eo, &mt)))
            mt->deleter(mt);
    }
}

/* Import (a view, or the copy fallback until the copy is ready) + release. */
static void loop_import(void *arg, int64_t n) {
    op *o = arg;
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = o->copy;
    io.device = o->copy == PJDL_COPY_ALWAYS ? o->b->dev : NULL;
    for (int64_t i = 0; i < n && o->error[0] == '\0'; i++) {
        pjdl_buffer *v = NULL;
        if (op_ok(o, pjdl_import(&o->b->s->client, 1, &o->tensor, &io, &v)) &&
            o->copy == PJDL_COPY_ALWAYS)
            op_ok(o, pjdl_buffer_await(v));
        pjdl_buffer_release(v);
    }
}

/* Export, import of that tensor (a framework's round trip), release. */
static void loop_round_trip(void *arg, int64_t n) {
    op *o = arg;
    pjdl_export_options eo = PJDL_EXPORT_OPTIONS_INIT;
    pjdl_import_options io = PJDL_IMPORT_OPTIONS_INIT;
    io.copy = PJDL_COPY_NEVER;
    for (int64_t i = 0; i < n && o->error[0] == '\0'; i++) {
        DLManagedTensorVersioned *mt = NULL;
        pjdl_buffer *v = NULL;
        if (!op_ok(o, pjdl_buffer_export(o->buf, &eo, &mt)))
            break;
        if (!op_ok(o, pjdl_import(&o->b->s->client, 1, mt, &io, &v)))
            mt->deleter(mt);
        pjdl_buffer_release(v);
    }
}

/* Host -> device: pjdl_buffer_from_host until the buffer is ready. */
static void loop_h2d(void *arg, int64_t n) {
    op *o = arg;
    int64_t dims[1] = {(int64_t)(o->bytes / 4)};
    for (int64_t i = 0; i < n && o->error[0] == '\0'; i++) {
        pjdl_buffer *nb = NULL;
        if (op_ok(o, pjdl_buffer_from_host(o->b->s->client, o->host, PJRT_Buffer_Type_F32, dims, 1,
                                           NULL, NULL, &nb)))
            op_ok(o, pjdl_buffer_await(nb));
        pjdl_buffer_release(nb);
    }
}

static void loop_d2h(void *arg, int64_t n) {
    op *o = arg;
    for (int64_t i = 0; i < n && o->error[0] == '\0'; i++)
        op_ok(o, pjdl_buffer_to_host(o->buf, o->host, o->bytes));
}

/* Runs the cases interleaved, one operation of each per round. */
static void measure(bench_case *cases, size_t n, int64_t rounds) {
    bench_interleave(cases, n, rounds < INT_MAX ? (int)rounds : INT_MAX, 1);
}

/* -------------------------------------------------------------- sections */

/* The rows of the --size buffer after those of the 4 KiB one: why it failed
 * (its error; empty when it was not given), else, when `measured`, its time
 * and its ratio to the 4 KiB time (label: ratio_fmt of the size in KiB). */
static void large_rows(bench *b, const op *large, bool measured, const char *name,
                       const char *ratio_fmt, double large_ns, double small_ns) {
    if (large->error[0]) {
        na_row(b, name, large->error);
    } else if (measured) {
        add_row(b, name, b->iterations, large_ns, "ns");
        ratio_row(b, name_of(ratio_fmt, b->copy_bytes), large_ns, small_ns);
    }
}

/* Export + deleter of `buf` (and of `big`, a buffer of --size bytes, when
 * given), interleaved with a malloc + free pair of the export's size. */
static void bench_export(bench *b, pjdl_buffer *buf, pjdl_buffer *big) {
    progress(b, 1, "export");
    const char *name = "export + deleter (share)";
    const char *big_name = name_of("export + deleter (share, %zu KiB)", b->copy_bytes);
    op small = {.b = b, .buf = buf}, large = {.b = b, .buf = big};
    bench_case cases[] = {{NULL, loop_export, &small, 0},
                          {NULL, bench_loop_malloc, NULL, 0},
                          {NULL, loop_export, &large, 0}};
    measure(cases, big ? 3 : 2, b->iterations);
    if (small.error[0]) {
        na_row(b, name, small.error);
        return;
    }
    double s = cases[0].median_ns, m = cases[1].median_ns;
    add_row(b, name, b->iterations, s, "ns");
    add_row(b, "malloc + free (160 bytes)", b->iterations, m, "ns");
    ratio_row(b, "export / malloc+free", s, m);
    large_rows(b, &large, big != NULL, big_name, "export %zu KiB / 4 KiB", cases[2].median_ns, s);
}

/* Import as a view + release at 4 KiB and at --size, interleaved; then the
 * round trip export -> import -> release. */
static void bench_import(bench *b, pjdl_buffer *buf, pjdl_buffer *big) {
    progress(b, 2, "import");
    const char *name = "import view + release";
    const char *big_name = name_of("import view + release (%zu KiB)", b->copy_bytes);
    op small = {.b = b}, large = {.b = b};
    if (!op_view_of(&small, buf, BENCH_FLOATS)) {
        na_row(b, name, small.error);
        return;
    }
    bool big_ok = big != NULL && op_view_of(&large, big, (int64_t)(b->copy_bytes / 4));
    bench_case cases[] = {{NULL, loop_import, &small, 0}, {NULL, loop_import, &large, 0}};
    measure(cases, big_ok ? 2 : 1, b->iterations);
    if (small.error[0]) {
        na_row(b, name, small.error);
        return;
    }
    add_row(b, name, b->iterations, cases[0].median_ns, "ns");
    large_rows(b, &large, big_ok, big_name, "import %zu KiB / 4 KiB", cases[1].median_ns,
               cases[0].median_ns);
    op rt = {.b = b, .buf = buf};
    bench_case round[] = {{NULL, loop_round_trip, &rt, 0}};
    measure(round, 1, b->iterations);
    if (rt.error[0])
        na_row(b, "export -> import -> release", rt.error);
    else
        add_row(b, "export -> import -> release", b->iterations, round[0].median_ns, "ns");
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
    const char *copy_name = name_of("copy fallback import (%zu KiB)", size);
    const char *tr_name = name_of("transposed copy import (%zu KiB)", (size_t)(side * side * 4));
    if (src == NULL || dst == NULL) {
        na_row(b, copy_name, "out of memory");
        goto out;
    }
    memset(src, 0x5a, size);
    memset(dst, 0, size);
    DLDevice cpu = {kDLCPU, 0};
    op contig = {.b = b, .copy = PJDL_COPY_ALWAYS}, tr = {.b = b, .copy = PJDL_COPY_ALWAYS};
    op_tensor(&contig, src, cpu, (DLDataType){kDLUInt, 8, 1}, (int64_t)size);
    op_tensor(&tr, src, cpu, (DLDataType){kDLFloat, 32, 1}, side);
    tr.tensor.dl_tensor.ndim = 2;
    tr.shape[1] = side;
    tr.strides[0] = 1;
    tr.strides[1] = side;
    tr.tensor.dl_tensor.strides = tr.strides;
    bench_memcpy_arg ma = {dst, src, size};
    bench_case cases[] = {{NULL, loop_import, &contig, 0},
                          {NULL, bench_loop_memcpy, &ma, 0},
                          {NULL, loop_import, &tr, 0}};
    measure(cases, 3, reps);
    if (contig.error[0]) {
        na_row(b, copy_name, contig.error);
        goto out;
    }
    double copy_gbs = (double)size / cases[0].median_ns;
    double mem_gbs = (double)size / cases[1].median_ns;
    add_row(b, copy_name, reps, copy_gbs, "GB/s");
    add_row(b, name_of("memcpy (%zu KiB)", size), reps, mem_gbs, "GB/s");
    ratio_row(b, "copy fallback / memcpy", copy_gbs, mem_gbs);
    if (tr.error[0]) {
        na_row(b, tr_name, tr.error);
    } else {
        double tr_gbs = (double)(side * side * 4) / cases[2].median_ns;
        add_row(b, tr_name, reps, tr_gbs, "GB/s");
        ratio_row(b, "transposed copy / memcpy", tr_gbs, mem_gbs);
    }
out:
    free(src);
    free(dst);
}

/* Host -> device (pjdl_buffer_from_host until ready) and device -> host
 * (pjdl_buffer_to_host) of --size bytes, interleaved with memcpy. */
static void bench_transfers(bench *b) {
    progress(b, 4, "transfers");
    size_t size = b->copy_bytes / 4 * 4;
    int64_t dims[1] = {(int64_t)(size / 4)};
    int64_t reps = b->iterations < 10 ? b->iterations : 10;
    float *host = aligned_alloc(64, size + 64), *dst = aligned_alloc(64, size + 64);
    const char *h2d_name = name_of("host -> device (%zu KiB)", size);
    op h2d = {.b = b, .host = host, .bytes = size}, d2h = {.b = b, .host = dst, .bytes = size};
    if (host == NULL || dst == NULL) {
        na_row(b, h2d_name, "out of memory");
        goto out;
    }
    memset(host, 0x3c, size);
    memset(dst, 0, size);
    if (!op_ok(&d2h, pjdl_buffer_from_host(b->s->client, host, PJRT_Buffer_Type_F32, dims, 1, NULL,
                                           NULL, &d2h.buf)) ||
        !op_ok(&d2h, pjdl_buffer_await(d2h.buf))) {
        na_row(b, h2d_name, d2h.error);
        goto out;
    }
    bench_memcpy_arg ma = {dst, host, size};
    bench_case cases[] = {
        {NULL, loop_h2d, &h2d, 0}, {NULL, loop_d2h, &d2h, 0}, {NULL, bench_loop_memcpy, &ma, 0}};
    measure(cases, 3, reps);
    if (h2d.error[0] || d2h.error[0]) {
        na_row(b, h2d_name, h2d.error[0] ? h2d.error : d2h.error);
        goto out;
    }
    double mem_gbs = (double)size / cases[2].median_ns;
    double h = (double)size / cases[0].median_ns, d = (double)size / cases[1].median_ns;
    add_row(b, h2d_name, reps, h, "GB/s");
    add_row(b, name_of("device -> host (%zu KiB)", size), reps, d, "GB/s");
    ratio_row(b, "host -> device / memcpy", h, mem_gbs);
    ratio_row(b, "device -> host / memcpy", d, mem_gbs);
out:
    pjdl_buffer_release(d2h.buf);
    free(host);
    free(dst);
}

/* Two threads exporting distinct buffers, one pinned to each of two CPUs,
 * against one thread pinned to each in turn (the mean of the two: the CPUs
 * of a virtual machine need not be equally fast; bench_two_cpus), all
 * alternating. */
static void bench_threads(bench *b, pjdl_buffer *buf, pjdl_buffer *other) {
    progress(b, 5, "threads");
    const char *name = "one thread export + deleter";
    if (other == NULL) {
        na_row(b, name, "no second buffer");
        return;
    }
    op ops[2] = {{.b = b, .buf = buf}, {.b = b, .buf = other}};
    void *args[2] = {&ops[0], &ops[1]};
    int64_t reps = b->iterations < 9 ? b->iterations : 9;
    /* A window of 10 ms by default, 1 to 100 ms */
    double window_ms = b->iterations < 20 ? 1 : b->iterations > 2000 ? 100 : b->iterations / 20.0;
    int cpus[2];
    const int *on = bench_two_cpus(cpus) ? cpus : NULL, *on_b = on ? on + 1 : NULL;
    double one[9], two[9];
    for (int64_t i = 0; i < reps; i++) {
        double a = bench_parallel(loop_export, args, 1, on, 64, window_ms).wall;
        double b1 = bench_parallel(loop_export, args + 1, 1, on_b, 64, window_ms).wall;
        one[i] = (a + b1) / 2;
        two[i] = bench_parallel(loop_export, args, 2, on, 64, window_ms).wall;
        if (ops[0].error[0] || ops[1].error[0]) {
            na_row(b, name, ops[0].error[0] ? ops[0].error : ops[1].error);
            return;
        }
    }
    double r1 = bench_median(one, (size_t)reps), r2 = bench_median(two, (size_t)reps);
    add_row(b, name, reps, r1, "ops/s");
    add_row(b, "two threads export + deleter", reps, r2, "ops/s");
    ratio_row(b, "two threads / one thread", r2, r1);
}

/* ---------------------------------------------------------------- report */

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
    json_field_string(&w, "plugin", b->s->path);
    json_field_string(&w, "platform", pjdl_client_platform_name(b->s->client));
    json_key(&w, "results");
    json_begin_array(&w);
    for (size_t i = 0; i < b->nrows; i++) {
        row *r = &b->rows[i];
        json_begin_object(&w);
        json_field_string(&w, "name", r->name);
        json_field_int(&w, "iterations", r->iterations);
        json_key(&w, "median");
        if (r->value < 0)
            json_null(&w);
        else
            json_double(&w, r->value);
        json_field_string(&w, "unit", r->unit);
        if (r->note[0])
            json_field_string(&w, "note", r->note);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_end_object(&w);
    json_finish(&w);
}

/* A ready f32 buffer of `n` elements from `data` on the first device, or
 * NULL (the library's message says why). */
static pjdl_buffer *ready_buffer(bench *b, const float *data, int64_t n) {
    int64_t dims[1] = {n};
    pjdl_buffer *buf = NULL;
    if (pjdl_buffer_from_host(b->s->client, data, PJRT_Buffer_Type_F32, dims, 1, NULL, NULL,
                              &buf) != PJDL_OK ||
        pjdl_buffer_await(buf) != PJDL_OK) {
        pjdl_buffer_release(buf);
        return NULL;
    }
    return buf;
}

/* The sections on a 4 KiB buffer, a second one (threads) and one of --size
 * bytes (NULL when it cannot be made). */
static int run_sections(bench *b) {
    float *data = malloc(BENCH_FLOATS * sizeof *data);
    float *big_data = calloc(b->copy_bytes / 4 + 1, sizeof *big_data);
    pjdl_buffer *buf = NULL;
    int rc = CLI_EXIT_OK;
    if (data == NULL) {
        fprintf(stderr, "pjrt-dlpack: out of memory\n");
        rc = CLI_EXIT_INTERNAL;
        goto out;
    }
    for (int i = 0; i < BENCH_FLOATS; i++)
        data[i] = (float)i;
    if ((buf = ready_buffer(b, data, BENCH_FLOATS)) == NULL) {
        fprintf(stderr, "pjrt-dlpack: cannot create a buffer: %s\n", pjdl_last_error());
        rc = CLI_EXIT_FAILED;
        goto out;
    }
    pjdl_buffer *other = ready_buffer(b, data, BENCH_FLOATS);
    pjdl_buffer *big = big_data ? ready_buffer(b, big_data, (int64_t)(b->copy_bytes / 4)) : NULL;
    bench_export(b, buf, big);
    bench_import(b, buf, big);
    pjdl_buffer_release(big);
    bench_copy(b);
    bench_transfers(b);
    bench_threads(b, buf, other);
    pjdl_buffer_release(other);
out:
    pjdl_buffer_release(buf);
    free(data);
    free(big_data);
    return rc;
}

static void bench_step(bench_state *st, const char *step) {
    snprintf(st->step, sizeof st->step, "%s", step);
}

/* The child: the whole run, printed to stdout; `path` is the resolved
 * plugin (cli_run_watched). */
static int bench_child(const cli_args *args, const char *path, void *shared) {
    bench_state *st = shared;
    cli_session s = {0};
    s.args = args;
    snprintf(s.path, sizeof s.path, "%s", path);
    bench_step(st, "loading the plugin");
    if (cli_plugin_load(&s) != PJDL_OK)
        return CLI_EXIT_NO_PLUGIN;
    bench_step(st, "PJRT_Client_Create");
    if (cli_client_create(&s) != PJDL_OK) {
        cli_session_close(&s);
        return CLI_EXIT_NO_PLUGIN;
    }
    st->client_created = true;
    bench b = {0};
    b.s = &s;
    b.state = st;
    b.dev = pjdl_client_device(s.client, 0);
    b.iterations = args->iterations > 0 ? args->iterations : 200;
    b.copy_bytes = args->size_bytes > 0 ? (size_t)args->size_bytes : 4u << 20;
    int rc = CLI_EXIT_NO_PLUGIN;
    if (b.dev == NULL)
        fprintf(stderr, "pjrt-dlpack: the client has no device\n");
    else
        rc = run_sections(&b);
    progress_done(args->progress);
    if (rc == CLI_EXIT_OK && args->json)
        print_json(&b);
    else if (rc == CLI_EXIT_OK)
        print_table(&b);
    fflush(NULL); /* the report stands even if releasing the client crashes */
    bench_step(st, "releasing the client");
    cli_session_close(&s);
    return rc;
}

/* A child that did not finish: what happened, on stderr. Exit 3 before a
 * client existed, else 1 (README.md, "Exit status"). */
static int report_lost_child(const char *path, const bench_state *st, const cli_child_end *end,
                             int64_t limit_ms) {
    char what[512];
    cli_child_end_text(end, st->step, limit_ms, what, sizeof what);
    fprintf(stderr, "pjrt-dlpack: %s: %s\n", path[0] ? path : "(default)", what);
    return st->client_created ? CLI_EXIT_FAILED : CLI_EXIT_NO_PLUGIN;
}

/* How the child ended: its own exit status, or what killed it. */
static int bench_report(const cli_args *args, const char *path, void *shared,
                        const cli_child_end *end, int64_t limit_ms) {
    (void)args;
    if (!end->hung && WIFEXITED(end->status))
        return WEXITSTATUS(end->status);
    return report_lost_child(path, shared, end, limit_ms);
}

int cli_bench(const cli_args *args) {
    return cli_run_watched(args, sizeof(bench_state), bench_child, bench_report, NULL);
}
