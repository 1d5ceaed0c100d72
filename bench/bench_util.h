/* bench_util.h — timing, medians and result lines shared by the benchmarks.
 *
 * Plain C with no DLPack or PJRT types, so that the C++ benchmark against
 * libtorch (whose own dlpack.h clashes with ours) can include it too. The
 * pjrt-dlpack command's `bench` (tools/bench.c) measures with it as well.
 *
 * Every benchmark prints its results as lines "key<TAB>value<TAB>unit" on
 * stdout; bench/report.py turns them into the table and the plot. */
#ifndef PJDL_BENCH_UTIL_H
#define PJDL_BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Monotonic clock in nanoseconds. */
uint64_t bench_now_ns(void);

/* Median of v[0..n) (sorts v in place); 0 for n == 0. */
double bench_median(double *v, size_t n);

/* One result line: "key\tvalue\tunit". */
void bench_emit(const char *key, double value, const char *unit);

/* The values of one result round by round (in its unit, rounds in order),
 * so that bench/report.py can pair two results measured in the same rounds:
 * a line "rounds\tkey\tgroup\tv1 v2 ...", the group "<pid>.<n>" with n
 * from bench_group(), one number for every result of one measurement.
 * report.py gives a row whose value and baseline share a group the median
 * of their per-round ratios (a slow phase of the machine then moves both
 * sides of a round), and other rows the ratio of the medians. */
int bench_group(void);
void bench_emit_rounds(const char *key, int group, const double *v, size_t n);

/* Runs `fn(arg, n)`, which repeats one operation n times. */
typedef void (*bench_loop_fn)(void *arg, int64_t n);

typedef struct bench_case {
    const char *key; /* result key; NULL: measure, do not print */
    bench_loop_fn fn;
    void *arg;
    double median_ns; /* out: median over rounds of the per-operation time */
} bench_case;

/* Measures the cases interleaved: `rounds` rounds, each running every case
 * once for `batch` operations (the first case of each round rotates, so that
 * no case always follows the same one); the per-operation time of a case is
 * its batch time / batch, and its result the median over the rounds. One
 * untimed warm-up batch of each case comes first. Prints a line per case
 * with a key (unit "ns"), and its rounds (bench_emit_rounds, one group for
 * the call). */
void bench_interleave(bench_case *cases, size_t ncases, int rounds, int64_t batch);
/* The same for operations of `bytes` bytes each: the lines are bandwidths
 * (bytes / time, unit "GB/s"); median_ns is still the time. */
void bench_interleave_bytes(bench_case *cases, size_t ncases, int rounds, int64_t batch,
                            size_t bytes);

/* Loops of the baselines, for bench_interleave. */
/* malloc + free of the size the library allocates per exported tensor (its
 * DLPack struct, context, shape and strides of a 2-d tensor: 160 bytes). */
void bench_loop_malloc(void *unused, int64_t n);
/* memcpy of `bytes` bytes (arg: a bench_memcpy_arg). */
typedef struct bench_memcpy_arg {
    void *dst;
    const void *src;
    size_t bytes;
} bench_memcpy_arg;
void bench_loop_memcpy(void *arg, int64_t n);

/* One op of pure arithmetic (32 multiply-adds, eight independent chains in
 * registers, which keep a core's multiplier busy every cycle): shares
 * nothing and touches no memory, so that two threads of it scale as far as
 * the machine gives them two cores. Two hardware threads of one core (a
 * virtual machine's two vCPUs may be placed there) get ~1x; one chain at a
 * time would get 2x there too, and hide it. arg: unused. */
void bench_loop_arith(void *unused, int64_t n);

/* Operations per second of `nthreads` threads (at most BENCH_MAX_THREADS)
 * over a time window. Thread i repeats fn(args[i], chunk). The threads are
 * all started and spinning before the window opens (no thread is still
 * waking up when it does); each counts the operations it completes from
 * the window's opening until it sees the window closed (after window_ms, on
 * the main thread's clock), ending with the chunk it is in. A thread's rate
 * is its count over the time from the opening to its own last chunk's end;
 * `wall` is the sum of the threads' rates, and `cpu` the same with each
 * thread's CPU time in place of that time, i.e. what the wall clock would
 * show if every thread had a core of its own. Thread i is pinned to CPU
 * cpus[i] (cpus NULL: where the scheduler puts it); a thread that cannot be
 * pinned there is not started (a message on stderr), and the rate is that
 * of those running. */
#define BENCH_MAX_THREADS 16
typedef struct bench_rate {
    double wall, cpu; /* ops/s */
} bench_rate;
bench_rate bench_parallel(bench_loop_fn fn, void *const *args, int nthreads, const int *cpus,
                          int64_t chunk, double window_ms);

/* The first two CPUs this process may run on, for bench_parallel: false
 * if it may run on fewer than two. A scaling figure compares two threads,
 * one pinned to each, with one thread pinned to each in turn: on a virtual
 * machine the two CPUs need not be equally fast (a vCPU whose host core's
 * other hardware thread is busy runs slower), and one thread left to the
 * scheduler lands on either. */
bool bench_two_cpus(int cpus[2]);

/* Command-line options every benchmark accepts:
 *   --smoke         one round of a tiny batch: proves it runs, measures nothing
 *   --plugin PATH   the PJRT plugin (default: $PJRT_REF_PLUGIN, else the
 *                   library's default)
 *   --rounds N      rounds of each interleaved measurement
 *   --only NAME     run only the named part (pjdl_bench: latency, sweep, copy,
 *                   threads, transfers), e.g. under a profiler
 * Returns false (after a message on stderr) on a bad command line. */
typedef struct bench_args {
    bool smoke;
    const char *plugin;
    int rounds;       /* 0: the benchmark's default */
    const char *only; /* NULL: everything */
} bench_args;

bool bench_args_parse(int argc, char **argv, bench_args *out);

/* Whether the part `name` is to run. */
bool bench_args_want(const bench_args *args, const char *name);

/* Keeps the compiler from proving a value unused. */
#define BENCH_SINK(p) __asm__ volatile("" : : "r"(p) : "memory")

#ifdef __cplusplus
}
#endif

#endif
