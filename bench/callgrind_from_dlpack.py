"""client.from_dlpack(numpy_array) or numpy.from_dlpack(numpy_array) N times
in a loop, for instruction counts under valgrind (see README.md, issue 23):
run it with N = 0 and N = 20000 and divide the difference by 20000.

  OPENBLAS_NUM_THREADS=1 PYTHONHASHSEED=0 PYTHONPATH=build-bench/python \\
      valgrind --tool=callgrind $(bash scripts/python-env.sh python) \\
      bench/callgrind_from_dlpack.py client|np N

Both sides are written out as bench_python_modern.py's lambdas call them
(attribute lookups included); the shape is its (1024, 1024) float32."""
import sys

import numpy as np

import pjrt_dlpack

which, n = sys.argv[1], int(sys.argv[2])
client = pjrt_dlpack.load_plugin().client(platform="cpu")
a = np.ones((1024, 1024), dtype=np.float32)
client.from_dlpack(a)  # first calls (lookups, caches) outside the loop
np.from_dlpack(a)


def run_client(n):
    for _ in range(n):
        client.from_dlpack(a)


def run_np(n):
    for _ in range(n):
        np.from_dlpack(a)


(run_client if which == "client" else run_np)(n)
