"""Threaded stress of the module against PyTorch and NumPy.

Eight Python threads share a few buffers of a cpu and a slow xpu client and,
for a bounded number of rounds, export them to torch and numpy, import torch
tensors and numpy arrays (views on cpu, copies onto xpu), read them back,
delete and replace them. The module releases the GIL in every call that may
wait, so the threads really overlap, and DLPack deleters run on whichever
thread lets go last. At the end every thread finished, no operation failed
other than with the module's own errors about deleted buffers, every value
read was right, and every producer's reference count is back where it
started (each import's deleter ran exactly once).
"""
import gc
import random
import sys
import threading
import time

import numpy as np
import pytest
import torch

import pjrt_dlpack

THREADS = 8
ROUNDS = 150
SLOTS = 4
ELEMS = 256
DEADLINE_S = 60.0


def expected(k):
    return np.arange(ELEMS, dtype=np.float32) * (k + 1)


class Shared:
    def __init__(self, plugin):
        self.cpu = plugin.client(platform="cpu")
        self.xpu = plugin.client(platform="xpu", transfer_delay_us=100)
        self.xpu_device = self.xpu.devices[0]
        self.np_src = [expected(k) for k in range(SLOTS)]
        self.torch_src = [torch.from_numpy(expected(k).copy()) for k in range(SLOTS)]
        self.lock = threading.Lock()
        self.slots = {
            "cpu": [self.cpu.buffer(a) for a in self.np_src],
            "xpu": [self.xpu.buffer(a, device=self.xpu_device) for a in self.np_src],
        }
        self.counts = {}
        self.errors = []

    def take(self, platform, k):
        with self.lock:
            return self.slots[platform][k]

    def replace(self, platform, k):
        if platform == "cpu":
            fresh = self.cpu.buffer(self.np_src[k])
        else:
            fresh = self.xpu.buffer(self.np_src[k], device=self.xpu_device)
        with self.lock:
            self.slots[platform][k] = fresh

    def count(self, name):
        with self.lock:
            self.counts[name] = self.counts.get(name, 0) + 1


def check(values, k):
    np.testing.assert_array_equal(np.asarray(values, dtype=np.float32).reshape(-1), expected(k))


def op_export_torch(s, rng):
    k = rng.randrange(SLOTS)
    t = torch.from_dlpack(s.take("cpu", k))
    check(t.numpy(), k)


def op_export_numpy(s, rng):
    k = rng.randrange(SLOTS)
    check(np.from_dlpack(s.take("cpu", k)), k)


def op_import_torch(s, rng):
    k = rng.randrange(SLOTS)
    src = s.torch_src[k]
    if rng.random() < 0.5:
        b = s.cpu.from_dlpack(src)  # a view of torch's memory
        check(np.from_dlpack(b), k)
    else:
        b = s.xpu.from_dlpack(src, device=s.xpu_device)  # a copy onto the device
        check(np.frombuffer(b.to_bytes(), dtype=np.float32), k)


def op_import_numpy(s, rng):
    k = rng.randrange(SLOTS)
    b = s.cpu.from_dlpack(s.np_src[k])
    t = torch.from_dlpack(b)  # numpy -> PJRT -> torch, one memory
    check(t.numpy(), k)


def op_read_xpu(s, rng):
    k = rng.randrange(SLOTS)
    b = s.take("xpu", k)
    b.block_until_ready()
    check(np.asarray(b), k)


def op_delete(s, rng):
    platform = rng.choice(["cpu", "xpu"])
    k = rng.randrange(SLOTS)
    s.take(platform, k).delete()
    s.replace(platform, k)


def op_transfer(s, rng):
    k = rng.randrange(SLOTS)
    b = s.take("cpu", k)
    capsule = b.release_to_dlpack()
    s.replace("cpu", k)
    t = torch.from_dlpack(capsule)
    check(t.numpy(), k)


OPS = [
    op_export_torch,
    op_export_numpy,
    op_import_torch,
    op_import_numpy,
    op_read_xpu,
    op_read_xpu,
    op_delete,
    op_transfer,
]


def worker(s, index):
    rng = random.Random(1000 + index)
    for _ in range(ROUNDS):
        op = rng.choice(OPS)
        try:
            op(s, rng)
            s.count(op.__name__)
        except pjrt_dlpack.Error as e:
            # Another thread deleted or transferred the buffer in between:
            # the only failure allowed, and it must say so.
            if e.code_name != "FAILED_PRECONDITION" or not str(e):
                s.errors.append(f"{op.__name__}: {e.code_name}: {e}")
            s.count("deleted_in_between")
        except Exception as e:  # noqa: BLE001 - any other failure is reported
            s.errors.append(f"{op.__name__}: {type(e).__name__}: {e}")


def test_threads_export_import_delete(plugin):
    s = Shared(plugin)
    np_refs = [sys.getrefcount(a) for a in s.np_src]
    torch_refs = [sys.getrefcount(t) for t in s.torch_src]

    threads = [threading.Thread(target=worker, args=(s, i)) for i in range(THREADS)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(1.0, DEADLINE_S - (time.monotonic() - start)))
    assert not any(t.is_alive() for t in threads), "a thread hung"

    assert s.errors == []
    total = sum(s.counts.values())
    assert total == THREADS * ROUNDS
    done = {name: n for name, n in s.counts.items() if name != "deleted_in_between"}
    assert all(done.get(op.__name__, 0) > 0 for op in OPS), s.counts

    # Every buffer and export is gone: the producers' deleters ran once each.
    s.slots = None
    for _ in range(3):
        gc.collect()
        s.cpu.buffer(np.zeros(1, np.float32))  # a call that runs queued deleters
    assert [sys.getrefcount(a) for a in s.np_src] == np_refs
    assert [sys.getrefcount(t) for t in s.torch_src] == torch_refs
