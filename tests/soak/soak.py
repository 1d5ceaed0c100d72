"""The Python module under load for a while (make soak, scripts/soak.sh).

    python3 soak.py SECONDS      (PJRT_REF_PLUGIN, PJRT_XLA_CPU_PLUGIN set)

Four threads loop over the module's moves with NumPy and PyTorch as
producers and consumers, on the reference plugin's cpu client, on its xpu
client (slow transfers, every 97th failing: the plugin's faults) and on
XLA's CPU plugin: NumPy and PyTorch arrays imported as views and as copies,
buffers read by np.from_dlpack, torch.from_dlpack and to_bytes, every value
checked. Each NumPy array handed to the module carries a finalizer: the
module must let go of it exactly when its buffer goes.

Every 10 s the threads stop holding nothing; with the garbage collected and
every finalizer run, the anonymous resident memory is read (malloc_trim
first; statm's resident less shared, as in soak.c). The
first stop after the warm-up (a fifth of the run, at most 60 s) is the
baseline. Exit 1 if the memory grows more than 1 MiB past it, a finalizer
never runs, a value is wrong, an operation fails other than by an injected
fault, or the operations per second of the last quarter fall below half
those of the first. One line of figures (docs/reliability.md).
"""
import ctypes
import gc
import os
import sys
import threading
import time
import weakref

import numpy as np
import torch

import pjrt_dlpack

THREADS = 4
PERIOD_S = 10
N = 96
GROWTH_LIMIT = 1 << 20
LIBC = ctypes.CDLL("libc.so.6")


class Soak:
    def __init__(self):
        ref = pjrt_dlpack.load_plugin(os.environ["PJRT_REF_PLUGIN"])
        xla = pjrt_dlpack.load_plugin(os.environ["PJRT_XLA_CPU_PLUGIN"])
        self.cpu = ref.client(platform="cpu")
        self.xpu = ref.client(platform="xpu", transfer_delay_us=50, fail_transfer_every=97)
        self.xla = xla.client()
        self.lock = threading.Lock()
        self.cv = threading.Condition(self.lock)
        self.pause = self.stop = False
        self.paused = 0
        self.counts = dict(ops=0, faults=0, wrong=0, other=0, made=0, finalized=0)
        self.first_error = None

    def count(self, key, error=None):
        with self.lock:
            self.counts[key] += 1
            if error is not None and self.first_error is None:
                self.first_error = error

    def finalized(self):
        self.count("finalized")

    def source(self, seed):
        """A NumPy array of the pattern, its finalizer counted."""
        a = np.arange(N, dtype=np.float32) + np.float32(seed % 100000)
        self.count("made")
        weakref.finalize(a, self.finalized)
        return a

    def check(self, got, seed, what):
        want = np.arange(N, dtype=np.float32) + np.float32(seed % 100000)
        if not np.array_equal(np.asarray(got, dtype=np.float32).reshape(-1), want):
            self.count("wrong", f"{what}: wrong values")

    def one_op(self, i, seed):
        op = i % 5
        client = self.xla if i % 2 else self.cpu
        if op == 0:  # a NumPy array viewed, read back by NumPy
            buf = client.from_dlpack(self.source(seed))
            self.check(np.from_dlpack(buf), seed, "np.from_dlpack of a view")
        elif op == 1:  # a PyTorch tensor imported, read back by PyTorch
            buf = client.from_dlpack(torch.from_numpy(self.source(seed)))
            self.check(torch.from_dlpack(buf).numpy(), seed, "torch.from_dlpack")
        elif op == 2:  # a copy, read by to_bytes
            buf = client.from_dlpack(self.source(seed), copy=True)
            self.check(np.frombuffer(buf.to_bytes(), np.float32), seed, "to_bytes of a copy")
        elif op == 3:  # the xpu: slow transfers, some failing
            buf = self.xpu.buffer(self.source(seed))
            self.check(np.frombuffer(buf.to_bytes(), np.float32), seed, "xpu to_bytes")
        else:  # an export deleted while NumPy holds it
            buf = client.buffer(self.source(seed))
            back = np.from_dlpack(buf)
            buf.delete()
            self.check(back, seed, "np.from_dlpack of a deleted buffer")

    def work(self, index):
        i = 0
        while True:
            with self.lock:
                while self.pause:
                    self.paused += 1
                    self.cv.notify_all()
                    self.cv.wait()
                    self.paused -= 1
                if self.stop:
                    return
            seed = index * 1000003 + i
            try:
                self.one_op(i, seed)
                self.count("ops")
            except pjrt_dlpack.Error as e:
                injected = i % 5 == 3 and "INTERNAL" in str(e)
                self.count("faults" if injected else "other", None if injected else str(e))
            i += 1

    def snapshot(self, running=True):
        """Workers stopped holding nothing (or ended: running False), garbage
        collected, every finalizer run: anonymous resident bytes."""
        with self.lock:
            self.pause = running
            while running and self.paused < THREADS:
                self.cv.wait()
        gc.collect()
        for _ in range(3000):
            with self.lock:
                if self.counts["finalized"] == self.counts["made"]:
                    break
            time.sleep(0.01)
            gc.collect()
        LIBC.malloc_trim(0)
        with open("/proc/self/statm") as f:
            pages = f.read().split()
        rss = (int(pages[1]) - int(pages[2])) * os.sysconf("SC_PAGE_SIZE")
        with self.lock:
            self.pause = False
            self.cv.notify_all()
        return rss


def main():
    seconds = float(sys.argv[1])
    s = Soak()
    threads = [threading.Thread(target=s.work, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    start = time.monotonic()
    warm = min(seconds / 5, 60)
    base = None
    rates, growth, most = [], 0, 0
    mark, ops_mark = start, 0
    while time.monotonic() - start < seconds:
        left = seconds - (time.monotonic() - start)
        step = warm - (time.monotonic() - start) if base is None else PERIOD_S
        time.sleep(max(0, min(step, left)))
        rss = s.snapshot()
        t = time.monotonic()
        print(f"soak python: {t - start:.0f} s: {s.counts['ops']} operations, "
              f"anonymous resident {rss / 1048576:.3f} MiB", file=sys.stderr)
        if base is None:
            base = rss
        else:
            rates.append((s.counts["ops"] - ops_mark) / (t - mark))
            growth = rss - base
            most = max(most, growth)
        mark, ops_mark = time.monotonic(), s.counts["ops"]
    with s.lock:
        s.stop = True
        s.cv.notify_all()
    for t in threads:
        t.join()
    s.snapshot(running=False)
    c = s.counts
    q = max(1, len(rates) // 4)
    first = sum(rates[:q]) / q if rates else 0
    last = sum(rates[-q:]) / q if rates else 0
    never = c["made"] - c["finalized"]
    ok = (rates and c["wrong"] == 0 and c["other"] == 0 and never == 0
          and most <= GROWTH_LIMIT and last >= first / 2)
    print(f"soak python: {seconds:.0f} s, {THREADS} threads, {c['ops']} operations (NumPy and "
          f"PyTorch, the reference plugin's cpu and xpu, XLA's CPU plugin), {c['faults']} "
          f"plugin faults survived, {c['wrong']} wrong values, {c['made']} arrays handed to the "
          f"module, {never} never let go, {c['other']} other failures; anonymous resident "
          f"{base / 1048576:.1f} MiB after warm-up, growth {growth / 1048576:+.3f} MiB at the "
          f"end (most {most / 1048576:+.3f} MiB); {first:.0f} ops/s in the first quarter, "
          f"{last:.0f} in the last ({last / first if first else 0:.2f}x): "
          f"{'PASS' if ok else 'FAIL'}")
    if s.first_error:
        print(f"soak python: first error: {s.first_error}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
