/* pjdl_bench: the C benchmarks of libpjrt_dlpack against their floors.
 *
 * Every measurement interleaves the library and its baseline in the same
 * run (see bench_interleave) and reports medians. Result lines go to stdout
 * as "key<TAB>value<TAB>unit" (see bench/report.py):
 *
 *   export.1k / export.1g          export (share, ready buffer) + deleter, ns
 *   malloc                         malloc + free of an export's size, ns
 *   import.1k / import.1g          import (view) + release, ns
 *   plugin.view_pair.1k            the plugin's own CreateViewOfDeviceBuffer +
 *                                  PJRT_Buffer_Destroy of the 1 KiB tensor, ns:
 *                                  the part of import.1k that is the plugin's
 *   sweep.{view_export,view_import,copy_import,memcpy}.<bytes>   ns, for the plot
 *   copy.contig.{lib,memcpy}       256 MiB import copy vs memcpy, GB/s
 *   copy.transposed.{lib,memcpy}   4096x4096 f32 column-major import copy, GB/s
 *   xfer.{h2d,d2h,memcpy}          xpu host<->device, 256 MiB, GB/s: the plugin's
 *                                  BufferFromHostBuffer (one copy) and the
 *                                  library's pjdl_buffer_to_host
 *   xfer.lib_h2d                   the library's pjdl_buffer_from_host, GB/s (the
 *                                  plugin reuses the freed block of that size)
 *   xfer.lib_h2d_fresh             the same, a size not seen before each time: a
 *                                  fresh allocation, first touch and the copy
 *   threads.{one,two,ratio}        export + delete throughput, ops/s: one thread
 *                                  (the mean of one pinned to each of two CPUs)
 *                                  and two on distinct buffers, one pinned to
 *                                  each (wall clock, over a time window:
 *                                  bench_parallel), and two / one per round
 *   threads.cpu_{one,two,ratio}    the same from the threads' CPU time: the
 *                                  scaling with a free core per thread
 *   threads.machine_{one,two,ratio}  the same of a loop that shares nothing and
 *                                  touches no memory, but keeps a core's multiplier
 *                                  busy: the machine's own scaling (~1x when its
 *                                  two CPUs are the hardware threads of one core)
 *   threads.machine_cpu_{...}      the same from the threads' CPU time
 *   threads.relative               threads.ratio / threads.machine_ratio, per
 *                                  round (median)
 *   threads.window_ms              the window of each measurement
 *   threads.gap_bytes              the least distance between the starts of the
 *                                  objects the two threads' exports write
 *   threads.loadavg                the 1-minute load average at the end
 *   threads.attempts               how many measurements it took for the
 *                                  machine's own scaling to say two cores
 *                                  (THREAD_TWO_CORES; at most THREAD_ATTEMPTS)
 *   threads.one_{a,b}, threads.pinned  one thread's rate on each CPU; 1 if pinned
 *
 * Before each result measured in rounds, its per-round values
 * (bench_emit_rounds: "rounds<TAB>key<TAB>group<TAB>values"), which
 * report.py pairs round by round.
 *
 * --smoke runs everything once with tiny counts and sizes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_lib.h"
#include "bench_util.h"
#include "pjrt_dlpack.h"

typedef struct cfg {
    bool smoke;
    int rounds;    /* latency rounds */
    int64_t batch; /* latency batch */
    size_t big;    /* bytes of the "1 GiB" tensor */
    size_t copy;   /* bytes of the copy / transfer benchmarks */
    int64_t transposed_n;
} cfg;

/* Rows x cols of a float32 tensor of `bytes` bytes, as square as possible. */
static void shape_of(size_t bytes, int64_t *rows, int64_t *cols) {
    int64_t n = (int64_t)(bytes / 4), r = 1;
    while (r * r * 4 <= n)
        r *= 2;
    *rows = r;
    *cols = n / r;
}

/* ---------------------------------------------------------------- latency */

static bool latency(bench_env *env, const cfg *c) {
    size_t small = 1024, big = c->big;
    int64_t r1, c1, r2, c2;
    shape_of(small, &r1, &c1);
    shape_of(big, &r2, &c2);
    void *m1 = bench_host_alloc(small), *m2 = bench_host_alloc(big);
    bench_view *v1 = m1 ? bench_view_open(env, m1, r1, c1) : NULL;
    bench_view *v2 = m2 ? bench_view_open(env, m2, r2, c2) : NULL;
    bool ok = v1 && v2;
    if (ok) {
        bench_emit("shape.1k.rows", (double)r1, "");
        bench_emit("shape.1k.cols", (double)c1, "");
        bench_emit("shape.1g.rows", (double)r2, "");
        bench_emit("shape.1g.cols", (double)c2, "");
        bench_emit("big.bytes", (double)big, "bytes");
        bench_case cases[] = {
            {"malloc", bench_loop_malloc, NULL, 0},
            {"export.1k", bench_loop_export, v1, 0},
            {"export.1g", bench_loop_export, v2, 0},
            {"import.1k", bench_loop_import_view, v1, 0},
            {"import.1g", bench_loop_import_view, v2, 0},
            {"plugin.view_pair.1k", bench_loop_plugin_view_pair, v1, 0},
        };
        bench_interleave(cases, sizeof cases / sizeof cases[0], c->rounds, c->batch);
    }
    bench_view_close(v1);
    bench_view_close(v2);
    bench_host_free(m1, small);
    bench_host_free(m2, big);
    return ok;
}

/* ------------------------------------------------------------------ sweep */

/* Latency against size: view paths up to c->big, copy paths while the
 * source and destination fit in reason (c->copy). */
static bool sweep(bench_env *env, const cfg *c) {
    for (size_t bytes = 1024; bytes <= c->big; bytes *= 16) {
        int64_t rows, cols;
        shape_of(bytes, &rows, &cols);
        bool copy = bytes <= c->copy;
        void *src = bench_host_alloc(bytes);
        void *dst = copy ? bench_host_alloc(bytes) : NULL;
        if (dst != NULL)
            memset(dst, 0, bytes); /* fault it in: memcpy is the floor */
        bench_view *v = src ? bench_view_open(env, src, rows, cols) : NULL;
        if (v == NULL || (copy && dst == NULL)) {
            bench_view_close(v);
            bench_host_free(src, bytes);
            bench_host_free(dst, bytes);
            return false;
        }
        if (copy)
            memset(src, 0x3c, bytes); /* a copy reads it: make it real memory */
        char k[4][64];
        snprintf(k[0], sizeof k[0], "sweep.view_export.%zu", bytes);
        snprintf(k[1], sizeof k[1], "sweep.view_import.%zu", bytes);
        snprintf(k[2], sizeof k[2], "sweep.copy_import.%zu", bytes);
        snprintf(k[3], sizeof k[3], "sweep.memcpy.%zu", bytes);
        bench_memcpy_arg ma = {dst, src, bytes};
        bench_case cases[] = {
            {k[0], bench_loop_export, v, 0},
            {k[1], bench_loop_import_view, v, 0},
            {k[2], bench_loop_import_copy, v, 0},
            {k[3], bench_loop_memcpy, &ma, 0},
        };
        /* Copies of large sizes: fewer operations per batch. */
        int64_t batch = c->batch, cbatch = bytes >= (1u << 20) ? 1 : c->batch / 16 + 1;
        int rounds = c->smoke ? 1 : (bytes >= (16u << 20) ? 5 : 11);
        bench_interleave(cases, 2, c->rounds, batch);
        if (copy)
            bench_interleave(cases + 2, 2, rounds, cbatch);
        bench_view_close(v);
        bench_host_free(src, bytes);
        bench_host_free(dst, bytes);
    }
    return true;
}

/* ------------------------------------------------------------------ copies */

/* Import copy=ALWAYS of a rows x cols tensor (transposed or not) against
 * memcpy of the same bytes into memory already faulted in. */
static bool copy_bench(bench_env *env, const cfg *c, const char *name, int64_t rows, int64_t cols,
                       bool transposed) {
    size_t bytes = (size_t)(rows * cols) * 4;
    char *src = aligned_alloc(64, bytes), *dst = aligned_alloc(64, bytes);
    bench_view *v = NULL;
    if (src != NULL && dst != NULL) {
        memset(src, 0x3c, bytes);
        memset(dst, 0, bytes);
        v = bench_view_open(env, src, rows, cols);
    }
    if (v == NULL) {
        free(src);
        free(dst);
        return false;
    }
    if (transposed)
        bench_view_transpose(v);
    bench_memcpy_arg ma = {dst, src, bytes};
    char lib[64], mem[64];
    snprintf(lib, sizeof lib, "copy.%s.lib", name);
    snprintf(mem, sizeof mem, "copy.%s.memcpy", name);
    bench_case cases[] = {
        {lib, bench_loop_import_copy, v, 0},
        {mem, bench_loop_memcpy, &ma, 0},
    };
    bench_interleave_bytes(cases, 2, c->smoke ? 1 : 15, 1, bytes);
    bench_view_close(v);
    free(src);
    free(dst);
    return true;
}

/* ------------------------------------------------------- host <-> device */

typedef struct xfer_arg {
    bench_env *env;
    pjdl_client *client;
    void *host;
    int64_t dims[2];
    size_t bytes;
    pjdl_buffer *device; /* for d2h */
} xfer_arg;

/* pjdl_buffer_from_host of `rows` x dims[1] floats until ready. */
static void h2d_once(xfer_arg *a, int64_t rows) {
    const int64_t dims[2] = {rows, a->dims[1]};
    pjdl_buffer *b = NULL;
    if (pjdl_buffer_from_host(a->client, a->host, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, &b) !=
            PJDL_OK ||
        pjdl_buffer_await(b) != PJDL_OK) {
        fprintf(stderr, "bench: host to device failed: %s\n", pjdl_last_error());
        exit(1);
    }
    pjdl_buffer_release(b);
}

static void loop_h2d(void *arg, int64_t n) {
    xfer_arg *a = arg;
    for (int64_t i = 0; i < n; i++)
        h2d_once(a, a->dims[0]);
}

/* A size the plugin has not seen lately each time (its block cache keeps a
 * few sizes): allocation and first touch of fresh memory, then the copy.
 * 1 to 64 rows fewer than the source has, in turn. */
static void loop_h2d_fresh(void *arg, int64_t n) {
    xfer_arg *a = arg;
    static int64_t turn;
    for (int64_t i = 0; i < n; i++, turn++)
        h2d_once(a, a->dims[0] > 64 ? a->dims[0] - 1 - turn % 64 : a->dims[0]);
}

/* The plugin's own host-to-device transfer (PJRT_Client_BufferFromHostBuffer,
 * kImmutableUntilTransferCompletes: one copy, on the device's stream) until
 * the buffer is ready. */
static void loop_h2d_raw(void *arg, int64_t n) {
    xfer_arg *a = arg;
    const PJRT_Api *api = pjdl_plugin_api(pjdl_client_plugin(a->client));
    pjdl_device *dev = pjdl_client_device(a->client, 0);
    for (int64_t i = 0; i < n; i++) {
        PJRT_Client_BufferFromHostBuffer_Args h = {
            .struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE,
            .client = pjdl_client_pjrt(a->client),
            .data = a->host,
            .type = PJRT_Buffer_Type_F32,
            .dims = a->dims,
            .num_dims = 2,
            .host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes,
            .device = pjdl_device_pjrt(dev)};
        PJRT_Error *err = api->PJRT_Client_BufferFromHostBuffer(&h);
        PJRT_Buffer_ReadyEvent_Args r = {.struct_size = PJRT_Buffer_ReadyEvent_Args_STRUCT_SIZE,
                                         .buffer = h.buffer};
        if (err == NULL)
            err = api->PJRT_Buffer_ReadyEvent(&r);
        PJRT_Event_Await_Args w = {.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE,
                                   .event = r.event};
        if (err == NULL)
            err = api->PJRT_Event_Await(&w);
        if (err != NULL) {
            fprintf(stderr, "bench: PJRT_Client_BufferFromHostBuffer failed\n");
            exit(1);
        }
        PJRT_Event_Destroy_Args ed = {.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE};
        ed.event = r.event;
        api->PJRT_Event_Destroy(&ed);
        ed.event = h.done_with_host_buffer;
        if (ed.event != NULL)
            api->PJRT_Event_Destroy(&ed);
        PJRT_Buffer_Destroy_Args bd = {.struct_size = PJRT_Buffer_Destroy_Args_STRUCT_SIZE,
                                       .buffer = h.buffer};
        api->PJRT_Buffer_Destroy(&bd);
    }
}

static void loop_d2h(void *arg, int64_t n) {
    xfer_arg *a = arg;
    for (int64_t i = 0; i < n; i++)
        if (pjdl_buffer_to_host(a->device, a->host, a->bytes) != PJDL_OK) {
            fprintf(stderr, "bench: device to host failed: %s\n", pjdl_last_error());
            exit(1);
        }
}

static bool transfers(const char *plugin, const cfg *c) {
    bench_env *xpu = bench_env_open(plugin, "xpu");
    if (xpu == NULL)
        return false;
    size_t bytes = c->copy;
    xfer_arg a = {.env = xpu, .client = bench_env_client(xpu), .bytes = bytes};
    shape_of(bytes, &a.dims[0], &a.dims[1]);
    char *host = aligned_alloc(64, bytes), *dst = aligned_alloc(64, bytes);
    bool ok = host != NULL && dst != NULL;
    if (ok) {
        memset(host, 0x3c, bytes);
        memset(dst, 0, bytes);
        a.host = host;
        ok = pjdl_buffer_from_host(a.client, host, PJRT_Buffer_Type_F32, a.dims, 2, NULL, NULL,
                                   &a.device) == PJDL_OK &&
             pjdl_buffer_await(a.device) == PJDL_OK;
    }
    if (ok) {
        xfer_arg d2h = a;
        d2h.host = dst;
        bench_memcpy_arg ma = {dst, host, bytes};
        bench_case cases[] = {
            {"xfer.h2d", loop_h2d_raw, &a, 0},
            {"xfer.d2h", loop_d2h, &d2h, 0},
            {"xfer.memcpy", bench_loop_memcpy, &ma, 0},
            {"xfer.lib_h2d", loop_h2d, &a, 0},
            {"xfer.lib_h2d_fresh", loop_h2d_fresh, &a, 0},
        };
        bench_interleave_bytes(cases, 5, c->smoke ? 1 : 15, 1, bytes);
    } else {
        fprintf(stderr, "bench: transfers: %s\n", pjdl_last_error());
    }
    pjdl_buffer_release(a.device);
    free(host);
    free(dst);
    bench_env_close(xpu);
    return ok;
}

/* ---------------------------------------------------------------- threads */

#define THREAD_ROUNDS 15
/* The machine's own two-thread scaling (bench_loop_arith) that says two
 * cores, and how often and how far apart the thread rounds are measured
 * until it does (thread_rounds). */
#define THREAD_TWO_CORES 1.9
#define THREAD_ATTEMPTS 10
#define THREAD_PAUSE_S 3
/* The export writes a DLPack struct and its context (~100 bytes) and two
 * fields of its pjdl_buffer (within its first 200 bytes). */
#define BENCH_APART 512

/* One loop at one thread count, measured once per round: one thread on
 * the first CPU (cpu = 0) or on the second (1), or two threads, one on each
 * (cpu = -1); not pinned where the process has fewer than two CPUs. */
typedef struct thread_case {
    bench_loop_fn fn;
    void *const *args;
    int cpu;
    bench_rate rate[THREAD_ROUNDS];
} thread_case;

static double rate_of(const thread_case *t, int r, bool cpu_time) {
    return cpu_time ? t->rate[r].cpu : t->rate[r].wall;
}

/* The series of one loop (tc[0..2]: one thread on each CPU, then two):
 * one[r] is the mean of the two one-thread rates of round r, two[r] the
 * two threads' rate, ratio[r] two / one. */
static void per_round(const thread_case *tc, int rounds, bool cpu_time, double *one, double *two,
                      double *ratio) {
    for (int r = 0; r < rounds; r++) {
        one[r] = (rate_of(&tc[0], r, cpu_time) + rate_of(&tc[1], r, cpu_time)) / 2;
        two[r] = rate_of(&tc[2], r, cpu_time);
        ratio[r] = one[r] > 0 ? two[r] / one[r] : 0;
    }
}

/* <prefix>one, <prefix>two, <prefix>ratio: medians over the rounds; the
 * per-round ratios are left in `ratio`. */
static void emit_scaling(const char *prefix, const thread_case *tc, int rounds, bool cpu_time,
                         double *ratio) {
    double v1[THREAD_ROUNDS], v2[THREAD_ROUNDS], sorted[THREAD_ROUNDS];
    per_round(tc, rounds, cpu_time, v1, v2, ratio);
    memcpy(sorted, ratio, (size_t)rounds * sizeof *ratio);
    char k[64];
    int group = bench_group();
    snprintf(k, sizeof k, "%sone", prefix);
    bench_emit_rounds(k, group, v1, (size_t)rounds);
    bench_emit(k, bench_median(v1, (size_t)rounds), "ops/s");
    snprintf(k, sizeof k, "%stwo", prefix);
    bench_emit_rounds(k, group, v2, (size_t)rounds);
    bench_emit(k, bench_median(v2, (size_t)rounds), "ops/s");
    snprintf(k, sizeof k, "%sratio", prefix);
    bench_emit(k, bench_median(sorted, (size_t)rounds), "x");
}

/* threads.one_a / one_b: one thread's export rate on each CPU (medians),
 * threads.pinned: 1 if the threads were pinned. */
static void emit_cpus(const thread_case *tc, int rounds, bool pinned) {
    double a[THREAD_ROUNDS], b[THREAD_ROUNDS];
    for (int r = 0; r < rounds; r++) {
        a[r] = tc[0].rate[r].wall;
        b[r] = tc[1].rate[r].wall;
    }
    bench_emit("threads.one_a", bench_median(a, (size_t)rounds), "ops/s");
    bench_emit("threads.one_b", bench_median(b, (size_t)rounds), "ops/s");
    bench_emit("threads.pinned", pinned ? 1 : 0, "");
}

/* Every case of tc[0..6) once per round, the first rotating, after a
 * warm-up round of shorter windows; cpus NULL: not pinned. */
static void measure_rounds(thread_case *tc, int rounds, double window_ms, const int *cpus) {
    for (int i = 0; i < 6 * rounds + 6; i++) {
        int r = i / 6 - 1;
        thread_case *t = &tc[(i + (r < 0 ? 0 : r)) % 6];
        const int *on = !cpus ? NULL : t->cpu < 0 ? cpus : &cpus[t->cpu];
        bench_rate got = bench_parallel(t->fn, t->args, t->cpu < 0 ? 2 : 1, on, 256,
                                        r < 0 ? window_ms / 5 : window_ms);
        if (r >= 0)
            t->rate[r] = got;
    }
}

/* The median per-round two / one of one loop's series (tc[0..3)). */
static double scaling_of(const thread_case *tc, int rounds) {
    double one[THREAD_ROUNDS], two[THREAD_ROUNDS], ratio[THREAD_ROUNDS];
    per_round(tc, rounds, false, one, two, ratio);
    return bench_median(ratio, (size_t)rounds);
}

/* Export + delete by one thread on each CPU and by two (each on its own
 * buffer, one on each CPU), and the same of a loop that shares nothing (the
 * machine's own scaling), every case once per round. Measured again, up to
 * THREAD_ATTEMPTS times, while the machine's own scaling says its two CPUs
 * are not two cores (below THREAD_TWO_CORES: a virtual machine's two vCPUs
 * on the two hardware threads of one core, a phase that comes and goes),
 * since then no code scales; threads.attempts says how many it took. */
static void thread_rounds(bench_view *const *v, const cfg *c) {
    int rounds = c->smoke ? 1 : THREAD_ROUNDS;
    double window_ms = c->smoke ? 1 : 25;
    int cpus[2];
    bool pinned = bench_two_cpus(cpus);
    void *const exp_args[2] = {v[0], v[1]}, *const none[2] = {NULL, NULL};
    thread_case tc[6] = {
        {bench_loop_export, exp_args, 0, {{0, 0}}},  {bench_loop_export, exp_args + 1, 1, {{0, 0}}},
        {bench_loop_export, exp_args, -1, {{0, 0}}}, {bench_loop_arith, none, 0, {{0, 0}}},
        {bench_loop_arith, none, 1, {{0, 0}}},       {bench_loop_arith, none, -1, {{0, 0}}}};
    int attempt = 1;
    for (;; attempt++) {
        measure_rounds(tc, rounds, window_ms, pinned ? cpus : NULL);
        double m = scaling_of(tc + 3, rounds);
        if (c->smoke || m >= THREAD_TWO_CORES || attempt == THREAD_ATTEMPTS)
            break;
        fprintf(stderr,
                "bench: threads: the machine's own two-thread scaling is %.2fx, not two cores "
                "now; measuring again in %d s (attempt %d of %d)\n",
                m, THREAD_PAUSE_S, attempt + 1, THREAD_ATTEMPTS);
        sleep(THREAD_PAUSE_S);
    }
    double ours[THREAD_ROUNDS], machine[THREAD_ROUNDS], cpu[THREAD_ROUNDS];
    emit_scaling("threads.", tc, rounds, false, ours);
    emit_scaling("threads.cpu_", tc, rounds, true, cpu);
    emit_scaling("threads.machine_", tc + 3, rounds, false, machine);
    emit_scaling("threads.machine_cpu_", tc + 3, rounds, true, cpu);
    for (int r = 0; r < rounds; r++)
        ours[r] = machine[r] > 0 ? ours[r] / machine[r] : 0;
    bench_emit("threads.relative", bench_median(ours, (size_t)rounds), "x");
    bench_emit("threads.window_ms", window_ms, "ms");
    bench_emit("threads.attempts", attempt, "");
    emit_cpus(tc, rounds, pinned);
}

static bool threads(bench_env *env, const cfg *c) {
    void *m[2] = {bench_host_alloc(1024), bench_host_alloc(1024)};
    bench_view *v[2] = {NULL, NULL};
    /* The two threads' exports write no line in common (the library's
     * objects of two views may lie side by side): the second view is one
     * whose exports' blocks lie BENCH_APART bytes from the first's, more
     * than what one export writes from each start. */
    v[0] = m[0] ? bench_view_open(env, m[0], 16, 16) : NULL;
    v[1] = v[0] && m[1] ? bench_view_apart(env, v[0], m[1], 16, 16, BENCH_APART) : NULL;
    bool ok = v[0] && v[1];
    if (ok) {
        thread_rounds(v, c);
        bench_emit("threads.gap_bytes", (double)bench_views_gap(v[0], v[1]), "bytes");
        double load[3];
        if (getloadavg(load, 3) == 3)
            bench_emit("threads.loadavg", load[0], "");
    }
    for (int i = 0; i < 2; i++) {
        bench_view_close(v[i]);
        bench_host_free(m[i], 1024);
    }
    return ok;
}

int main(int argc, char **argv) {
    bench_args args;
    if (!bench_args_parse(argc, argv, &args))
        return 2;
    cfg c = {.smoke = args.smoke,
             .rounds = args.rounds ? args.rounds : 101,
             .batch = 2000,
             .big = (size_t)1 << 30,
             .copy = (size_t)256 << 20,
             .transposed_n = 4096};
    if (args.smoke) {
        c.rounds = 1;
        c.batch = 2;
        c.big = (size_t)1 << 20;
        c.copy = (size_t)64 << 10;
        c.transposed_n = 64;
    }
    bench_env *env = bench_env_open(args.plugin, "cpu");
    if (env == NULL)
        return 3;
    bool ok = !bench_args_want(&args, "latency") || latency(env, &c);
    ok = ok && (!bench_args_want(&args, "sweep") || sweep(env, &c));
    int64_t rows, cols;
    shape_of(c.copy, &rows, &cols);
    if (bench_args_want(&args, "copy"))
        ok = ok && copy_bench(env, &c, "contig", rows, cols, false) &&
             copy_bench(env, &c, "transposed", c.transposed_n, c.transposed_n, true);
    ok = ok && (!bench_args_want(&args, "threads") || threads(env, &c));
    bench_env_close(env);
    ok = ok && (!bench_args_want(&args, "transfers") || transfers(args.plugin, &c));
    if (!ok)
        fprintf(stderr, "pjdl_bench: a benchmark could not run (see above)\n");
    return ok ? 0 : 1;
}
