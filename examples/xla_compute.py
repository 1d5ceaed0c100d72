"""A real computation on XLA's CPU plugin, fed and drained through DLPack.

A NumPy array and a PyTorch tensor go in as views (no copy), a StableHLO
program computes a * b + 1 and the transpose of a, and the results come out
to NumPy and PyTorch over the plugin's own memory. Exits 1 if a check fails.

    PYTHONPATH=build/python python3 examples/xla_compute.py [PLUGIN]

PLUGIN is XLA's CPU plugin: argv[1], else $PJRT_XLA_CPU_PLUGIN
(scripts/plugins.sh path xla-cpu prints where it is installed).
"""
import os
import sys

import numpy as np
import torch

import pjrt_dlpack
from example_checks import Checks

# The StableHLO program, a * b + 1 and the transpose of a, is the file
# xla_compute.mlir next to this one.
PROGRAM_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "xla_compute.mlir")
expect = Checks("xla_compute.py")


def aligned_array(values, alignment=64):
    """A NumPy array whose data is aligned to `alignment` bytes: XLA's CPU
    plugin views only such memory (NumPy itself promises 16)."""
    values = np.ascontiguousarray(values)
    raw = np.empty(values.nbytes + alignment, dtype=np.uint8)
    offset = -raw.ctypes.data % alignment
    out = raw[offset : offset + values.nbytes].view(values.dtype).reshape(values.shape)
    out[...] = values
    return out


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("PJRT_XLA_CPU_PLUGIN")
    if not path:
        print("usage: xla_compute.py PLUGIN (or set PJRT_XLA_CPU_PLUGIN)", file=sys.stderr)
        return 2
    client = pjrt_dlpack.load_plugin(path).client()
    print(f"plugin {path}: {client}")
    with open(PROGRAM_PATH, encoding="utf-8") as f:
        exe = client.compile(f.read())
    print(f"compiled: {exe}")

    a = aligned_array(np.arange(1, 7, dtype=np.float32).reshape(2, 3))
    b = torch.arange(10, 70, 10, dtype=torch.float32).reshape(2, 3)  # PyTorch aligns to 64

    # Imported explicitly, to show the views: the plugin's buffers are the
    # producers' memory.
    a_buf, b_buf = client.from_dlpack(a), client.from_dlpack(b)
    print(f"inputs: NumPy at {a.ctypes.data:#x}, PyTorch at {b.data_ptr():#x}; plugin buffers at "
          f"{a_buf.unsafe_buffer_pointer():#x}, {b_buf.unsafe_buffer_pointer():#x}")
    expect(a_buf.unsafe_buffer_pointer() == a.ctypes.data, "the NumPy input is viewed, not copied")
    expect(b_buf.unsafe_buffer_pointer() == b.data_ptr(), "the PyTorch input is viewed, not copied")
    a[0, 0] = 2.0  # a write through NumPy is what the program reads
    s, t = exe(a_buf, b_buf)

    want_s = np.array([[21, 41, 91], [161, 251, 361]], dtype=np.float32)
    want_t = np.array([[2, 4], [2, 5], [3, 6]], dtype=np.float32)
    s_np = np.from_dlpack(s)  # waits until computed
    t_torch = torch.from_dlpack(t)
    print("a * b + 1 as NumPy:\n", s_np)
    print("transpose(a) as PyTorch:\n", t_torch)
    expect(s_np.ctypes.data == s.unsafe_buffer_pointer(), "NumPy reads the result in place")
    expect(t_torch.data_ptr() == t.unsafe_buffer_pointer(), "PyTorch reads the result in place")
    expect(np.array_equal(s_np, want_s), "a * b + 1, with the write through NumPy seen")
    expect(np.array_equal(t_torch.numpy(), want_t), "transpose(a)")

    # Producers passed straight to the call are imported the same way.
    s2, t2 = exe(a, b)
    expect(np.array_equal(np.from_dlpack(s2), want_s), "NumPy and PyTorch arguments directly")
    expect(np.array_equal(torch.from_dlpack(t2).numpy(), want_t), "and the transpose again")

    return expect.verdict()


if __name__ == "__main__":
    sys.exit(main())
