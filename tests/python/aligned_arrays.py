"""NumPy arrays at a chosen alignment, for the tests of both environments:
XLA's CPU plugin views nothing below 64-byte alignment, and NumPy promises
only 16."""
import numpy as np


def aligned(shape, dtype, align=64, offset=0):
    """An uninitialized array whose data starts `offset` bytes past an
    `align`-byte boundary."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape)) * dtype.itemsize
    raw = np.empty(n + align + offset, dtype=np.uint8)
    start = (-raw.ctypes.data) % align + offset
    return raw[start:start + n].view(dtype).reshape(shape)


def aligned_copy(values, align=64):
    """A copy of `values` whose data is `align`-byte aligned."""
    values = np.asarray(values)
    out = aligned(values.shape, values.dtype, align)
    out[...] = values
    return out
