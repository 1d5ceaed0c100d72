"""Zero-copy exchange with NumPy 2, PyTorch 2, JAX and array-api-strict on the
CPU (the reference plugin's cpu platform and XLA's CPU plugin), read-only
arrays, every dtype, and the reference plugin's xpu device."""
import array_api_strict as xps
import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
import torch

import pjrt_dlpack
import pjrt_dlpack.jax as pjax
from dlpack_helpers import (JAX_0_11, JAX_0_12, KDL_CPU, KDL_ONEAPI, NUMERIC, NUMPY_2_5,
                            READ_ONLY, Holder, aligned, versioned)

ML_TYPES = ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"]


def values(dtype, n=8):
    return (np.arange(n) % 4).astype(dtype)


# ------------------------------------------------------------ zero copy


@pytest.mark.parametrize("plugin_client", ["cpu", "xla"])
def test_zero_copy_both_ways(request, plugin_client):
    client = request.getfixturevalue(plugin_client)
    buf = client.buffer(np.arange(32, dtype=np.float32))
    ptr = buf.unsafe_buffer_pointer()
    assert ptr % 64 == 0
    assert np.from_dlpack(buf).ctypes.data == ptr
    assert torch.from_dlpack(buf).data_ptr() == ptr
    assert jax.dlpack.from_dlpack(buf).unsafe_buffer_pointer() == ptr
    # Back: arrays of every consumer into the client, viewed.
    a = aligned((32,), np.float32)
    assert client.from_dlpack(a, copy=False).unsafe_buffer_pointer() == a.ctypes.data
    t = torch.arange(32, dtype=torch.float32)
    assert t.data_ptr() % 64 == 0
    assert client.from_dlpack(t, copy=False).unsafe_buffer_pointer() == t.data_ptr()
    j = jnp.arange(32, dtype=jnp.float32)
    assert client.from_dlpack(jax_producer(j), copy=False).unsafe_buffer_pointer() == \
        j.unsafe_buffer_pointer()


def jax_producer(j):
    """What gives a writable tensor of a JAX array: the array itself before
    JAX 0.12, pjrt_dlpack.jax.export from 0.12 on (JAX's own is read-only)."""
    return pjax.export(j) if JAX_0_12 else j


def test_jax_read_only_exports_are_copied_or_refused(cpu):
    j = jnp.arange(8, dtype=jnp.float32)
    flags = versioned(j.__dlpack__(max_version=(1, 0))).flags if JAX_0_12 else 0
    assert bool(flags & READ_ONLY) == JAX_0_12
    buf = cpu.from_dlpack(j)
    assert (buf.unsafe_buffer_pointer() != j.unsafe_buffer_pointer()) == JAX_0_12
    np.testing.assert_array_equal(np.from_dlpack(buf), np.asarray(j))
    if JAX_0_12:
        with pytest.raises(BufferError, match="read-only"):
            cpu.from_dlpack(j, copy=False)


def test_writes_are_shared(cpu):
    buf = cpu.buffer(np.zeros(4, dtype=np.int64))
    a = np.from_dlpack(buf)  # NumPy 2 views DLPack imports writable
    t = torch.from_dlpack(buf)
    a[1] = 5
    t[2] = 7
    assert np.frombuffer(buf.to_bytes(), dtype=np.int64).tolist() == [0, 5, 7, 0]


def test_xla_views_only_64_byte_aligned_numpy(xla):
    a = aligned((16,), np.float32, offset=16)  # what NumPy often gives
    buf = xla.from_dlpack(a)
    assert buf.unsafe_buffer_pointer() != a.ctypes.data
    with pytest.raises(BufferError):
        xla.from_dlpack(a, copy=False)


@pytest.mark.parametrize("offset", [0, 4, 16, 32])
def test_jax_copies_what_is_not_64_byte_aligned(cpu, offset):
    # Our view of NumPy memory at `offset` past a 64-byte boundary: JAX views
    # it only when 64-aligned; otherwise copies, or refuses copy=False with a
    # ValueError (JAX's choice, per the standard's device/copy sentence).
    a = aligned((16,), np.float32, offset=offset)
    a[:] = np.arange(16)
    buf = cpu.from_dlpack(a)
    assert buf.unsafe_buffer_pointer() == a.ctypes.data
    j = jax.dlpack.from_dlpack(buf)
    np.testing.assert_array_equal(np.asarray(j), a)
    if offset % 64 == 0:
        assert j.unsafe_buffer_pointer() == a.ctypes.data
        assert jax.dlpack.from_dlpack(buf, copy=False).unsafe_buffer_pointer() == a.ctypes.data
    else:
        assert j.unsafe_buffer_pointer() != a.ctypes.data
        with pytest.raises(ValueError, match="aligned"):
            jax.dlpack.from_dlpack(buf, copy=False)


def test_jax_arrays_into_our_client(cpu, xla):
    j = jnp.arange(12, dtype=jnp.int32).reshape(3, 4)
    for client in (cpu, xla):
        buf = client.from_dlpack(jax_producer(j), copy=False)
        assert buf.unsafe_buffer_pointer() == j.unsafe_buffer_pointer()
        assert buf.shape == (3, 4) and buf.dtype == "int32"
        np.testing.assert_array_equal(np.from_dlpack(buf), np.asarray(j))
    assert pjrt_dlpack.from_dlpack(jax_producer(j)).unsafe_buffer_pointer() == \
        j.unsafe_buffer_pointer()


# ------------------------------------------------------------ read-only


def test_numpy_read_only_arrays_are_copied_or_refused(cpu):
    ro = np.arange(8.0)
    ro.flags.writeable = False
    assert versioned(ro.__dlpack__(max_version=(1, 0))).flags & READ_ONLY
    buf = cpu.from_dlpack(ro)
    assert buf.unsafe_buffer_pointer() != ro.ctypes.data
    np.testing.assert_array_equal(np.from_dlpack(buf), ro)
    np.from_dlpack(buf)[0] = 9  # the copy is ours to write
    assert ro[0] == 0
    with pytest.raises(BufferError, match="read-only"):
        cpu.from_dlpack(ro, copy=False)
    # A legacy capsule cannot say read-only: NumPy 2 refuses to make one.
    with pytest.raises(BufferError):
        ro.__dlpack__()


def test_numpy_marks_read_only_tensors_read_only(cpu):
    # Our buffers are writable, so our exports are not flagged; a producer
    # flagging READ_ONLY gets a read-only NumPy array.
    buf = cpu.buffer(np.arange(4.0))
    assert not versioned(buf.__dlpack__(max_version=(1, 0))).flags & READ_ONLY
    cap = buf.__dlpack__(max_version=(1, 0))
    versioned(cap).flags |= READ_ONLY
    a = np.from_dlpack(Holder(cap, buf.__dlpack_device__()))
    assert not a.flags.writeable and a.ctypes.data == buf.unsafe_buffer_pointer()


# ------------------------------------------------------------ dtypes


@pytest.mark.parametrize("dtype", ["bool"] + NUMERIC)
def test_numpy_every_dtype_both_ways(cpu, dtype):
    a = values(dtype)
    buf = cpu.from_dlpack(a)
    assert buf.dtype == dtype and buf.unsafe_buffer_pointer() == a.ctypes.data
    back = np.from_dlpack(buf)
    assert back.dtype == np.dtype(dtype) and back.ctypes.data == a.ctypes.data


@pytest.mark.parametrize("name", ML_TYPES)
def test_numpy_and_ml_dtypes_through_dlpack(cpu, name):
    # NumPy 2.4 exchanges only bool/int/uint/float/complex through DLPack: it
    # refuses ml_dtypes arrays as producer and our ml_dtypes buffers as
    # consumer; NumPy 2.5 carries them both ways, zero-copy, as PyTorch and
    # JAX do (below).
    a = values(getattr(ml_dtypes, name))
    if NUMPY_2_5:
        buf = cpu.from_dlpack(a, copy=False)
        assert buf.dtype == name and buf.unsafe_buffer_pointer() == a.ctypes.data
        back = np.from_dlpack(buf)
        assert back.dtype == a.dtype and back.ctypes.data == a.ctypes.data
    else:
        with pytest.raises(BufferError, match="DLPack only supports"):
            a.__dlpack__(max_version=(1, 0))
        with pytest.raises(BufferError):
            cpu.from_dlpack(a)
    buf = cpu.from_dlpack(jnp.asarray(a))
    assert buf.dtype == name
    if not NUMPY_2_5:
        with pytest.raises(RuntimeError, match="Unsupported dtype"):
            np.from_dlpack(buf)
    # An explicit host copy works, with ml_dtypes' type.
    host = np.asarray(buf)
    assert host.dtype == np.dtype(getattr(ml_dtypes, name))
    np.testing.assert_array_equal(host.view(np.uint8), a.view(np.uint8))


TORCH = {"bool": torch.bool, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
         "int64": torch.int64, "uint8": torch.uint8, "uint16": torch.uint16,
         "uint32": torch.uint32, "uint64": torch.uint64, "float16": torch.float16,
         "float32": torch.float32, "float64": torch.float64, "complex64": torch.complex64,
         "complex128": torch.complex128, "bfloat16": torch.bfloat16,
         "float8_e4m3fn": torch.float8_e4m3fn, "float8_e5m2": torch.float8_e5m2,
         "float8_e4m3fnuz": torch.float8_e4m3fnuz, "float8_e5m2fnuz": torch.float8_e5m2fnuz}


@pytest.mark.parametrize("name", sorted(TORCH))
def test_torch_every_dtype_both_ways(cpu, name):
    t = torch.arange(64).remainder(4).to(TORCH[name])
    buf = cpu.from_dlpack(t)
    assert buf.dtype == name and buf.unsafe_buffer_pointer() == t.data_ptr()
    back = torch.from_dlpack(buf)
    assert back.dtype == TORCH[name] and back.data_ptr() == t.data_ptr()
    assert bytes(buf.to_bytes()) == t.view(torch.uint8).numpy().tobytes()


JAX = ["bool", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float16", "float32",
       "complex64", "bfloat16", "float8_e4m3fn", "float8_e5m2"]


@pytest.mark.parametrize("name", JAX)
def test_jax_every_dtype_both_ways(cpu, name):
    dt = getattr(ml_dtypes, name) if name in ML_TYPES else name
    j = jnp.asarray(values(dt, 64))
    buf = cpu.from_dlpack(jax_producer(j), copy=False)
    assert buf.dtype == name and buf.unsafe_buffer_pointer() == j.unsafe_buffer_pointer()
    back = jax.dlpack.from_dlpack(buf)
    assert back.dtype == j.dtype
    assert back.unsafe_buffer_pointer() == j.unsafe_buffer_pointer()


def test_jax_sub_byte_types_have_no_dlpack_form(cpu):
    with pytest.raises(Exception, match="no DLPack equivalent"):
        cpu.from_dlpack(jnp.zeros(64, dtype=jnp.int4))


# ------------------------------------------------------------ xpu


def test_numpy_and_torch_refuse_xpu_memory_cleanly(xpu):
    buf = xpu.buffer(np.arange(4, dtype=np.float32))
    assert buf.__dlpack_device__() == (KDL_ONEAPI, 0)
    # NumPy 2.4 raises RuntimeError, 2.5 BufferError.
    with pytest.raises(BufferError if NUMPY_2_5 else RuntimeError,
                       match="Unsupported device"):
        np.from_dlpack(buf)
    with pytest.raises(RuntimeError, match="XPU"):
        torch.from_dlpack(buf)
    # JAX 0.10 knows no kDLOneAPI device (a TypeError from JAX itself); from
    # 0.11 it is the `oneapi` backend, which this process lacks.
    if JAX_0_11:
        with pytest.raises(RuntimeError, match="Unknown backend oneapi"):
            jax.dlpack.from_dlpack(buf)
    else:
        with pytest.raises(TypeError, match="unsupported device type"):
            jax.dlpack.from_dlpack(buf)
    # The refused capsules were never consumed: they freed their tensors,
    # and the buffer is still whole.
    assert buf.to_bytes() == np.arange(4, dtype=np.float32).tobytes()


def test_xpu_host_copy_through_dl_device(xpu):
    buf = xpu.buffer(np.arange(6, dtype=np.float32))
    for copy in [None, True]:
        a = np.from_dlpack(buf, device="cpu", copy=copy)
        np.testing.assert_array_equal(a, np.arange(6, dtype=np.float32))
        assert a.flags.writeable
    with pytest.raises(BufferError):
        np.from_dlpack(buf, device="cpu", copy=False)
    cap = buf.__dlpack__(max_version=(1, 0), dl_device=(KDL_CPU, 0))
    t = torch.from_dlpack(cap)
    assert t.tolist() == list(range(6))
    # torch.from_dlpack(device="cpu") does not pass dl_device for another
    # device: it imports the kDLOneAPI tensor itself and fails cleanly.
    with pytest.raises(RuntimeError, match="XPU"):
        torch.from_dlpack(buf, device="cpu", copy=True)


# ------------------------------------------------------------ array-api-strict


def test_array_api_strict_both_ways(cpu):
    x = xps.asarray([1.0, 2.0, 3.0], dtype=xps.float32)
    assert versioned(x.__dlpack__(max_version=(1, 0))).major == 1
    buf = cpu.from_dlpack(x, copy=False)
    assert buf.dtype == "float32"
    assert buf.unsafe_buffer_pointer() == versioned(x.__dlpack__(max_version=(1, 0))).dl_tensor.data
    y = xps.from_dlpack(buf)
    assert xps.all(y == x)
    z = xps.from_dlpack(buf, copy=True)
    assert xps.all(z == x)
    with pytest.raises(ValueError):
        xps.from_dlpack(buf, device="nonsense")
