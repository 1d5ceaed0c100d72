"""PJRT buffers exported through __dlpack__ to NumPy, PyTorch and capsules."""
import gc

import numpy as np
import pytest
import torch

import pjrt_dlpack
from dlpack_ctypes import Holder, capsule_name
from dtype_names import NOT_IN_TORCH_1_13, NUMERIC


def test_numpy_shares_memory_with_the_buffer(cpu):
    buf = cpu.buffer(np.arange(12, dtype=np.float32).reshape(3, 4))
    view = np.from_dlpack(buf)
    assert view.shape == (3, 4) and view.dtype == np.float32
    assert view.ctypes.data == buf.unsafe_buffer_pointer()
    # NumPy 1.24 marks DLPack imports read-only: write through PyTorch.
    t = torch.from_dlpack(buf)
    t[1, 2] = -5.0
    assert view[1, 2] == -5.0
    assert np.frombuffer(buf.to_bytes(), dtype=np.float32)[6] == -5.0


def test_torch_shares_memory_with_the_buffer(cpu):
    buf = cpu.buffer(np.arange(6, dtype=np.int64))
    t = torch.from_dlpack(buf)
    assert t.data_ptr() == buf.unsafe_buffer_pointer()
    view = np.from_dlpack(buf)
    assert view.ctypes.data == t.data_ptr()
    t[3] = 42
    assert view[3] == 42
    t2 = torch.from_dlpack(buf)
    t2[0] = 7
    assert t[0].item() == 7 and view[0] == 7
    assert np.frombuffer(buf.to_bytes(), dtype=np.int64).tolist() == [7, 1, 2, 42, 4, 5]


@pytest.mark.parametrize("dtype", [t for t in NUMERIC if t not in NOT_IN_TORCH_1_13])
def test_torch_consumes_every_dtype(cpu, dtype):
    a = (np.arange(6) % 3).astype(dtype)
    buf = cpu.buffer(a)
    t = torch.from_dlpack(buf)
    assert t.data_ptr() == buf.unsafe_buffer_pointer()
    np.testing.assert_array_equal(t.numpy(), a)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_numpy_consumes_every_dtype(cpu, dtype):
    a = (np.arange(6) % 3).astype(dtype)
    buf = cpu.buffer(a)
    view = np.from_dlpack(buf)
    assert view.dtype == np.dtype(dtype)
    assert view.ctypes.data == buf.unsafe_buffer_pointer()
    np.testing.assert_array_equal(view, a)


def test_export_outlives_buffer_and_client(plugin):
    client = plugin.client(platform="cpu")
    buf = client.buffer(np.arange(5, dtype=np.int32))
    t = torch.from_dlpack(buf)
    del buf, client
    gc.collect()
    assert t.tolist() == [0, 1, 2, 3, 4]
    t[0] = 9  # the memory is still pinned
    assert t.tolist() == [9, 1, 2, 3, 4]


def test_deleted_buffer_memory_stays_valid_while_exported(cpu):
    buf = cpu.buffer(np.arange(4, dtype=np.float64))
    view = np.from_dlpack(buf)
    buf.delete()
    assert buf.is_deleted
    assert view.tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("gone", ["delete", "release_to_dlpack"])
def test_no_export_once_the_buffer_is_gone(cpu, gone):
    # Exports after the first reuse its data pointer (and keep the GIL):
    # that pointer must never be handed out after a delete or a transfer.
    buf = cpu.buffer(np.arange(4, dtype=np.float32))
    ptr = buf.unsafe_buffer_pointer()
    for _ in range(3):
        assert torch.from_dlpack(buf).data_ptr() == ptr
        assert np.from_dlpack(buf).ctypes.data == ptr
    moved = None
    if gone == "delete":
        buf.delete()
    else:
        moved = torch.utils.dlpack.from_dlpack(buf.release_to_dlpack())
    for export in (lambda: torch.from_dlpack(buf), lambda: np.from_dlpack(buf),
                   lambda: buf.__dlpack__(max_version=(1, 0))):
        with pytest.raises(BufferError) as info:
            export()
        assert info.value.code_name == "FAILED_PRECONDITION"
    if moved is not None:
        assert moved.data_ptr() == ptr and moved.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_versioned_and_legacy_capsules(cpu):
    buf = cpu.buffer(np.zeros(3, dtype=np.float32))
    assert capsule_name(buf.__dlpack__()) == "dltensor"
    assert capsule_name(buf.__dlpack__(max_version=None)) == "dltensor"
    assert capsule_name(buf.__dlpack__(max_version=(0, 8))) == "dltensor"
    assert capsule_name(buf.__dlpack__(max_version=(1, 0))) == "dltensor_versioned"
    assert capsule_name(buf.__dlpack__(max_version=(1, 3))) == "dltensor_versioned"
    assert capsule_name(buf.__dlpack__(max_version=(2, 0))) == "dltensor_versioned"


def test_unconsumed_capsules_release_their_pin(cpu):
    buf = cpu.buffer(np.zeros(3, dtype=np.float32))
    for _ in range(50):
        buf.__dlpack__()
        buf.__dlpack__(max_version=(1, 0))
    buf.delete()
    assert buf.is_deleted


def test_dlpack_device(cpu):
    buf = cpu.buffer(np.zeros(1))
    assert buf.__dlpack_device__() == (pjrt_dlpack.kDLCPU, 0)
    assert buf.__dlpack_device__() == buf.device.dlpack_device


def test_dlpack_arguments_are_keyword_only_and_checked(cpu):
    buf = cpu.buffer(np.zeros(2))
    with pytest.raises(TypeError):
        buf.__dlpack__(None)
    with pytest.raises(TypeError, match="max_version"):
        buf.__dlpack__(max_version=1)
    with pytest.raises(TypeError, match="dl_device"):
        buf.__dlpack__(dl_device="cpu")
    with pytest.raises(TypeError, match="copy"):
        buf.__dlpack__(copy=1)
    with pytest.raises(TypeError, match="stream"):
        buf.__dlpack__(stream="s")


def test_stream_on_cpu_is_a_buffer_error(cpu):
    buf = cpu.buffer(np.zeros(2))
    with pytest.raises(BufferError):
        buf.__dlpack__(stream=5)
    # -1 asks for no synchronization; waiting anyway is correct.
    assert capsule_name(buf.__dlpack__(stream=-1)) == "dltensor"


def test_dl_device(cpu):
    buf = cpu.buffer(np.arange(3, dtype=np.int16))
    cap = buf.__dlpack__(dl_device=(pjrt_dlpack.kDLCPU, 0), copy=False, max_version=(1, 0))
    assert capsule_name(cap) == "dltensor_versioned"
    with pytest.raises(BufferError):
        buf.__dlpack__(dl_device=(pjrt_dlpack.kDLCUDA, 0))
    with pytest.raises(BufferError):
        buf.__dlpack__(dl_device=(pjrt_dlpack.kDLCUDA, 0), copy=False)


def test_copy_true_makes_a_copy(cpu):
    buf = cpu.buffer(np.arange(4, dtype=np.int32))
    cap = buf.__dlpack__(copy=True, max_version=(1, 0))
    # Import the copy back through our own consumer and check it is separate.
    other = cpu.from_dlpack(cap)
    assert other.unsafe_buffer_pointer() != buf.unsafe_buffer_pointer()
    assert other.to_bytes() == buf.to_bytes()


def test_copy_true_legacy_capsule_is_separate_memory(cpu):
    buf = cpu.buffer(np.arange(4, dtype=np.int32))
    t = torch.utils.dlpack.from_dlpack(buf.__dlpack__(copy=True))
    assert t.data_ptr() != buf.unsafe_buffer_pointer()
    t[0] = 99
    assert np.frombuffer(buf.to_bytes(), dtype=np.int32)[0] == 0


def test_consumed_capsule_is_refused(cpu):
    buf = cpu.buffer(np.arange(3, dtype=np.float32))
    cap = buf.__dlpack__()
    t = torch.utils.dlpack.from_dlpack(cap)
    assert capsule_name(cap) == "used_dltensor"
    with pytest.raises(BufferError, match="already consumed"):
        cpu.from_dlpack(cap)
    with pytest.raises(Exception):
        torch.utils.dlpack.from_dlpack(cap)
    assert t.tolist() == [0.0, 1.0, 2.0]


def test_consumed_versioned_capsule_is_refused(cpu):
    buf = cpu.buffer(np.arange(3, dtype=np.float32))
    cap = buf.__dlpack__(max_version=(1, 0))
    other = cpu.from_dlpack(cap)
    assert capsule_name(cap) == "used_dltensor_versioned"
    with pytest.raises(BufferError, match="already consumed"):
        cpu.from_dlpack(cap)
    assert other.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()


def test_release_to_dlpack_transfers_ownership(cpu):
    buf = cpu.buffer(np.arange(5, dtype=np.float32))
    ptr = buf.unsafe_buffer_pointer()
    cap = buf.release_to_dlpack()
    assert buf.is_deleted
    with pytest.raises(pjrt_dlpack.Error) as info:
        buf.to_bytes()
    assert info.value.code_name == "FAILED_PRECONDITION"
    with pytest.raises(BufferError):
        buf.__dlpack__()
    t = torch.utils.dlpack.from_dlpack(cap)
    assert t.data_ptr() == ptr
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    del buf
    gc.collect()
    assert t.sum().item() == 10.0


def test_release_to_dlpack_unconsumed_frees(cpu):
    buf = cpu.buffer(np.arange(5, dtype=np.float32))
    cap = buf.release_to_dlpack(max_version=(1, 0))
    assert capsule_name(cap) == "dltensor_versioned"
    del cap  # destructor calls the deleter: no leak (checked by valgrind runs)
    assert buf.is_deleted


def test_xpu_device_buffer_exports_its_device(xpu):
    buf = xpu.buffer(np.arange(6, dtype=np.float32), device=xpu.devices[1])
    assert buf.__dlpack_device__() == xpu.devices[1].dlpack_device
    cap = buf.__dlpack__(max_version=(1, 0))
    assert capsule_name(cap) == "dltensor_versioned"
    # NumPy cannot read device memory; a host copy can be asked for.
    with pytest.raises(BufferError):
        buf.__dlpack__(dl_device=(pjrt_dlpack.kDLCPU, 0), copy=False)
    host = buf.__dlpack__(dl_device=(pjrt_dlpack.kDLCPU, 0), copy=True)
    view = np.from_dlpack(Holder(host, (pjrt_dlpack.kDLCPU, 0)))
    np.testing.assert_array_equal(view, np.arange(6, dtype=np.float32))


def test_xpu_round_trip_is_zero_copy(xpu):
    buf = xpu.buffer(np.arange(6, dtype=np.int32).reshape(2, 3), device=xpu.devices[0])
    again = xpu.from_dlpack(buf)
    assert again.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
    assert again.device == buf.device
    assert again.to_bytes() == buf.to_bytes()


def test_xpu_pinned_host_memory_is_shared_with_numpy(xpu):
    pinned = [m for m in xpu.devices[0].memories if m.kind == "pinned_host"]
    assert pinned, "the reference plugin's xpu has pinned_host memory"
    buf = xpu.buffer(np.arange(4, dtype=np.float32), device=pinned[0])
    assert buf.__dlpack_device__()[0] == pjrt_dlpack.kDLCPU
    view = np.from_dlpack(buf)
    assert view.ctypes.data == buf.unsafe_buffer_pointer()
    t = torch.from_dlpack(buf)
    t[2] = 8
    assert view[2] == 8
    assert np.frombuffer(buf.to_bytes(), dtype=np.float32)[2] == 8


def test_cpu_devices_have_no_stream(cpu):
    assert cpu.devices[0].stream is None


def test_xpu_export_on_the_consumers_stream(xpu):
    dev = xpu.devices[0]
    stream = dev.stream
    assert isinstance(stream, int) and stream not in (0, -1)
    buf = xpu.buffer(np.arange(8, dtype=np.float32), device=dev)
    cap = buf.__dlpack__(stream=stream, max_version=(1, 0))
    again = xpu.from_dlpack(cap)
    assert again.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
    assert again.to_bytes() == np.arange(8, dtype=np.float32).tobytes()
    legacy = buf.__dlpack__(stream=stream)
    assert capsule_name(legacy) == "dltensor"


def test_xpu_export_with_a_bogus_stream_is_refused(xpu):
    buf = xpu.buffer(np.arange(3, dtype=np.int32), device=xpu.devices[0])
    with pytest.raises(pjrt_dlpack.Error):
        buf.__dlpack__(stream=0x1234)
    assert buf.to_bytes() == np.arange(3, dtype=np.int32).tobytes()
