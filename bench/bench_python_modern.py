"""Python benchmarks against today's consumers: NumPy 2, PyTorch 2 and JAX
of the modern environment (scripts/python-env.sh), and the DLPack C
exchange API against the capsule protocol.

Interleaved in one process (each round runs every case once, the first case
rotating; bench_rounds.py), medians over rounds of the per-call time,
printed as result lines "key<TAB>value<TAB>unit" (see bench/report.py),
each after its rounds, after "version<TAB>name<TAB>version" lines naming
the environment:

  pym.np_from_buf        numpy.from_dlpack(buf)
  pym.np_from_np         numpy.from_dlpack(numpy_array)
  pym.np_from_torch      numpy.from_dlpack(torch_tensor)
  pym.torch_from_buf     torch.from_dlpack(buf)
  pym.torch_from_np      torch.from_dlpack(numpy_array)
  pym.client_from_np     client.from_dlpack(numpy_array)        (capsule protocol)
  pym.client_from_torch  client.from_dlpack(torch_tensor)       (PyTorch's exchange table)
  pym.client_from_torch_capsule
                         client.from_dlpack(torch_tensor.__dlpack__(max_version=(1, 3)))
  pym.client_from_buf    client.from_dlpack(buf)                (our exchange table)
  pym.client_from_buf_capsule
                         client.from_dlpack(buf.__dlpack__(max_version=(1, 3)))
  pym.floor_from_np      floor.from_dlpack(numpy_array)         (the least a consumer does)
  pym.floor_lib_from_np  floor.from_dlpack_lib(numpy_array)     (the same through the library)
  pym.jax_from_np        jax.dlpack.from_dlpack(numpy_array)
  pym.jax_from_buf       jax.dlpack.from_dlpack(buf)

buf is a pjrt_dlpack buffer on the reference plugin's cpu platform; every
tensor is (1024, 1024) float32. floor is bench/floor_consumer.c's
_pjdl_floor.Floor on the same plugin: x.__dlpack__, the capsule claimed, the
plugin's CreateViewOfDeviceBuffer, a minimal object whose death destroys the
view and runs the deleter, and nothing else; from_dlpack_lib makes and
releases the same view through the library (pjdl_import). Usage (the modern environment's
python, the built module and _pjdl_floor on PYTHONPATH):
  PYTHONPATH=build-bench/python:build-bench/bench $(bash scripts/python-env.sh python) \\
      bench/bench_python_modern.py [--smoke] [--plugin build-bench/lib/libpjrt_ref.so]
"""
import argparse
import os
import platform
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.dlpack  # noqa: E402
import jaxlib  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

import _pjdl_floor  # noqa: E402
import bench_rounds  # noqa: E402
import pjrt_dlpack  # noqa: E402

SHAPE = (1024, 1024)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="run each case once; measure nothing")
    parser.add_argument("--plugin", default=os.environ.get("PJRT_REF_PLUGIN"))
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--no-pin", action="store_true",
                        help="leave the measuring thread where the scheduler puts it")
    parser.add_argument("--budget-ms", type=float, default=4.0,
                        help="time per case and round, which sets the calls per round")
    args = parser.parse_args()
    if args.smoke or os.environ.get("PJDL_BENCH_SMOKE"):
        args.rounds = 1
    torch.set_num_threads(1)
    for name, version in [("python", platform.python_version()), ("numpy", np.__version__),
                          ("torch", torch.__version__), ("jax", jax.__version__),
                          ("jaxlib", jaxlib.__version__), ("pjrt_dlpack", pjrt_dlpack.__version__)]:
        print(f"version\t{name}\t{version}", flush=True)

    client = pjrt_dlpack.load_plugin(args.plugin).client(platform="cpu")
    array = np.ones(SHAPE, dtype=np.float32)
    buf = client.buffer(array)
    tensor = torch.ones(SHAPE, dtype=torch.float32)
    version = (1, 3)
    # Each exchange is checked once, so a broken one is not timed.
    assert np.from_dlpack(buf).ctypes.data == buf.unsafe_buffer_pointer()
    assert torch.from_dlpack(buf).data_ptr() == buf.unsafe_buffer_pointer()
    assert client.from_dlpack(array).unsafe_buffer_pointer() == array.ctypes.data
    assert client.from_dlpack(tensor).unsafe_buffer_pointer() == tensor.data_ptr()
    assert client.from_dlpack(buf).unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
    assert jax.dlpack.from_dlpack(buf).shape == SHAPE
    assert type(tensor).__dlpack_c_exchange_api__ is not None
    floor = _pjdl_floor.Floor(args.plugin)
    refs = sys.getrefcount(array)
    for floor_import in (floor.from_dlpack, floor.from_dlpack_lib):
        view = floor_import(array)
        assert sys.getrefcount(array) == refs + 1  # the export holds the array
        del view
        assert sys.getrefcount(array) == refs  # the view's death ran the deleter

    cases = [
        ("pym.np_from_buf", lambda: np.from_dlpack(buf)),
        ("pym.np_from_np", lambda: np.from_dlpack(array)),
        ("pym.np_from_torch", lambda: np.from_dlpack(tensor)),
        ("pym.torch_from_buf", lambda: torch.from_dlpack(buf)),
        ("pym.torch_from_np", lambda: torch.from_dlpack(array)),
        ("pym.client_from_np", lambda: client.from_dlpack(array)),
        ("pym.client_from_torch", lambda: client.from_dlpack(tensor)),
        ("pym.client_from_torch_capsule",
         lambda: client.from_dlpack(tensor.__dlpack__(max_version=version))),
        ("pym.client_from_buf", lambda: client.from_dlpack(buf)),
        ("pym.client_from_buf_capsule",
         lambda: client.from_dlpack(buf.__dlpack__(max_version=version))),
        ("pym.floor_from_np", lambda: floor.from_dlpack(array)),
        ("pym.floor_lib_from_np", lambda: floor.from_dlpack_lib(array)),
        ("pym.jax_from_np", lambda: jax.dlpack.from_dlpack(array)),
        ("pym.jax_from_buf", lambda: jax.dlpack.from_dlpack(buf)),
    ]
    if args.rounds == 1:
        numbers = {key: 1 for key, _ in cases}
    else:
        for _, fn in cases:  # warm up
            bench_rounds.calibrate(fn, args.budget_ms / 1e3, 10000)
        numbers = {key: bench_rounds.calibrate(fn, args.budget_ms / 1e3, 10000) for key, fn in cases}
    samples = bench_rounds.interleave(cases, args.rounds, numbers, pin=not args.no_pin)
    bench_rounds.emit(cases, samples)
    return 0


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    # Skips interpreter teardown: JAX's CPU client, destroyed at exit, once
    # hung joining one of its worker threads (in ~PjRtCpuClient) after this
    # mix of calls; the results are printed by now.
    os._exit(status)
