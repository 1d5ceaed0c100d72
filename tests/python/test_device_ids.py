"""DLPack device ids of host memory: 0 whatever device the memory belongs to
(dlpack.h: device_id is 0 for plain, pinned and managed CPU memory). JAX maps
a kDLCPU id to one of its own CPU devices and has one by default, so any
other id breaks the exchange there."""
import numpy as np
import pytest

import pjrt_dlpack


@pytest.fixture(scope="module")
def cpu3(plugin):
    return plugin.client(platform="cpu", num_devices=3)


def test_host_buffers_on_any_device_have_id_0(cpu3, xpu):
    buf = cpu3.buffer(np.arange(3, dtype=np.int32), device=cpu3.devices[2])
    assert buf.device.id == cpu3.devices[2].id
    assert buf.__dlpack_device__() == (pjrt_dlpack.kDLCPU, 0)
    assert cpu3.devices[2].dlpack_device == (pjrt_dlpack.kDLCPU, 0)
    pinned = [m for m in xpu.devices[1].memories if m.kind == "pinned_host"][0]
    b = xpu.buffer(np.arange(4, dtype=np.float32), device=pinned)
    assert b.__dlpack_device__() == (pjrt_dlpack.kDLCPU, 0)
    # Device memory keeps the device's id.
    assert xpu.devices[1].dlpack_device == (pjrt_dlpack.kDLOneAPI, xpu.devices[1].local_hardware_id)


def test_host_tensor_goes_to_the_named_device_as_a_view(cpu3):
    host = np.arange(12, dtype=np.float32)
    buf = cpu3.from_dlpack(host, device=cpu3.devices[2], copy=False)
    assert buf.device.id == cpu3.devices[2].id
    assert buf.unsafe_buffer_pointer() == host.ctypes.data
    first = cpu3.from_dlpack(host, copy=False)  # no device named: the first
    assert first.device.id == cpu3.devices[0].id
