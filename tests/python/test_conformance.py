"""DLPack 1.3 and the array API's __dlpack__ / __dlpack_device__ /
from_dlpack, clause by clause (docs/conformance.md): the rows whose test is
here. Runs with Debian's NumPy 1.24 / PyTorch 1.13 and in the modern
environment; the capsules are inspected and altered through ctypes, laid out
as the DLPack 1.x ABI lays them out."""
import numpy as np
import pytest
import torch

import pjrt_dlpack

from dlpack_ctypes import IS_COPIED, READ_ONLY, Holder, Recorder, legacy, versioned  # noqa: E402
from dlpack_ctypes import capsule_name as name  # noqa: E402


# ------------------------------------------------------------ producer


def test_exported_fields(client):
    """Version 1.3, flags 0, strides never NULL, byte_offset 0 with data at
    the first element, the buffer's DLDevice; the legacy struct alike."""
    buf = client.buffer(np.arange(12, dtype=np.float32).reshape(3, 4))
    cap = buf.__dlpack__(max_version=(1, 3))
    v = versioned(cap)
    assert (v.major, v.minor, v.flags) == (1, 3, 0)
    old = buf.__dlpack__()  # each struct lives as long as its capsule
    for t in [v.dl_tensor, legacy(old).dl_tensor]:
        assert t.ndim == 2 and [t.shape[0], t.shape[1]] == [3, 4]
        assert bool(t.strides) and [t.strides[0], t.strides[1]] == [4, 1]
        assert t.byte_offset == 0
        assert t.data == buf.unsafe_buffer_pointer()
        assert (t.device.device_type, t.device.device_id) == buf.__dlpack_device__()
    host = client.buffer(np.array(5.0, dtype=np.float32))  # 0-d
    scalar = host.__dlpack__(max_version=(1, 0))
    assert versioned(scalar).dl_tensor.ndim == 0


def test_max_version_picks_the_struct(cpu):
    """max_version None or 0.x: the legacy capsule; 1.x or more: ours, 1.3,
    which the consumer must check whatever it asked for."""
    buf = cpu.buffer(np.arange(3, dtype=np.int32))
    for mv in [None, (0, 8), (0, 0)]:
        assert name(buf.__dlpack__(max_version=mv)) == "dltensor"
    for mv in [(1, 0), (1, 3), (1, 7), (2, 0), (9, 9)]:
        cap = buf.__dlpack__(max_version=mv)
        assert (versioned(cap).major, versioned(cap).minor) == (1, 3)


def test_copy_true_is_flagged_and_256_byte_aligned(cpu):
    buf = cpu.buffer(np.arange(6, dtype=np.float64))
    cap = buf.__dlpack__(max_version=(1, 0), copy=True)
    v = versioned(cap)
    assert v.flags == IS_COPIED
    assert v.dl_tensor.data != buf.unsafe_buffer_pointer()
    assert v.dl_tensor.data % 256 == 0 and v.dl_tensor.byte_offset == 0


def test_stream_values_on_the_cpu(cpu):
    """Only None is accepted on the CPU; -1 ("no synchronization") is taken
    too, as waiting is always correct; any other value is a BufferError."""
    buf = cpu.buffer(np.arange(3.0))
    assert name(buf.__dlpack__(stream=None)) == "dltensor"
    assert name(buf.__dlpack__(stream=-1)) == "dltensor"
    for s in [0, 1, 2, 3, 12345, -2]:
        with pytest.raises(BufferError):
            buf.__dlpack__(stream=s)


def test_failures_are_buffer_errors(cpu):
    """What cannot be exported as asked is a BufferError: a deleted buffer,
    a device the producer cannot reach, copy=False when a copy is needed."""
    buf = cpu.buffer(np.arange(3.0))
    with pytest.raises(BufferError):
        buf.__dlpack__(dl_device=(2, 0))  # kDLCUDA
    buf.delete()
    with pytest.raises(BufferError):
        buf.__dlpack__()
    with pytest.raises(BufferError):
        buf.__dlpack__(max_version=(1, 0))


def test_dl_device_needing_a_copy_with_copy_false(xpu):
    """The standard (dl_device): a copy needed for dl_device with copy=False
    is a ValueError; (copy): a BufferError. DLPackCopyError is both."""
    buf = xpu.buffer(np.arange(4, dtype=np.float32))
    with pytest.raises(ValueError) as e:
        buf.__dlpack__(max_version=(1, 0), dl_device=(pjrt_dlpack.kDLCPU, 0), copy=False)
    assert isinstance(e.value, BufferError)


# ------------------------------------------------------------ consumer


def test_another_major_is_refused_and_left_to_its_capsule(cpu):
    src = cpu.buffer(np.arange(4, dtype=np.float32))
    cap = src.__dlpack__(max_version=(1, 0))
    v = versioned(cap)
    for major in [0, 2]:
        v.major = major
        with pytest.raises(BufferError, match="version"):
            cpu.from_dlpack(cap)
        assert name(cap) == "dltensor_versioned"  # its destructor still frees it
    v.major, v.minor = 1, 99  # a newer minor is fine
    assert cpu.from_dlpack(cap).unsafe_buffer_pointer() == src.unsafe_buffer_pointer()
    assert name(cap) == "used_dltensor_versioned"


def test_unknown_flags_are_refused(cpu):
    src = cpu.buffer(np.arange(4, dtype=np.float32))
    cap = src.__dlpack__(max_version=(1, 0))
    v = versioned(cap)
    v.flags = 1 << 9
    with pytest.raises(BufferError, match="flags"):
        cpu.from_dlpack(cap)
    assert name(cap) == "dltensor_versioned"
    v.flags = 0
    assert cpu.from_dlpack(cap).unsafe_buffer_pointer() == src.unsafe_buffer_pointer()


def test_read_only_is_copied_or_refused(cpu):
    src = cpu.buffer(np.arange(4, dtype=np.float32))
    cap = src.__dlpack__(max_version=(1, 0))
    versioned(cap).flags = READ_ONLY
    with pytest.raises(BufferError):
        cpu.from_dlpack(cap, copy=False)
    buf = cpu.from_dlpack(cap)
    assert buf.unsafe_buffer_pointer() != src.unsafe_buffer_pointer()
    assert buf.to_bytes() == src.to_bytes()


def test_subbyte_padded_flag_on_whole_bytes_changes_nothing(cpu):
    """IS_SUBBYTE_TYPE_PADDED speaks of sub-byte elements only: a uint8
    tensor carrying it is imported as usual, still a view."""
    src = cpu.buffer(np.arange(4, dtype=np.uint8))
    cap = src.__dlpack__(max_version=(1, 0))
    versioned(cap).flags = 1 << 2
    buf = cpu.from_dlpack(cap)
    assert name(cap) == "used_dltensor_versioned"
    assert buf.unsafe_buffer_pointer() == src.unsafe_buffer_pointer()
    assert np.frombuffer(buf.to_bytes(), np.uint8).tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("struct", ["versioned", "legacy"])
def test_byte_offset_and_null_strides(cpu, struct):
    """The first element is at data + byte_offset (data need not be
    aligned); NULL strides mean compact row-major (producers before 1.2)."""
    src = cpu.buffer(np.arange(8, dtype=np.float32).reshape(2, 4))
    if struct == "versioned":
        cap = src.__dlpack__(max_version=(1, 0))
        t = versioned(cap).dl_tensor
    else:
        cap = src.__dlpack__()
        t = legacy(cap).dl_tensor
    t.data -= 12
    t.byte_offset = 12
    t.strides = None
    buf = cpu.from_dlpack(Holder(cap, (1, 0)))
    assert buf.unsafe_buffer_pointer() == src.unsafe_buffer_pointer()
    assert np.frombuffer(buf.to_bytes(), np.float32).tolist() == list(range(8))


def test_torch_and_byte_offset(cpu):
    """Why our exports keep byte_offset 0 (data is the first element, not a
    256-byte-aligned base): PyTorch 1.13 ignores byte_offset, PyTorch 2
    honours it. NumPy honours it in both."""
    src = cpu.buffer(np.arange(8, dtype=np.float32))
    for consumer in [np.from_dlpack, torch.from_dlpack]:
        cap = src.__dlpack__()
        t = legacy(cap).dl_tensor
        t.data -= 8
        t.byte_offset = 8
        got = np.asarray(consumer(Holder(cap, (1, 0))))[:2].tolist()
        honours = consumer is np.from_dlpack or int(torch.__version__.split(".")[0]) >= 2
        assert got == [0.0, 1.0] if honours else got != [0.0, 1.0]


def test_consumer_asks_for_our_version_and_no_stream_on_the_host(cpu):
    r = Recorder(cpu.buffer(np.arange(4.0)))
    cpu.from_dlpack(r)
    assert r.calls[-1] == dict(max_version=(1, 3))
    cpu.from_dlpack(r, copy=False)
    assert r.calls[-1] == dict(max_version=(1, 3), copy=False)


def test_input_without_dlpack_is_an_attribute_error(cpu):
    with pytest.raises(AttributeError) as e:
        cpu.from_dlpack([1, 2, 3])
    assert isinstance(e.value, TypeError)  # and still what callers catch today


@pytest.fixture
def xpu_as(plugin):
    """The xpu platform registered, for one test, as another device type,
    so that the stream rules of CUDA and ROCm can be checked without a GPU;
    the registration is put back after."""
    registered = []

    def as_type(device_type):
        pjrt_dlpack.register_platform("xpu", device_type)
        registered.append(device_type)
        return plugin.client(platform="xpu")

    yield as_type
    if registered:
        pjrt_dlpack.register_platform("xpu", pjrt_dlpack.kDLOneAPI)


@pytest.mark.parametrize("stream", [-2, -100])
def test_stream_below_minus_one_is_never_a_stream(cpu, xpu, stream):
    for client in (cpu, xpu):
        buf = client.buffer(np.arange(4, dtype=np.float32))
        with pytest.raises(BufferError, match="not a stream"):
            buf.__dlpack__(stream=stream)


def test_stream_0_is_refused_on_cuda(xpu_as):
    client = xpu_as(pjrt_dlpack.kDLCUDA)
    buf = client.buffer(np.arange(4, dtype=np.float32))
    assert buf.__dlpack_device__()[0] == pjrt_dlpack.kDLCUDA
    with pytest.raises(BufferError, match="ambiguous on CUDA"):
        buf.__dlpack__(stream=0)
    buf.__dlpack__(stream=-1)  # no synchronization: always allowed


@pytest.mark.parametrize("stream", [1, 2])
def test_cuda_default_streams_are_refused_on_rocm(xpu_as, stream):
    client = xpu_as(pjrt_dlpack.kDLROCM)
    buf = client.buffer(np.arange(4, dtype=np.float32))
    assert buf.__dlpack_device__()[0] == pjrt_dlpack.kDLROCM
    with pytest.raises(BufferError, match="ROCm"):
        buf.__dlpack__(stream=stream)
