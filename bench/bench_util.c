/* Timing, medians and result lines (see bench_util.h). */
#define _GNU_SOURCE /* pthread_attr_setaffinity_np, sched_getaffinity */
#include "bench_util.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *v, size_t n) {
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

void bench_emit(const char *key, double value, const char *unit) {
    printf("%s\t%.6g\t%s\n", key, value, unit);
    fflush(stdout);
}

int bench_group(void) {
    static atomic_int last;
    return atomic_fetch_add(&last, 1) + 1;
}

void bench_emit_rounds(const char *key, int group, const double *v, size_t n) {
    printf("rounds\t%s\t%ld.%d\t", key, (long)getpid(), group);
    for (size_t i = 0; i < n; i++)
        printf(i ? " %.6g" : "%.6g", v[i]);
    printf("\n");
    fflush(stdout);
}

/* A keyed case's result and rounds, from its per-round times v[0..n)
 * (overwritten). */
static void emit_case(const char *key, size_t bytes, double *v, size_t n, int group) {
    if (bytes)
        for (size_t i = 0; i < n; i++)
            v[i] = v[i] > 0 ? (double)bytes / v[i] : 0;
    bench_emit_rounds(key, group, v, n);
    bench_emit(key, bench_median(v, n), bytes ? "GB/s" : "ns");
}

void bench_interleave(bench_case *cases, size_t ncases, int rounds, int64_t batch) {
    bench_interleave_bytes(cases, ncases, rounds, batch, 0);
}

void bench_interleave_bytes(bench_case *cases, size_t ncases, int rounds, int64_t batch,
                            size_t bytes) {
    if (rounds < 1)
        rounds = 1;
    if (batch < 1)
        batch = 1;
    double *samples = calloc((size_t)rounds * (ncases + 1), sizeof *samples);
    if (samples == NULL) {
        fprintf(stderr, "bench: out of memory\n");
        exit(4);
    }
    for (size_t c = 0; c < ncases; c++)
        cases[c].fn(cases[c].arg, batch);
    for (int r = 0; r < rounds; r++) {
        for (size_t k = 0; k < ncases; k++) {
            size_t c = (k + (size_t)r) % ncases;
            uint64_t t0 = bench_now_ns();
            cases[c].fn(cases[c].arg, batch);
            uint64_t t1 = bench_now_ns();
            samples[c * (size_t)rounds + (size_t)r] = (double)(t1 - t0) / (double)batch;
        }
    }
    int group = bench_group();
    double *scratch = samples + ncases * (size_t)rounds;
    for (size_t c = 0; c < ncases; c++) {
        double *v = samples + c * (size_t)rounds;
        if (cases[c].key != NULL) {
            memcpy(scratch, v, (size_t)rounds * sizeof *v);
            emit_case(cases[c].key, bytes, scratch, (size_t)rounds, group);
        }
        cases[c].median_ns = bench_median(v, (size_t)rounds);
    }
    free(samples);
}

void bench_loop_malloc(void *unused, int64_t n) {
    (void)unused;
    static volatile size_t size = 160;
    for (int64_t i = 0; i < n; i++) {
        void *p = malloc(size);
        BENCH_SINK(p);
        free(p);
    }
}

void bench_loop_memcpy(void *arg, int64_t n) {
    bench_memcpy_arg *a = arg;
    for (int64_t i = 0; i < n; i++) {
        memcpy(a->dst, a->src, a->bytes);
        BENCH_SINK(a->dst);
    }
}

void bench_loop_arith(void *unused, int64_t n) {
    (void)unused;
    uint64_t x[8];
    for (int j = 0; j < 8; j++)
        x[j] = (uint64_t)n + (uint64_t)j;
    for (int64_t i = 0; i < n; i++) {
        for (int k = 0; k < 4; k++) {
            for (int j = 0; j < 8; j++) { /* eight chains at once, each in a register */
                x[j] = x[j] * 6364136223846793005u + 1442695040888963407u;
                __asm__ volatile("" : "+r"(x[j]));
            }
        }
    }
    BENCH_SINK(x[0] ^ x[1] ^ x[2] ^ x[3] ^ x[4] ^ x[5] ^ x[6] ^ x[7]);
}

/* What the threads of one bench_parallel share: written by the main thread
 * (go, stop) or once per thread (ready), each on a line of its own. */
typedef struct window_shared {
    _Alignas(64) atomic_int ready;
    _Alignas(64) atomic_bool go;
    _Alignas(64) atomic_bool stop;
} window_shared;

/* One worker; a cache line of its own (it writes its results here once). */
typedef struct window_thread {
    _Alignas(64) window_shared *s;
    bench_loop_fn fn;
    void *arg;
    int64_t chunk;
    int64_t ops;    /* out: operations completed from go to the end */
    uint64_t t_end; /* out: when the last chunk ended */
    double cpu_ns;  /* out: the thread's CPU time from go to the end */
} window_thread;

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static double thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Running before go (spinning, so that no thread is asleep when the window
 * opens), then whole chunks until stop: the last chunk ends after it. */
static void *window_main(void *p) {
    window_thread *t = p;
    atomic_fetch_add(&t->s->ready, 1);
    while (!atomic_load_explicit(&t->s->go, memory_order_acquire))
        cpu_relax();
    double c0 = thread_cpu_ns();
    int64_t ops = 0;
    do {
        t->fn(t->arg, t->chunk);
        ops += t->chunk;
    } while (!atomic_load_explicit(&t->s->stop, memory_order_relaxed));
    t->t_end = bench_now_ns();
    t->cpu_ns = thread_cpu_ns() - c0;
    t->ops = ops;
    return NULL;
}

static void sleep_until_ns(uint64_t t) {
    struct timespec ts = {(time_t)(t / 1000000000u), (long)(t % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
        ;
}

bool bench_two_cpus(int cpus[2]) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return false;
    int n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    return n == 2;
}

/* Starts worker i, pinned to cpus[i] unless cpus is NULL. */
static bool start_worker(pthread_t *th, window_thread *wt, const int *cpus, int i) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
        return false;
    bool ok = true;
    if (cpus) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpus[i], &set);
        ok = pthread_attr_setaffinity_np(&attr, sizeof set, &set) == 0;
    }
    ok = ok && pthread_create(th, &attr, window_main, wt) == 0;
    pthread_attr_destroy(&attr);
    if (!ok && cpus)
        fprintf(stderr, "bench: cannot start thread %d pinned to CPU %d\n", i + 1, cpus[i]);
    else if (!ok)
        fprintf(stderr, "bench: cannot start thread %d\n", i + 1);
    return ok;
}

bench_rate bench_parallel(bench_loop_fn fn, void *const *args, int nthreads, const int *cpus,
                          int64_t chunk, double window_ms) {
    window_shared s;
    pthread_t th[BENCH_MAX_THREADS];
    window_thread wt[BENCH_MAX_THREADS];
    if (nthreads > BENCH_MAX_THREADS)
        nthreads = BENCH_MAX_THREADS;
    atomic_store(&s.ready, 0);
    atomic_store(&s.go, false);
    atomic_store(&s.stop, false);
    for (int i = 0; i < nthreads; i++) {
        wt[i] = (window_thread){&s, fn, args[i], chunk > 0 ? chunk : 1, 0, 0, 0};
        if (!start_worker(&th[i], &wt[i], cpus, i)) {
            nthreads = i; /* those running count; the rate says the rest is missing */
            break;
        }
    }
    /* Waiting asleep, not spinning: a runnable main thread would take a
     * core from a worker, which might then start late. */
    while (atomic_load(&s.ready) < nthreads)
        sleep_until_ns(bench_now_ns() + 100000);
    uint64_t t_go = bench_now_ns();
    atomic_store_explicit(&s.go, true, memory_order_release);
    sleep_until_ns(t_go + (uint64_t)(window_ms * 1e6));
    atomic_store_explicit(&s.stop, true, memory_order_relaxed);
    bench_rate rate = {0, 0};
    for (int i = 0; i < nthreads; i++) {
        pthread_join(th[i], NULL);
        if (wt[i].t_end > t_go)
            rate.wall += (double)wt[i].ops * 1e9 / (double)(wt[i].t_end - t_go);
        if (wt[i].cpu_ns > 0)
            rate.cpu += (double)wt[i].ops * 1e9 / wt[i].cpu_ns;
    }
    return rate;
}

bool bench_args_parse(int argc, char **argv, bench_args *out) {
    memset(out, 0, sizeof *out);
    out->plugin = getenv("PJRT_REF_PLUGIN");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--smoke") == 0) {
            out->smoke = true;
        } else if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc) {
            out->plugin = argv[++i];
        } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            out->rounds = atoi(argv[++i]);
            if (out->rounds < 1) {
                fprintf(stderr, "%s: --rounds needs a positive number\n", argv[0]);
                return false;
            }
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            out->only = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--smoke] [--plugin PATH] [--rounds N] [--only NAME]\n",
                    argv[0]);
            return false;
        }
    }
    if (getenv("PJDL_BENCH_SMOKE") != NULL)
        out->smoke = true;
    return true;
}

bool bench_args_want(const bench_args *args, const char *name) {
    return args->only == NULL || strcmp(args->only, name) == 0;
}
