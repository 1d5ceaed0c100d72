"""Sub-byte types (int4, uint4, int2, uint2, int1, uint1, float4_e2m1fn,
float6_e2m3fn, float6_e3m2fn) between the
library, NumPy (ml_dtypes), JAX and PyTorch, values checked element by
element, on the reference plugin and on XLA's CPU plugin.

What each framework can hold, found by trying (docs/design.md, "Sub-byte
types"): ml_dtypes arrays hold one element per byte and NumPy refuses them
in DLPack, so ``client.buffer()`` copies them (PJRT's host form is one per
byte too); JAX keeps them packed in device memory and its own DLPack refuses
them, so ``pjrt_dlpack.jax.export`` describes them packed; PyTorch 2.15's
DLPack carries ``float4_e2m1fn_x2`` as kDLFloat4_e2m1fn with 2 lanes, which
we import as float4_e2m1fn with the last dimension doubled, reads no other
fp4 form, and refuses its bit dtypes.
"""

import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
import torch

import pjrt_dlpack.jax as pjax
from dlpack_helpers import IS_COPIED, versioned

IS_SUBBYTE_TYPE_PADDED = 1 << 2

SUB_BYTE = ["int4", "uint4", "int2", "uint2", "int1", "uint1", "float4_e2m1fn", "float6_e2m3fn",
            "float6_e3m2fn"]


def sample(name, n=13):
    """n values covering the type's range, as an ml_dtypes array."""
    dt = getattr(ml_dtypes, name)
    if name.startswith("float"):
        grid = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.5, -1.0, -3.0, -6.0, -0.0]
        return np.array(grid[:n] * (n // len(grid) + 1), dtype=np.float32)[:n].astype(dt)
    info = ml_dtypes.iinfo(dt)
    span = int(info.max) - int(info.min) + 1
    return (np.arange(n) % span + int(info.min)).astype(dt)


def same_values(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    for g, w in zip(got.ravel().tolist(), want.ravel().tolist()):
        assert g == w or (g != g and w != w)


@pytest.fixture(params=["ref", "xla"])
def target(request, cpu, xla):
    return cpu if request.param == "ref" else xla


@pytest.mark.parametrize("name", SUB_BYTE)
def test_ml_dtypes_arrays_become_buffers(target, name):
    a = sample(name).reshape(1, 13)
    buf = target.buffer(a)
    assert buf.dtype == name and buf.shape == (1, 13)
    assert buf.nbytes == 13  # the host form: one element per byte
    same_values(np.asarray(buf), a)
    # A strided source is gathered first.
    b = target.buffer(sample(name, 26)[::2])
    same_values(np.asarray(b), sample(name, 26)[::2])


# Not int1, uint1: JAX 0.10.2 itself fails on them (jnp.asarray of a uint1
# array: "expected parameter 0 of size 13 (pred[13]{0}) but got buffer with
# incompatible size 2 (u1[13]{0:E(1)})").
@pytest.mark.parametrize("name", ["int4", "uint4", "int2", "uint2"])
def test_jax_sub_byte_arrays_through_export(target, name):
    x = jnp.asarray(sample(name))
    with pytest.raises(Exception, match="no DLPack equivalent"):
        x.__dlpack__()  # JAX's own DLPack refuses them
    t = pjax.export(x)
    buf = target.from_dlpack(t)  # packed, as JAX holds it
    assert buf.dtype == name
    same_values(np.asarray(buf), np.asarray(x))
    # And 2-d, through the transposed layout JAX reports for a transpose.
    y = jnp.asarray(sample(name, 12).reshape(3, 4)).T
    same_values(np.asarray(target.from_dlpack(pjax.export(y))), np.asarray(y))


def test_torch_float4_pairs_become_float4_buffers(target):
    """PyTorch's float4_e2m1fn_x2 (kDLFloat4_e2m1fn, 2 lanes: a byte of two
    fp4 values, the first in the low bits) is a packed F4E2M1FN array with
    its last dimension doubled; strided rows are copied."""
    raw = torch.tensor([[0x21, 0x43, 0xA9], [0x65, 0xF7, 0x0C]], dtype=torch.uint8)
    t = raw.view(torch.float4_e2m1fn_x2)
    nibbles = np.stack([raw.numpy() & 15, raw.numpy() >> 4], -1).reshape(2, 6)
    want = nibbles.astype(np.uint8).view(ml_dtypes.float4_e2m1fn)
    buf = target.from_dlpack(t)
    assert buf.dtype == "float4_e2m1fn" and buf.shape == (2, 6)
    same_values(np.asarray(buf), want)
    same_values(np.asarray(target.from_dlpack(t[:, 1:])), want[:, 2:])


def test_torch_float4_pairs_are_viewed(cpu):
    raw = torch.arange(64, dtype=torch.uint8)
    t = raw.view(torch.float4_e2m1fn_x2)
    buf = cpu.from_dlpack(t, copy=False)
    assert buf.unsafe_buffer_pointer() == raw.data_ptr() and buf.shape == (128,)


def test_what_torch_refuses(cpu):
    """PyTorch reads fp4 only with 2 lanes, which we do not produce (PJRT's
    F4E2M1FN is a scalar type), and refuses its bit dtypes in DLPack; its
    int1..int7 are whole bytes (kDLInt 8) there."""
    buf = cpu.buffer(sample("float4_e2m1fn", 8))
    with pytest.raises(BufferError, match="lanes 1"):
        torch.from_dlpack(buf)
    with pytest.raises(BufferError, match="Bit types"):
        torch.zeros(4, dtype=torch.uint8).view(torch.bits8).__dlpack__()
    b = cpu.from_dlpack(torch.zeros(4, dtype=torch.int4))
    assert b.dtype == "int8"


@pytest.mark.parametrize("name", SUB_BYTE)
def test_sub_byte_export_is_flagged_as_it_is(cpu, name):
    """A zero-copy export is the device memory as it is: packed (flags 0),
    or for the 6-bit floats one per byte, flagged padded; a host copy is
    padded, one element per byte, and says so."""
    buf = cpu.buffer(sample(name))
    cap = buf.__dlpack__(max_version=(1, 3))
    assert versioned(cap).flags == (IS_SUBBYTE_TYPE_PADDED if "float6" in name else 0)
    cap = buf.__dlpack__(max_version=(1, 3), copy=True)
    assert versioned(cap).flags == IS_COPIED | IS_SUBBYTE_TYPE_PADDED
    back = cpu.from_dlpack(cap)
    same_values(np.asarray(back), sample(name))
