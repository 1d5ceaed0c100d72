"""The DLPack protocol with today's consumers: which capsule each gets, what
each passes to __dlpack__, capsule renaming, copy= and dl_device=, and the
exception types the array API standard (2023.12/2024.12) asks for."""
import gc

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import pjrt_dlpack
from dlpack_helpers import (IS_COPIED, JAX_0_12, KDL_CPU, READ_ONLY, Holder, Recorder,
                            capsule_name, capsule_valid, legacy, versioned)


# ------------------------------------------------- what consumers pass


def test_keywords_each_consumer_passes(cpu):
    buf = cpu.buffer(np.arange(4, dtype=np.float32))
    r = Recorder(buf)
    np.from_dlpack(r)
    assert r.calls[-1] == dict(dl_device=None, copy=None, max_version=(1, 0))
    np.from_dlpack(r, device="cpu", copy=True)
    assert r.calls[-1] == dict(dl_device=(KDL_CPU, 0), copy=True, max_version=(1, 0))
    torch.from_dlpack(r)
    assert r.calls[-1] == dict(max_version=(1, 0))
    # JAX 0.10 still asks the pre-2023 way: stream only, so a legacy capsule;
    # JAX 0.12 asks for DLPack 1.3.
    jax.dlpack.from_dlpack(r)
    assert r.calls[-1] == (dict(stream=None, max_version=(1, 3)) if JAX_0_12 else
                           dict(stream=None))


def test_versioned_capsule_when_max_version_allows(cpu):
    buf = cpu.buffer(np.arange(4, dtype=np.float32))
    for mv in [(1, 0), (1, 3), (1, 99)]:
        t = versioned(buf.__dlpack__(max_version=mv))
        assert (t.major, t.flags & IS_COPIED) == (1, 0)
        assert t.dl_tensor.data == buf.unsafe_buffer_pointer()
    for mv in [None, (0, 8), (0, 5)]:
        assert legacy(buf.__dlpack__(max_version=mv)).dl_tensor.data == \
            buf.unsafe_buffer_pointer()


def test_max_version_with_another_major(cpu):
    buf = cpu.buffer(np.arange(4, dtype=np.float32))
    # A consumer of major 2 still gets our 1.x tensor and must check it; the
    # consumers here do so (NumPy and PyTorch give the same answer).
    t = versioned(buf.__dlpack__(max_version=(2, 0)))
    assert t.major == 1
    assert capsule_name(np.arange(2).__dlpack__(max_version=(2, 0))) == "dltensor_versioned"
    assert capsule_name(torch.arange(2).__dlpack__(max_version=(2, 0))) == "dltensor_versioned"


def test_consumer_refuses_a_tensor_of_another_major(cpu):
    src = torch.arange(4, dtype=torch.float32)
    cap = src.__dlpack__(max_version=(1, 0))
    t = versioned(cap)
    t.major = 2
    with pytest.raises(BufferError, match="version 2"):
        cpu.from_dlpack(cap)
    # Not consumed: the capsule still owns the tensor and frees it.
    assert capsule_name(cap) == "dltensor_versioned"
    t.major = 1
    buf = cpu.from_dlpack(cap)
    assert buf.unsafe_buffer_pointer() == src.data_ptr()


# ------------------------------------------------- capsule consumption


@pytest.mark.parametrize("max_version, name", [((1, 0), "dltensor_versioned"),
                                               (None, "dltensor")])
def test_torch_renames_our_capsules(cpu, max_version, name):
    buf = cpu.buffer(np.arange(4, dtype=np.float32))
    cap = buf.__dlpack__(max_version=max_version)
    assert capsule_valid(cap, name)
    t = torch.from_dlpack(cap)
    assert capsule_name(cap) == "used_" + name
    assert not capsule_valid(cap, name) and capsule_valid(cap, "used_" + name)
    assert t.data_ptr() == buf.unsafe_buffer_pointer()
    with pytest.raises(BufferError):
        cpu.from_dlpack(cap)


def test_numpy_consumes_our_capsules(cpu):
    buf = cpu.buffer(np.arange(4, dtype=np.float32))
    cap = buf.__dlpack__(max_version=(1, 0))
    a = np.from_dlpack(Holder(cap, buf.__dlpack_device__()))
    assert capsule_name(cap) == "used_dltensor_versioned"
    assert a.ctypes.data == buf.unsafe_buffer_pointer()


@pytest.mark.parametrize("producer", ["numpy", "torch", "jax"])
@pytest.mark.parametrize("max_version", [(1, 0), None])
def test_we_rename_their_capsules(cpu, producer, max_version):
    src = {"numpy": lambda: np.arange(16, dtype=np.float32),
           "torch": lambda: torch.arange(16, dtype=torch.float32),
           "jax": lambda: jnp.arange(16, dtype=jnp.float32)}[producer]()
    cap = src.__dlpack__(max_version=max_version)
    # JAX 0.10 exports only legacy capsules, whatever max_version says; JAX
    # 0.12 versioned ones, read-only (so ours is a copy, as for any).
    name = ("dltensor_versioned" if max_version and (producer != "jax" or JAX_0_12) else
            "dltensor")
    assert capsule_name(cap) == name
    if name == "dltensor_versioned":
        assert bool(versioned(cap).flags & READ_ONLY) == (producer == "jax")
    buf = cpu.from_dlpack(cap)
    assert capsule_name(cap) == "used_" + name
    np.testing.assert_array_equal(np.from_dlpack(buf), np.arange(16, dtype=np.float32))
    with pytest.raises(BufferError, match="already consumed"):
        cpu.from_dlpack(cap)


def test_failed_import_leaves_the_capsule_unconsumed(xpu):
    src = np.arange(6, dtype=np.int32)[::2]
    cap = src.__dlpack__(max_version=(1, 0))
    with pytest.raises(BufferError):
        xpu.from_dlpack(cap, copy=False)
    assert capsule_name(cap) == "dltensor_versioned"
    del cap
    gc.collect()


# ------------------------------------------------- copy= as producer


@pytest.mark.parametrize("copy", [None, False, True])
def test_numpy_copy_keyword(cpu, copy):
    buf = cpu.buffer(np.arange(6, dtype=np.float64))
    a = np.from_dlpack(buf, copy=copy)
    assert (a.ctypes.data == buf.unsafe_buffer_pointer()) == (copy is not True)
    assert a.flags.writeable
    a[0] = 42
    assert (np.frombuffer(buf.to_bytes())[0] == 42) == (copy is not True)


@pytest.mark.parametrize("copy", [None, False, True])
def test_torch_copy_keyword(cpu, copy):
    buf = cpu.buffer(np.arange(6, dtype=np.float32))
    t = torch.from_dlpack(buf, copy=copy)
    assert (t.data_ptr() == buf.unsafe_buffer_pointer()) == (copy is not True)


def test_copy_true_flags_the_tensor(cpu, xpu):
    for buf in [cpu.buffer(np.arange(4.0)), xpu.buffer(np.arange(4.0))]:
        t = versioned(buf.__dlpack__(max_version=(1, 0), copy=True))
        assert t.flags & IS_COPIED
        assert t.dl_tensor.data != buf.unsafe_buffer_pointer()


def test_copy_true_on_a_device_stays_on_the_device(xpu):
    # dl_device=None means the buffer's own device, also for a copy.
    buf = xpu.buffer(np.arange(4, dtype=np.float32))
    cap = buf.__dlpack__(max_version=(1, 0), copy=True)
    t = versioned(cap)
    assert (t.dl_tensor.device.device_type, t.dl_tensor.device.device_id) == \
        buf.__dlpack_device__()
    assert t.flags & IS_COPIED
    copy = xpu.from_dlpack(cap)
    assert copy.device == buf.device
    assert copy.unsafe_buffer_pointer() != buf.unsafe_buffer_pointer()
    assert copy.to_bytes() == buf.to_bytes()
    leg = legacy(buf.__dlpack__(copy=True))
    assert leg.dl_tensor.device.device_type == buf.__dlpack_device__()[0]


def test_release_to_dlpack_copy_true_stays_on_the_device(xpu):
    # The transfer twin of the test above: release_to_dlpack(copy=True) hands
    # over a copy on the buffer's own device, and the buffer is gone after.
    buf = xpu.buffer(np.arange(4, dtype=np.float32))
    own, data = buf.__dlpack_device__(), buf.to_bytes()
    cap = buf.release_to_dlpack(max_version=(1, 0), copy=True)
    t = versioned(cap)
    assert (t.dl_tensor.device.device_type, t.dl_tensor.device.device_id) == own
    assert t.flags & IS_COPIED
    assert buf.is_deleted
    copy = xpu.from_dlpack(cap)
    assert copy.device == buf.device
    assert copy.to_bytes() == data


def test_copy_keyword_types(cpu):
    buf = cpu.buffer(np.arange(4.0))
    for bad in ["yes", 1, 0, np.bool_(True)]:
        with pytest.raises(TypeError):
            buf.__dlpack__(copy=bad)
        with pytest.raises(TypeError):
            cpu.from_dlpack(np.arange(2.0), copy=bad)


# ------------------------------------------------- dl_device as producer


def test_dl_device_own_device_is_zero_copy(cpu):
    buf = cpu.buffer(np.arange(4.0))
    t = versioned(buf.__dlpack__(max_version=(1, 0), dl_device=(KDL_CPU, 0), copy=False))
    assert t.dl_tensor.data == buf.unsafe_buffer_pointer() and not t.flags & IS_COPIED
    a = np.from_dlpack(buf, device="cpu", copy=False)
    assert a.ctypes.data == buf.unsafe_buffer_pointer()


def test_dl_device_the_producer_cannot_reach_is_a_buffer_error(cpu):
    buf = cpu.buffer(np.arange(4.0))
    for copy in [None, True, False]:
        with pytest.raises(BufferError):
            buf.__dlpack__(max_version=(1, 0), dl_device=(2, 0), copy=copy)  # kDLCUDA


def test_dl_device_keyword_types(cpu):
    buf = cpu.buffer(np.arange(4.0))
    with pytest.raises(TypeError):
        buf.__dlpack__(dl_device=KDL_CPU)
    with pytest.raises(TypeError):
        buf.__dlpack__(max_version=(1,))


def test_stream_on_the_cpu_is_refused(cpu):
    # The standard: on devices without streams only None is accepted.
    buf = cpu.buffer(np.arange(4.0))
    with pytest.raises(BufferError):
        buf.__dlpack__(stream=5)


# ------------------------------------------------- copy= / device= as consumer


def test_consumer_copy_keyword(cpu):
    for make, ptr in [(lambda: np.arange(16.0), lambda a: a.ctypes.data),
                      (lambda: torch.arange(16.0), lambda t: t.data_ptr())]:
        src = make()
        assert cpu.from_dlpack(src).unsafe_buffer_pointer() == ptr(src)
        assert cpu.from_dlpack(src, copy=False).unsafe_buffer_pointer() == ptr(src)
        assert cpu.from_dlpack(src, copy=True).unsafe_buffer_pointer() != ptr(src)


def test_consumer_copy_false_when_a_copy_is_needed(cpu):
    with pytest.raises(BufferError):
        cpu.from_dlpack(np.arange(8.0)[::2], copy=False)
    with pytest.raises(BufferError):
        cpu.from_dlpack(torch.arange(8.0)[::2], copy=False)


def test_consumer_device_needing_a_copy_with_copy_false(xpu):
    # The standard: BufferError for copy=False when a copy is needed, and
    # ValueError when device= needs one: the error is both.
    with pytest.raises(BufferError) as e:
        xpu.from_dlpack(np.arange(4.0), device=xpu.devices[0], copy=False)
    assert isinstance(e.value, ValueError)
    assert isinstance(e.value, pjrt_dlpack.DLPackError)
    assert type(e.value).__name__ == "DLPackCopyError"
    cap = np.arange(4.0).__dlpack__(max_version=(1, 0))
    with pytest.raises(ValueError):
        pjrt_dlpack.from_dlpack(cap, device=xpu.devices[0], copy=False)
    assert capsule_name(cap) == "dltensor_versioned"
    buf = pjrt_dlpack.from_dlpack(cap, device=xpu.devices[0])
    assert buf.to_bytes() == np.arange(4.0).tobytes()


def test_consumer_asks_a_device_producer_for_a_host_copy(cpu, xpu):
    # Our xpu buffer as a foreign producer whose memory the cpu client cannot
    # read: with a host device= the consumer asks for dl_device=(kDLCPU, 0).
    src = xpu.buffer(np.arange(5, dtype=np.int32))
    r = Recorder(src)
    buf = cpu.from_dlpack(r, device=cpu.devices[0])
    assert r.calls[-1]["dl_device"] == (KDL_CPU, 0)
    assert buf.to_bytes() == src.to_bytes()
    with pytest.raises(ValueError):
        cpu.from_dlpack(Recorder(src), device=cpu.devices[0], copy=False)
    with pytest.raises(BufferError):
        cpu.from_dlpack(src)  # no device=: the tensor's own, which cpu has not
