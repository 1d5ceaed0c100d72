"""The Python module on Intel's oneAPI PJRT plugin over ze_sim (zesim/): a
oneAPI buffer exported as kDLOneAPI, views imported, and the stream
extension's WaitUntilBufferReadyOnStream path with a real plugin behind it.
ctest runs it with ze_sim and the plugin's runtime on LD_LIBRARY_PATH and the
plugin in PJRT_ONEAPI_PLUGIN; a missing plugin fails, it never skips."""
import os

import numpy as np
import pytest

import pjrt_dlpack
from aligned_arrays import aligned
from dlpack_ctypes import KDL_CPU, KDL_ONEAPI, capsule_name, versioned


@pytest.fixture(scope="module")
def oneapi():
    path = os.environ.get("PJRT_ONEAPI_PLUGIN")
    if not path or not os.path.exists(path):
        pytest.fail("PJRT_ONEAPI_PLUGIN is not set to Intel's oneAPI plugin (run scripts/setup.sh)")
    client = pjrt_dlpack.load_plugin(path).client()
    assert client.platform == "oneapi"
    return client


def test_one_simulated_gpu_with_device_and_pinned_host_memory(oneapi):
    (dev,) = oneapi.devices
    assert dev.kind.startswith("ze_sim simulated Intel GPU")
    kinds = {m.kind: m.dlpack_device for m in dev.memories}
    assert kinds == {"device": (KDL_ONEAPI, 0), "pinned_host": (KDL_CPU, 0)}
    assert dev.default_memory.kind == "device"


def test_export_is_kdloneapi(oneapi):
    host = np.arange(24, dtype=np.float32).reshape(4, 6)
    buf = oneapi.buffer(host)
    assert buf.__dlpack_device__() == (KDL_ONEAPI, 0)
    cap = buf.__dlpack__(max_version=(1, 0))
    t = versioned(cap).dl_tensor
    assert (t.device.device_type, t.device.device_id) == (KDL_ONEAPI, 0)
    assert t.data == buf.unsafe_buffer_pointer()
    assert t.dims() == (4, 6)
    assert buf.to_bytes() == host.tobytes()
    with pytest.raises((BufferError, RuntimeError, TypeError)):
        np.from_dlpack(buf)  # NumPy reads host memory only


def test_import_of_its_own_export_is_a_view(oneapi):
    buf = oneapi.buffer(np.arange(100, dtype=np.int32))
    again = oneapi.from_dlpack(buf.__dlpack__(max_version=(1, 0)), copy=False)
    assert again.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
    assert again.__dlpack_device__() == (KDL_ONEAPI, 0)
    assert again.to_bytes() == np.arange(100, dtype=np.int32).tobytes()


def test_host_arrays_are_viewed_in_pinned_host_memory(oneapi):
    host = aligned((8, 8), np.float32)
    host[...] = np.arange(64, dtype=np.float32).reshape(8, 8)
    buf = oneapi.from_dlpack(host, copy=False)
    assert buf.unsafe_buffer_pointer() == host.ctypes.data
    assert buf.memory.kind == "pinned_host"
    host[1, 2] = -3.0
    assert np.asarray(buf)[1, 2] == -3.0
    col = aligned((4, 3), np.float32)
    col[...] = np.arange(12, dtype=np.float32).reshape(4, 3)
    view = oneapi.from_dlpack(col.T, copy=False)
    assert view.unsafe_buffer_pointer() == col.ctypes.data
    np.testing.assert_array_equal(np.asarray(view), col.T)


def test_import_through_the_consumers_stream(oneapi):
    """from_dlpack(buffer) as a consumer with a stream: the producer's
    __dlpack__(stream=) makes that stream wait (WaitUntilBufferReadyOnStream)
    and the view is ready where the stream is. Fresh buffers: their
    host-to-device copies complete later, on ze_sim's worker."""
    dev = oneapi.devices[0]
    stream = dev.stream
    assert isinstance(stream, int) and stream not in (0, -1)
    want = np.arange(4096, dtype=np.float32)
    for i in range(5):
        buf = oneapi.buffer(want + i)
        again = oneapi.from_dlpack(buf)
        assert again.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
        assert again.to_bytes() == (want + i).tobytes()


def test_stream_exports_hand_out_both_capsules(oneapi):
    stream = oneapi.devices[0].stream
    buf = oneapi.buffer(np.arange(8, dtype=np.int64))
    assert capsule_name(buf.__dlpack__(stream=stream, max_version=(1, 0))) == "dltensor_versioned"
    assert capsule_name(buf.__dlpack__(stream=stream)) == "dltensor"
    assert buf.to_bytes() == np.arange(8, dtype=np.int64).tobytes()
