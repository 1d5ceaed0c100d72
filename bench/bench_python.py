"""Python benchmarks of the pjrt_dlpack module's DLPack exchange.

Interleaved in one process (each round runs every case once, the first case
rotating; bench_rounds.py), medians over rounds of the per-call time,
printed as result lines "key<TAB>value<TAB>unit" (see bench/report.py),
each after its rounds:

  py.np_from_buf      numpy.from_dlpack(pjrt_dlpack buffer)
  py.np_from_torch    numpy.from_dlpack(torch tensor)
  py.np_from_np       numpy.from_dlpack(numpy array)
  py.torch_from_buf   torch.from_dlpack(pjrt_dlpack buffer)
  py.torch_from_np    torch.from_dlpack(numpy array)

All of shape (1024, 1024) float32 on the cpu platform of the reference
plugin. Usage (Debian's python3, the built module on PYTHONPATH):
  PYTHONPATH=build-bench/python /usr/bin/python3 bench/bench_python.py \
      [--smoke] [--plugin build-bench/lib/libpjrt_ref.so]
"""
import argparse
import os
import sys
import timeit

import numpy as np
import torch

import bench_rounds
import pjrt_dlpack

SHAPE = (1024, 1024)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="run each case once; measure nothing")
    parser.add_argument("--plugin", default=os.environ.get("PJRT_REF_PLUGIN"))
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--number", type=int, default=2000, help="calls per case and round")
    parser.add_argument("--no-pin", action="store_true",
                        help="leave the measuring thread where the scheduler puts it")
    args = parser.parse_args()
    if args.smoke or os.environ.get("PJDL_BENCH_SMOKE"):
        args.rounds, args.number = 1, 1
    torch.set_num_threads(1)
    print(f"version\tpython (Debian)\t{sys.version.split()[0]}", flush=True)
    print(f"version\tnumpy (Debian)\t{np.__version__}", flush=True)
    print(f"version\ttorch (Debian)\t{torch.__version__}", flush=True)

    client = pjrt_dlpack.load_plugin(args.plugin).client(platform="cpu")
    host = np.ones(SHAPE, dtype=np.float32)
    buf = client.buffer(host)
    tensor = torch.ones(SHAPE, dtype=torch.float32)
    array = np.ones(SHAPE, dtype=np.float32)
    # Each result is checked once, so a broken exchange is not timed.
    assert np.from_dlpack(buf).shape == SHAPE
    assert torch.from_dlpack(buf).shape == SHAPE

    cases = [
        ("py.np_from_buf", lambda: np.from_dlpack(buf)),
        ("py.np_from_torch", lambda: np.from_dlpack(tensor)),
        ("py.np_from_np", lambda: np.from_dlpack(array)),
        ("py.torch_from_buf", lambda: torch.from_dlpack(buf)),
        ("py.torch_from_np", lambda: torch.from_dlpack(array)),
    ]
    for key, fn in cases:  # warm up
        timeit.timeit(fn, number=max(1, args.number // 10))
    samples = bench_rounds.interleave(cases, args.rounds, {key: args.number for key, _ in cases},
                                      pin=not args.no_pin)
    bench_rounds.emit(cases, samples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
