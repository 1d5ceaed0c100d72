/* Timing, medians and result lines (see bench_util.h). */
#include "bench_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

void bench_interleave(bench_case *cases, size_t ncases, int rounds, int64_t batch) {
    if (rounds < 1)
        rounds = 1;
    if (batch < 1)
        batch = 1;
    double *samples = calloc((size_t)rounds * ncases, sizeof *samples);
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
    for (size_t c = 0; c < ncases; c++) {
        cases[c].median_ns = bench_median(samples + c * (size_t)rounds, (size_t)rounds);
        if (cases[c].key != NULL)
            bench_emit(cases[c].key, cases[c].median_ns, "ns");
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

typedef struct parallel_thread {
    bench_loop_fn fn;
    void *arg;
    int64_t n;
    pthread_barrier_t *start;
    double cpu_ns;   /* out: the thread's CPU time for its loop */
    uint64_t t0, t1; /* out: the thread's own start and end */
} parallel_thread;

static double thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *parallel_main(void *p) {
    parallel_thread *t = p;
    pthread_barrier_wait(t->start);
    t->t0 = bench_now_ns();
    double c0 = thread_cpu_ns();
    t->fn(t->arg, t->n);
    t->cpu_ns = thread_cpu_ns() - c0;
    t->t1 = bench_now_ns();
    return NULL;
}

double bench_parallel(bench_loop_fn fn, void *const *args, int nthreads, int64_t n,
                      double *cpu_rate) {
    pthread_t th[BENCH_MAX_THREADS];
    parallel_thread pt[BENCH_MAX_THREADS];
    pthread_barrier_t start;
    if (nthreads > BENCH_MAX_THREADS)
        nthreads = BENCH_MAX_THREADS;
    pthread_barrier_init(&start, NULL, (unsigned)nthreads + 1);
    for (int i = 0; i < nthreads; i++) {
        pt[i] = (parallel_thread){fn, args[i], n, &start, 0, 0, 0};
        pthread_create(&th[i], NULL, parallel_main, &pt[i]);
    }
    pthread_barrier_wait(&start);
    /* From the first thread's start to the last one's end: this thread may
     * not get a core back before the workers are done. */
    uint64_t t0 = UINT64_MAX, t1 = 0;
    double cpu = 0;
    for (int i = 0; i < nthreads; i++) {
        pthread_join(th[i], NULL);
        t0 = pt[i].t0 < t0 ? pt[i].t0 : t0;
        t1 = pt[i].t1 > t1 ? pt[i].t1 : t1;
        cpu = pt[i].cpu_ns > cpu ? pt[i].cpu_ns : cpu;
    }
    pthread_barrier_destroy(&start);
    double ops = (double)nthreads * (double)n;
    if (cpu_rate != NULL)
        *cpu_rate = cpu > 0 ? ops * 1e9 / cpu : 0;
    return t1 > t0 ? ops * 1e9 / (double)(t1 - t0) : 0;
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
