/* Timing, medians and result lines (see bench_util.h). */
#include "bench_util.h"

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
