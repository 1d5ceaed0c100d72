"""Intel's plugin on ze_sim against today's consumers: NumPy 2's
from_dlpack(device=, copy=), PyTorch 2's DLPack C exchange table with ours,
and JAX 0.10.2 on its own CPU backend. kDLOneAPI device memory is read by
none of them (they refuse it with an exception); pinned_host memory
(kDLCPU) is shared without a copy."""
import gc

import jax
import jax.dlpack
import numpy as np
import pytest
import torch

import pjrt_dlpack
from dlpack_ctypes import KDL_CPU, KDL_ONEAPI, CountingDeleter, Recorder, Table


def test_numpy2_asks_for_a_host_copy_of_a_device_buffer(oneapi):
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    buf = oneapi.buffer(host)
    producer = Recorder(buf)
    a = np.from_dlpack(producer, device="cpu")
    assert producer.calls[0]["dl_device"] == (KDL_CPU, 0)
    assert a.ctypes.data != buf.unsafe_buffer_pointer()
    np.testing.assert_array_equal(a, host)
    with pytest.raises(BufferError, match="copy=False"):
        np.from_dlpack(buf, device="cpu", copy=False)
    with pytest.raises(RuntimeError, match="Unsupported device"):
        np.from_dlpack(buf)


def test_numpy2_and_torch2_share_a_pinned_host_buffer(oneapi, pinned_host):
    host = np.arange(6, dtype=np.int32)
    buf = oneapi.buffer(host, device=pinned_host)
    producer = Recorder(buf)
    a = np.from_dlpack(producer, copy=False)
    assert producer.calls[0]["max_version"] >= (1, 0)  # the versioned protocol
    t = torch.from_dlpack(buf)
    assert a.ctypes.data == t.data_ptr() == buf.unsafe_buffer_pointer()
    t[3] = -7
    assert a[3] == -7 and np.asarray(buf)[3] == -7


def test_torch2_table_takes_our_pinned_host_export_and_refuses_device_memory(oneapi, pinned_host):
    ours, theirs = Table(pjrt_dlpack.Buffer), Table(torch.Tensor)
    host = np.arange(8, dtype=np.float32)
    pinned = oneapi.buffer(host, device=pinned_host)
    address = ours.managed(pinned)
    counter = CountingDeleter(address)
    t = theirs.to_object(address)
    assert isinstance(t, torch.Tensor) and t.data_ptr() == pinned.unsafe_buffer_pointer()
    assert t.tolist() == host.tolist()
    del t
    gc.collect()
    assert counter.calls == 1
    # A kDLOneAPI tensor: PyTorch 2 without Intel's XPU support raises.
    device_buf = oneapi.buffer(host)
    address = ours.managed(device_buf)
    counter = CountingDeleter(address)
    with pytest.raises(RuntimeError, match="XPU"):
        theirs.to_object(address)
    if counter.calls == 0:  # not taken: the tensor is still ours to delete
        counter.delete()
    assert counter.calls == 1
    assert device_buf.to_bytes() == host.tobytes()


def test_jax_cpu_views_a_pinned_host_buffer_and_refuses_device_memory(oneapi, pinned_host):
    assert [d.platform for d in jax.devices()] == ["cpu"]  # JAX's own backend
    host = np.arange(16, dtype=np.float32)
    buf = oneapi.buffer(host, device=pinned_host)
    x = jax.dlpack.from_dlpack(buf)
    assert x.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
    np.testing.assert_array_equal(np.asarray(x), host)
    buf.delete()  # the export's pin keeps the memory for JAX
    np.testing.assert_array_equal(np.asarray(x), host)
    with pytest.raises(TypeError, match="DLDeviceType: 14"):
        jax.dlpack.from_dlpack(oneapi.buffer(host))


def test_jax_arrays_to_pinned_host_and_device_memory(oneapi):
    x = jax.numpy.arange(32, dtype=jax.numpy.float32)
    view = oneapi.from_dlpack(x, copy=False)
    assert view.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
    assert view.memory.kind == "pinned_host"
    on_dev = oneapi.from_dlpack(x, device=oneapi.devices[0])
    assert on_dev.__dlpack_device__() == (KDL_ONEAPI, 0)
    assert on_dev.to_bytes() == np.asarray(x).tobytes()
