"""The Python module against XLA's own CPU plugin (PJRT_XLA_CPU_PLUGIN,
installed by the set-up): the exchange with NumPy and PyTorch on a real
plugin. A missing plugin fails these tests; it never skips them."""
import ctypes
import threading

import numpy as np
import pytest
import torch

import pjrt_dlpack
from aligned_arrays import aligned
from dlpack_ctypes import Holder, HostTensor
from dtype_names import NOT_IN_TORCH_1_13, NUMERIC

KDL_CPU = 1
# DLPack dtypes of PJRT types newer than old ABIs, with the first minor
# that has them: s1 (0.94), float6_e2m3fn (0.114).
NEW_TYPES = [((0, 1), 94), ((15, 6), 114)]

ctypes.pythonapi.PyCapsule_New.restype = ctypes.py_object
ctypes.pythonapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


@pytest.mark.parametrize("dtype", NUMERIC)
def test_round_trip_numpy_and_torch(xla, dtype):
    host = np.arange(12).astype(dtype).reshape(3, 4)
    buf = xla.buffer(host)
    assert buf.shape == (3, 4) and buf.dtype == np.dtype(dtype).name
    assert buf.__dlpack_device__() == (KDL_CPU, 0)
    back = np.from_dlpack(buf)
    np.testing.assert_array_equal(back, host)
    assert back.ctypes.data == buf.unsafe_buffer_pointer()
    if dtype not in NOT_IN_TORCH_1_13:
        t = torch.from_dlpack(buf)
        assert t.data_ptr() == buf.unsafe_buffer_pointer()
        np.testing.assert_array_equal(t.numpy(), host)


def test_scalar_and_empty(xla):
    s = xla.buffer(np.array(2.5, dtype=np.float32))
    assert s.shape == () and float(np.from_dlpack(s)) == 2.5
    e = xla.buffer(np.zeros((4, 0, 3), dtype=np.int32))
    assert np.from_dlpack(e).shape == (4, 0, 3)
    assert torch.from_dlpack(e).shape == (4, 0, 3)


def test_views_release_the_gil_on_a_plugin_not_ours(xla_plugin):
    # Only this build's reference plugin is known never to block in a view
    # or a destroy; XLA's keeps every library call without the GIL.
    assert xla_plugin._sync_views is False


def test_aligned_numpy_is_viewed(xla):
    host = aligned((8, 8), np.float32)
    host[...] = np.arange(64, dtype=np.float32).reshape(8, 8)
    buf = xla.from_dlpack(host, copy=False)
    assert buf.unsafe_buffer_pointer() == host.ctypes.data
    host[2, 3] = -1.0  # a view: the buffer sees the write
    assert np.asarray(buf)[2, 3] == -1.0
    t = torch.from_dlpack(buf)
    assert t.data_ptr() == host.ctypes.data


def test_torch_tensor_is_viewed(xla):
    t = torch.arange(4096, dtype=torch.float32)  # PyTorch allocates 64-byte aligned
    assert t.data_ptr() % 64 == 0
    buf = xla.from_dlpack(t, copy=False)
    assert buf.unsafe_buffer_pointer() == t.data_ptr()
    t[7] = 123.0
    assert np.asarray(buf)[7] == 123.0


def test_unaligned_is_copied_or_refused(xla):
    host = aligned((16,), np.float32, offset=4)
    host[...] = np.arange(16, dtype=np.float32)
    with pytest.raises(BufferError, match="align"):
        xla.from_dlpack(host, copy=False)
    buf = xla.from_dlpack(host)  # copy=None: a copy is fine
    assert buf.unsafe_buffer_pointer() != host.ctypes.data
    np.testing.assert_array_equal(np.asarray(buf), host)


def views_keep_layouts(xla):
    """XLA's CPU plugin of ABI 0.81 ignores a view's layout (the library's
    probe finds it): a permuted array is then copied, never viewed wrong."""
    return xla.plugin.abi_version[1] > 81


def test_column_major_is_viewed(xla):
    base = aligned((4, 3), np.float32)
    base[...] = np.arange(12, dtype=np.float32).reshape(4, 3)
    host = base.T  # 3x4, strides of a transposition
    if not views_keep_layouts(xla):
        with pytest.raises(pjrt_dlpack.Error, match="ignores the layout of a view"):
            xla.from_dlpack(host, copy=False)
        buf = xla.from_dlpack(host)
        assert buf.unsafe_buffer_pointer() != base.ctypes.data
        assert buf.to_bytes() == np.ascontiguousarray(host).tobytes()
        np.testing.assert_array_equal(np.from_dlpack(buf), host)
        return
    buf = xla.from_dlpack(host, copy=False)
    assert buf.unsafe_buffer_pointer() == base.ctypes.data
    np.testing.assert_array_equal(np.asarray(buf), host)
    back = np.from_dlpack(buf)
    assert back.strides == host.strides
    np.testing.assert_array_equal(back, host)


def test_gaps_are_copied(xla):
    base = aligned((6, 8), np.float32)
    base[...] = np.arange(48, dtype=np.float32).reshape(6, 8)
    host = base[::2, 1:5]
    with pytest.raises(BufferError):
        xla.from_dlpack(host, copy=False)
    np.testing.assert_array_equal(np.asarray(xla.from_dlpack(host)), host)


def test_export_outlives_delete(xla):
    buf = xla.buffer(np.arange(1024, dtype=np.float64))
    arr = np.from_dlpack(buf)
    buf.delete()
    assert buf.is_deleted
    del buf
    churn = [xla.buffer(np.full(1024, -1.0)) for _ in range(16)]
    np.testing.assert_array_equal(arr, np.arange(1024, dtype=np.float64))
    del churn


def test_transfer_mode(xla):
    buf = xla.buffer(np.arange(6, dtype=np.int32))
    capsule = buf.release_to_dlpack()
    assert buf.is_deleted
    with pytest.raises(pjrt_dlpack.Error):
        buf.to_bytes()
    t = torch.from_dlpack(capsule)
    assert t.tolist() == [0, 1, 2, 3, 4, 5]


def test_every_device(xla):
    assert len(xla.devices) >= 1
    for d in xla.devices:
        buf = xla.buffer(np.arange(5, dtype=np.int64) + d.id, device=d)
        assert buf.device.id == d.id
        np.testing.assert_array_equal(np.from_dlpack(buf), np.arange(5) + d.id)


def test_many_threads(xla):
    shared = xla.buffer(np.arange(4096, dtype=np.float32))
    errors = []

    def work():
        try:
            for _ in range(200):
                a = np.from_dlpack(shared)
                t = torch.from_dlpack(shared)
                if a[3] != 3.0 or t[5].item() != 5.0:
                    errors.append("wrong data")
                v = xla.from_dlpack(t)
                if v.unsafe_buffer_pointer() != shared.unsafe_buffer_pointer():
                    errors.append("not a view")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []


def test_create_options(xla_plugin):
    assert len(xla_plugin.client(cpu_device_count=2).devices) == 2
    if xla_plugin.abi_version[1] <= 106:
        # XLA's CPU plugins of ABI 0.106 and 0.81 ignore an unknown option.
        assert xla_plugin.client(bogus_option=1).platform == "cpu"
        return
    with pytest.raises(pjrt_dlpack.Error, match="bogus_option"):
        xla_plugin.client(bogus_option=1)


def test_types_newer_than_the_abi_are_refused(xla):
    """A plugin is never handed an element type its ABI does not have:
    XLA's of 0.106 crashed on float6, that of 0.81 on 1-bit integers."""
    minor = xla.plugin.abi_version[1]
    newer = [(t, m) for t, m in NEW_TYPES if m > minor]
    host = np.zeros(8, dtype=np.uint8)
    for dtype, first in newer:
        tensor = HostTensor(host.ctypes.data, (4,), dtype=dtype)
        capsule = ctypes.pythonapi.PyCapsule_New(tensor.address, b"dltensor_versioned", None)
        with pytest.raises(pjrt_dlpack.Error, match=rf"is new in PJRT C API 0\.{first}; the "
                           rf"plugin implements 0\.{minor}"):
            xla.from_dlpack(Holder(capsule, (KDL_CPU, 0)))
        assert tensor.calls == 0  # refused: the caller keeps the tensor
    if minor >= 114:
        assert newer == []
