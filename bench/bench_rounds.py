"""The Python benchmarks' harness (bench_python.py, bench_python_modern.py),
as bench_util.c's bench_interleave is the C benchmarks':

- interleave(cases, rounds, numbers): each round runs every case once,
  `numbers[key]` calls timed together, the first case rotating; the
  measuring thread is pinned to one CPU first (the first this process may
  run on), so that no round is split between two CPUs that run at
  different speeds (a virtual machine's vCPUs need not: bench/README.md);
  threads started before, such as JAX's, stay where they were.
- calibrate(fn, budget_s, cap): calls per round so that one case takes
  about budget_s (at most cap).
- emit(cases, samples): per case a line "rounds<TAB>key<TAB>group<TAB>v1 v2
  ..." (its per-call times in ns, round by round; one group for the
  process, see bench_util.h) and the result line "key<TAB>median<TAB>ns".
"""
import os
import statistics
import time
import timeit


def calibrate(fn, budget_s, cap):
    """Calls per round so that one case takes about budget_s."""
    n, start = 0, time.perf_counter()
    while n < cap and time.perf_counter() - start < budget_s:
        fn()
        n += 1
    return max(1, n)


def interleave(cases, rounds, numbers, pin=True):
    """{key: [ns per call, one per round]} of cases [(key, fn)]."""
    if pin and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    samples = {key: [] for key, _ in cases}
    for r in range(rounds):
        for k in range(len(cases)):
            key, fn = cases[(k + r) % len(cases)]
            n = numbers[key]
            samples[key].append(timeit.timeit(fn, number=n) / n * 1e9)
    return samples


def emit(cases, samples):
    group = f"{os.getpid()}.1"
    for key, _ in cases:
        values = " ".join(f"{v:.6g}" for v in samples[key])
        print(f"rounds\t{key}\t{group}\t{values}", flush=True)
        print(f"{key}\t{statistics.median(samples[key]):.6g}\tns", flush=True)
