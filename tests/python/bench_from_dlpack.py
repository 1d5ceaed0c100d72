"""Times numpy.from_dlpack(pjrt_buffer) against numpy.from_dlpack(torch_tensor).

Not a test (pytest does not collect it). Usage:
  PYTHONPATH=build/python python3 tests/python/bench_from_dlpack.py build/lib/libpjrt_ref.so
"""
import os
import sys
import timeit

import numpy as np
import torch

import pjrt_dlpack


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("PJRT_REF_PLUGIN")
    client = pjrt_dlpack.load_plugin(path).client(platform="cpu")
    shape = (1024, 1024)
    host = np.ones(shape, dtype=np.float32)
    buf = client.buffer(host)
    tensor = torch.from_numpy(host.copy())
    n = 20000
    for name, obj in (("pjrt_dlpack.Buffer", buf), ("torch.Tensor", tensor)):
        np.from_dlpack(obj)  # warm up
        best = min(timeit.repeat(lambda: np.from_dlpack(obj), number=n, repeat=5))
        print(f"numpy.from_dlpack({name:18s}) shape={shape} float32: {best / n * 1e6:.2f} us")


if __name__ == "__main__":
    main()
