"""The Python module on Intel's oneAPI PJRT plugin over ze_sim (zesim/), in
both environments (Debian's NumPy 1.24 / PyTorch 1.13 and the modern one):
a oneAPI buffer exported as kDLOneAPI, views imported from NumPy, PyTorch
and ourselves, pinned_host memory, our DLPack C exchange table, and the
stream extension's WaitUntilBufferReadyOnStream path with a real plugin
behind it, on one simulated GPU and on two. The fixtures and ze_sim's
configuration are in conftest.py; what differs from the reference plugin is
in docs/plugin-authors.md."""
import ctypes
import gc
import os
import time

import numpy as np
import pytest
import torch
import torch.utils.dlpack

import pjrt_dlpack
from aligned_arrays import aligned
from dlpack_ctypes import (
    IS_COPIED,
    KDL_CPU,
    KDL_ONEAPI,
    CountingDeleter,
    Recorder,
    Table,
    capsule_name,
    legacy,
    managed,
    versioned,
)
from fresh_python import run_python

# Fresh buffers made back to back: ze_sim's worker runs their host-to-device
# copies one after another, ZE_SIM_DELAY_US each, so the last one's data
# arrives well after it was made (conftest.py).
BACKLOG = 12
ROUNDS = 6


def eventually(predicate, seconds=10.0):
    """Whether `predicate` holds within `seconds`, polled while this thread
    runs Python code (a deleter queued by another thread runs then)."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True

def device_streams(device):
    """The streams the device's get_stream hands out: XLA's GPU client gives
    one of a few in turn, so a handful of calls sees them all."""
    return {device.stream for _ in range(16)}


def arrived(buf, want):
    """Whether the device memory already holds `want`: ze_sim's device
    memory is host memory, so the test can look (a real GPU's cannot)."""
    return ctypes.string_at(buf.unsafe_buffer_pointer(), want.nbytes) == want.tobytes()


def consume_pending(client, device, consume):
    """Makes BACKLOG fresh buffers on `device`, ROUNDS times, and hands the
    last of each round to consume(buffer) -> a buffer viewing it; checks the
    view's address and bytes. Returns how many rounds had the last copy
    still pending when it was consumed (zero would mean the test tested
    nothing)."""
    pending = 0
    for r in range(ROUNDS):
        want = np.full(4096, r, dtype=np.float32)
        bufs = [client.buffer(want + k, device=device) for k in range(BACKLOG)]
        last, want = bufs[-1], want + (BACKLOG - 1)
        pending += not arrived(last, want)
        view = consume(last)
        assert view.unsafe_buffer_pointer() == last.unsafe_buffer_pointer()
        assert view.device == device
        assert view.to_bytes() == want.tobytes(), f"round {r}: stale data"
    return pending


# ------------------------------------------------------------- the client


def test_one_simulated_gpu_with_device_and_pinned_host_memory(oneapi):
    (dev,) = oneapi.devices
    assert dev.kind == "ze_sim simulated Intel GPU 0"
    assert dev.dlpack_device == dev.__dlpack_device__() == (KDL_ONEAPI, 0)
    kinds = {m.kind: m.dlpack_device for m in dev.memories}
    assert kinds == {"device": (KDL_ONEAPI, 0), "pinned_host": (KDL_CPU, 0)}
    assert dev.default_memory.kind == "device"


# ----------------------------------------------------------------- export


def test_export_is_kdloneapi_in_both_capsules(oneapi):
    host = np.arange(24, dtype=np.float32).reshape(4, 6)
    buf = oneapi.buffer(host)
    assert buf.__dlpack_device__() == (KDL_ONEAPI, 0)
    assert buf.memory.kind == "device"
    v = versioned(buf.__dlpack__(max_version=(1, 0)))
    t = v.dl_tensor
    assert (t.device.device_type, t.device.device_id) == (KDL_ONEAPI, 0)
    assert t.data == buf.unsafe_buffer_pointer() and v.flags & IS_COPIED == 0
    assert t.dims() == (4, 6) and t.steps() == (6, 1)
    lt = legacy(buf.__dlpack__()).dl_tensor
    assert (lt.device.device_type, lt.data) == (KDL_ONEAPI, buf.unsafe_buffer_pointer())
    assert buf.to_bytes() == host.tobytes()


def test_export_to_the_host_is_a_flagged_copy(oneapi):
    host = np.arange(10, dtype=np.int16)
    buf = oneapi.buffer(host)
    v = versioned(buf.__dlpack__(max_version=(1, 0), dl_device=(KDL_CPU, 0)))
    assert (v.dl_tensor.device.device_type, v.flags & IS_COPIED) == (KDL_CPU, IS_COPIED)
    assert v.dl_tensor.data != buf.unsafe_buffer_pointer()
    assert ctypes.string_at(v.dl_tensor.data, host.nbytes) == host.tobytes()
    with pytest.raises(BufferError):
        buf.__dlpack__(max_version=(1, 0), dl_device=(KDL_CPU, 0), copy=False)
    np.testing.assert_array_equal(np.asarray(buf), host)  # __array__: a host copy


def test_numpy_and_torch_refuse_a_device_buffer_clearly(oneapi):
    """Neither consumer reads kDLOneAPI memory: an exception naming the
    device, no crash, and the buffer stays usable."""
    buf = oneapi.buffer(np.arange(6, dtype=np.float32))
    with pytest.raises(RuntimeError, match="[Uu]nsupported device"):
        np.from_dlpack(buf)
    producer = Recorder(buf)
    # PyTorch 1.13: "Unsupported device_type: 14"; PyTorch 2 (a build
    # without Intel's XPU support): "Cannot get device of pointer on XPU".
    with pytest.raises(RuntimeError, match="device_type: 14|on XPU"):
        torch.utils.dlpack.from_dlpack(producer)
    assert len(producer.calls) == 1  # it asked, then refused the capsule
    gc.collect()
    assert buf.to_bytes() == np.arange(6, dtype=np.float32).tobytes()
    buf.delete()
    assert buf.is_deleted


# ----------------------------------------------------------------- import


def test_import_of_its_own_export_is_a_view(oneapi):
    buf = oneapi.buffer(np.arange(100, dtype=np.int32))
    for capsule in (buf.__dlpack__(max_version=(1, 0)), buf.__dlpack__()):
        again = oneapi.from_dlpack(capsule, copy=False)
        assert again.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
        assert again.__dlpack_device__() == (KDL_ONEAPI, 0)
        assert again.to_bytes() == np.arange(100, dtype=np.int32).tobytes()


def test_numpy_arrays_are_viewed_in_pinned_host_memory(oneapi):
    host = aligned((8, 8), np.float32)
    host[...] = np.arange(64, dtype=np.float32).reshape(8, 8)
    buf = oneapi.from_dlpack(host, copy=False)
    assert buf.unsafe_buffer_pointer() == host.ctypes.data
    assert buf.memory.kind == "pinned_host" and buf.__dlpack_device__() == (KDL_CPU, 0)
    host[1, 2] = -3.0
    assert np.asarray(buf)[1, 2] == -3.0
    col = aligned((4, 3), np.float32)
    col[...] = np.arange(12, dtype=np.float32).reshape(4, 3)
    view = oneapi.from_dlpack(col.T, copy=False)
    assert view.unsafe_buffer_pointer() == col.ctypes.data
    np.testing.assert_array_equal(np.asarray(view), col.T)
    # Not one byte of alignment is asked for (XLA's CPU plugin asks 64).
    odd = np.arange(13, dtype=np.uint8)[1:]
    assert oneapi.from_dlpack(odd, copy=False).unsafe_buffer_pointer() == odd.ctypes.data
    # Negative strides cannot be viewed: copy=False refuses, the default copies.
    flipped = np.arange(6, dtype=np.float32)[::-1]
    with pytest.raises(pjrt_dlpack.DLPackError, match="negative stride"):
        oneapi.from_dlpack(flipped, copy=False)
    assert oneapi.from_dlpack(flipped).to_bytes() == flipped.tobytes()


def test_torch_tensors_are_viewed_in_pinned_host_memory(oneapi):
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    buf = oneapi.from_dlpack(t, copy=False)
    assert buf.unsafe_buffer_pointer() == t.data_ptr()
    assert buf.memory.kind == "pinned_host"
    t[2, 3] = 99.0
    assert np.asarray(buf)[2, 3] == 99.0
    view = oneapi.from_dlpack(t.T, copy=False)  # column-major: still a view
    assert view.unsafe_buffer_pointer() == t.data_ptr()
    np.testing.assert_array_equal(np.asarray(view), t.T.numpy())


def test_moves_between_device_and_pinned_host_memory_copy(oneapi, pinned_host):
    dev = oneapi.devices[0]
    host = np.arange(16, dtype=np.float64)
    on_dev = oneapi.from_dlpack(host, device=dev)
    assert on_dev.__dlpack_device__() == (KDL_ONEAPI, 0)
    assert on_dev.to_bytes() == host.tobytes()
    with pytest.raises(pjrt_dlpack.DLPackCopyError):
        oneapi.from_dlpack(host, device=dev, copy=False)
    back = oneapi.from_dlpack(on_dev, device=pinned_host)
    assert back.memory.kind == "pinned_host"
    assert back.unsafe_buffer_pointer() != on_dev.unsafe_buffer_pointer()
    np.testing.assert_array_equal(np.from_dlpack(back), host)
    with pytest.raises(pjrt_dlpack.DLPackCopyError):
        oneapi.from_dlpack(on_dev, device=pinned_host, copy=False)


# ---------------------------------------------------- pinned_host buffers


def test_pinned_host_buffers_go_to_numpy_and_torch_without_a_copy(oneapi, pinned_host):
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    buf = oneapi.buffer(host, device=pinned_host)
    assert buf.memory.kind == "pinned_host" and buf.__dlpack_device__() == (KDL_CPU, 0)
    assert buf.device == oneapi.devices[0]
    a = np.from_dlpack(buf)
    t = torch.utils.dlpack.from_dlpack(buf)
    assert a.ctypes.data == t.data_ptr() == buf.unsafe_buffer_pointer()
    np.testing.assert_array_equal(a, host)
    t[0, 1] = -1.0  # one memory for all three
    assert a[0, 1] == -1.0 and np.asarray(buf)[0, 1] == -1.0
    # The exports pin the memory: deleting the buffer leaves it to them.
    buf.delete()
    assert buf.is_deleted
    assert a.sum() == host.sum() - 2.0 and float(t.sum()) == host.sum() - 2.0


# ------------------------------------------------------------ the streams


def test_the_stream_extension_hands_out_streams_in_turn(oneapi):
    dev = oneapi.devices[0]
    streams = device_streams(dev)
    assert len(streams) > 1 and all(isinstance(s, int) and s > 0 for s in streams)
    buf = oneapi.buffer(np.arange(8, dtype=np.int64))
    for s in streams:
        assert capsule_name(buf.__dlpack__(stream=s, max_version=(1, 0))) == "dltensor_versioned"
        assert capsule_name(buf.__dlpack__(stream=s)) == "dltensor"
    # Stream 0 is no stream of the plugin's: its error, not a crash.
    with pytest.raises(pjrt_dlpack.Error, match="Stream handle is not initialized"):
        buf.__dlpack__(stream=0)
    assert buf.to_bytes() == np.arange(8, dtype=np.int64).tobytes()


def test_a_consumer_stream_waits_for_pending_copies(oneapi):
    """A producer that is not one of our Buffers (Recorder): from_dlpack
    passes the device's stream to __dlpack__(stream=), the export makes that
    stream wait for the buffer (WaitUntilBufferReadyOnStream) without
    waiting itself, and the view is created on the stream; reading the view
    then sees the data even though the copy was still pending. Without
    either half the read is stale (checked by removing each once)."""
    dev = oneapi.devices[0]
    streams = device_streams(dev)
    seen = []

    def consume(buf):
        producer = Recorder(buf)
        view = oneapi.from_dlpack(producer)
        (kwargs,) = producer.calls
        seen.append(kwargs["stream"])
        return view

    assert consume_pending(oneapi, dev, consume) > 0
    assert set(seen) <= streams
    # The module-level from_dlpack (every live client) does the same.
    assert consume_pending(oneapi, dev, lambda b: pjrt_dlpack.from_dlpack(Recorder(b))) > 0


def test_our_own_buffers_wait_for_pending_copies(oneapi):
    """Our Buffer goes through our exchange table: the export waits for the
    ready event on the host, no stream."""
    assert consume_pending(oneapi, oneapi.devices[0], oneapi.from_dlpack) > 0
    capsule_view = consume_pending(
        oneapi, oneapi.devices[0],
        lambda b: oneapi.from_dlpack(b.__dlpack__(max_version=(1, 0))))
    assert capsule_view > 0


# ------------------------------------------------ our DLPack C exchange table


def test_our_exchange_table_on_a_oneapi_buffer(oneapi, pinned_host):
    table = Table(pjrt_dlpack.Buffer)
    dev = oneapi.devices[0]
    assert table.stream(KDL_ONEAPI, 0) in device_streams(dev)
    assert table.stream(KDL_CPU, 0) is None and table.stream(KDL_ONEAPI, 1) is None
    host = np.arange(20, dtype=np.float32).reshape(4, 5)
    for memory, dl in ((dev.default_memory, (KDL_ONEAPI, 0)), (pinned_host, (KDL_CPU, 0))):
        buf = oneapi.buffer(host, device=memory)
        d = table.dltensor(buf)
        assert (d.device.device_type, d.device.device_id) == dl
        assert d.data == buf.unsafe_buffer_pointer() and d.dims() == (4, 5)
        address = table.managed(buf)
        t = managed(address)
        assert t.flags & IS_COPIED == 0 and t.dl_tensor.data == buf.unsafe_buffer_pointer()
        counter = CountingDeleter(address)
        view = table.to_object(address)  # our own tensor back: a view
        assert view.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
        assert view.memory.kind == memory.kind and view.to_bytes() == host.tobytes()
        del view
        gc.collect()
        # Intel's plugin calls a view's on-delete callback from its own
        # thread once the memory is free: the module queues the deleter
        # for this one, which runs it at its next chance.
        assert eventually(lambda: counter.calls == 1), counter.calls


def test_our_exchange_table_allocates_device_memory(oneapi):
    address, errors = Table(pjrt_dlpack.Buffer).allocate((3, 5), device=(KDL_ONEAPI, 0))
    assert not errors
    t = managed(address)
    assert (t.dl_tensor.device.device_type, t.dl_tensor.device.device_id) == (KDL_ONEAPI, 0)
    buf = Table(pjrt_dlpack.Buffer).to_object(address)  # owns the tensor from here
    assert buf.shape == (3, 5) and buf.memory.kind == "device"
    assert buf.unsafe_buffer_pointer() == t.dl_tensor.data


# -------------------------------------------------------------- two GPUs


def test_two_simulated_gpus(monkeypatch):
    """ZE_SIM_DEVICES=2, in a fresh interpreter (ze_sim reads it once):
    each GPU its own kDLOneAPI device id and its own streams, the stream
    path on the second, and host data placed on either."""
    monkeypatch.setenv("ZE_SIM_DEVICES", "2")
    here = os.path.dirname(os.path.abspath(__file__))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([here, os.environ.get("PYTHONPATH", "")]))
    out = run_python("""
        import os, numpy as np, pjrt_dlpack, pytest
        from dlpack_ctypes import KDL_CPU, KDL_ONEAPI, Recorder, versioned
        import test_oneapi as T
        c = pjrt_dlpack.load_plugin(os.environ["PJRT_ONEAPI_PLUGIN"]).client()
        d0, d1 = c.devices
        assert [d.dlpack_device for d in c.devices] == [(KDL_ONEAPI, 0), (KDL_ONEAPI, 1)]
        assert {m.kind: m.dlpack_device for m in d1.memories} == {
            "device": (KDL_ONEAPI, 1), "pinned_host": (KDL_CPU, 0)}
        s0, s1 = T.device_streams(d0), T.device_streams(d1)
        assert s0 and s1 and not s0 & s1
        b1 = c.buffer(np.arange(6, dtype=np.float32), device=d1)
        assert b1.__dlpack_device__() == (KDL_ONEAPI, 1)
        t = versioned(b1.__dlpack__(max_version=(1, 0))).dl_tensor
        assert (t.device.device_type, t.device.device_id) == (KDL_ONEAPI, 1)
        seen = []
        def consume(buf):
            producer = Recorder(buf)
            view = c.from_dlpack(producer)
            seen.append(producer.calls[0]["stream"])
            return view
        assert T.consume_pending(c, d1, consume) > 0
        assert set(seen) <= s1
        a = np.arange(6, dtype=np.float32)
        on_d1 = c.from_dlpack(a, device=d1)
        assert on_d1.device == d1 and on_d1.__dlpack_device__() == (KDL_ONEAPI, 1)
        assert on_d1.to_bytes() == a.tobytes()
        # Device memory to another GPU: the library copies through the
        # host only, and kDLOneAPI is not host memory: refused, clearly.
        b0 = c.buffer(a, device=d0)
        with pytest.raises(pjrt_dlpack.DLPackError, match="not reachable from the host"):
            c.from_dlpack(b0, device=d1)
        print("two GPUs ok")
    """)
    assert "two GPUs ok" in out
