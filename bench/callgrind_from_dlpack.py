"""client.from_dlpack(numpy_array), numpy.from_dlpack(numpy_array) or the
least consumer's import (bench/floor_consumer.c: floor.from_dlpack, and
floor.from_dlpack_lib through the library), or PyTorch's import of a
Buffer (torch_buf) or of the array (torch_np), or numpy.from_dlpack of a
16x16 float32 jax.Array on JAX's cpu through pjrt_dlpack.jax.export
(jax_np) or JAX's own export (jax_np_own), N times in a loop, for
instruction counts under valgrind (see README.md, issue 23): run it with
N = 0 and N = 20000 and divide the difference by 20000.

  OPENBLAS_NUM_THREADS=1 PYTHONHASHSEED=0 \\
      PYTHONPATH=build-bench/python:build-bench/bench \\
      PJRT_REF_PLUGIN=build-bench/lib/libpjrt_ref.so \\
      valgrind --tool=callgrind $(bash scripts/python-env.sh python) \\
      bench/callgrind_from_dlpack.py client|np|floor|floor_lib|torch_buf|torch_np|jax_np|jax_np_own N

Every side is written out as bench_python_modern.py's lambdas call them
(attribute lookups included); the shape is its (1024, 1024) float32."""
import os
import sys

import numpy as np

import pjrt_dlpack

which, n = sys.argv[1], int(sys.argv[2])
plugin = os.environ.get("PJRT_REF_PLUGIN")
client = pjrt_dlpack.load_plugin(plugin).client(platform="cpu")
a = np.ones((1024, 1024), dtype=np.float32)
client.from_dlpack(a)  # first calls (lookups, caches) outside the loop
np.from_dlpack(a)
if which.startswith("floor"):
    import _pjdl_floor

    floor = _pjdl_floor.Floor(plugin)
    floor.from_dlpack(a)
    floor.from_dlpack_lib(a)
if which.startswith("torch"):
    import torch

    torch.set_num_threads(1)
    buf = client.buffer(a)
    torch.from_dlpack(buf)
    torch.from_dlpack(a)


if which.startswith("jax"):
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax

    import pjrt_dlpack.jax as pjax

    x = jax.device_put(np.ones((16, 16), np.float32), jax.devices("cpu")[0])
    np.from_dlpack(pjax.export(x))
    np.from_dlpack(x)


def run_client(n):
    for _ in range(n):
        client.from_dlpack(a)


def run_np(n):
    for _ in range(n):
        np.from_dlpack(a)


def run_floor(n):
    for _ in range(n):
        floor.from_dlpack(a)


def run_floor_lib(n):
    for _ in range(n):
        floor.from_dlpack_lib(a)


def run_torch_buf(n):
    for _ in range(n):
        torch.from_dlpack(buf)


def run_torch_np(n):
    for _ in range(n):
        torch.from_dlpack(a)


def run_jax_np(n):
    for _ in range(n):
        np.from_dlpack(pjax.export(x))


def run_jax_np_own(n):
    for _ in range(n):
        np.from_dlpack(x)


runs = {"client": run_client, "np": run_np, "floor": run_floor, "floor_lib": run_floor_lib,
        "torch_buf": run_torch_buf, "torch_np": run_torch_np, "jax_np": run_jax_np,
        "jax_np_own": run_jax_np_own}
if which not in runs:
    sys.exit(f"callgrind_from_dlpack.py: the first argument is one of {', '.join(runs)}")
runs[which](n)
