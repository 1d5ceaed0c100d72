"""NumPy arrays and PyTorch tensors imported as PJRT buffers."""
import gc
import weakref

import numpy as np
import pytest
import torch

import pjrt_dlpack
from dtype_names import NUMERIC

# PyTorch 1.13 cannot export or import bool through DLPack ("Bool type is not
# supported by dlpack"), so bool is exchanged with NumPy only.
TORCH_TYPES = {
    "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
    "int64": torch.int64, "uint8": torch.uint8, "float16": torch.float16,
    "float32": torch.float32, "float64": torch.float64, "complex64": torch.complex64,
    "complex128": torch.complex128, "bfloat16": torch.bfloat16,
}


def contents(buf, dtype):
    return np.frombuffer(buf.to_bytes(), dtype=dtype).reshape(buf.shape)


# ------------------------------------------------------------------- NumPy


def test_numpy_array_is_viewed_zero_copy(cpu):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    buf = cpu.from_dlpack(a)
    assert buf.unsafe_buffer_pointer() == a.ctypes.data
    assert buf.shape == (3, 4) and buf.dtype == "float32"
    a[2, 3] = -1
    assert contents(buf, np.float32)[2, 3] == -1


def test_module_level_from_dlpack_picks_the_matching_client(cpu):
    a = np.arange(3, dtype=np.int64)
    buf = pjrt_dlpack.from_dlpack(a)
    assert buf.client.platform == "cpu"
    assert buf.unsafe_buffer_pointer() == a.ctypes.data


@pytest.mark.parametrize("dtype", NUMERIC)
def test_numpy_every_dtype(cpu, dtype):
    a = (np.arange(10) % 4).astype(dtype)
    buf = cpu.from_dlpack(a)
    assert buf.dtype == dtype
    assert buf.unsafe_buffer_pointer() == a.ctypes.data
    np.testing.assert_array_equal(contents(buf, dtype), a)


@pytest.mark.parametrize(
    "make, zero_copy",
    [
        (lambda a: a, True),
        (lambda a: a.T, True),
        (lambda a: a[::2, ::3], False),
        (lambda a: a[1:3, 2:], False),
        (lambda a: a[2, 3, ...], True),
        (lambda a: a[:0], None),
    ],
    ids=["contiguous", "transposed", "stepped", "sliced", "0-d", "empty"],
)
def test_numpy_layouts(cpu, make, zero_copy):
    a = make(np.arange(24, dtype=np.int32).reshape(4, 6))
    buf = cpu.from_dlpack(a)
    assert buf.shape == a.shape
    np.testing.assert_array_equal(contents(buf, np.int32), a)
    if zero_copy is True:
        assert buf.unsafe_buffer_pointer() == a.ctypes.data
    elif zero_copy is False:
        assert buf.unsafe_buffer_pointer() != a.ctypes.data
        with pytest.raises(BufferError):
            cpu.from_dlpack(a, copy=False)


def test_copy_true_always_copies(cpu):
    a = np.arange(4, dtype=np.float64)
    buf = cpu.from_dlpack(a, copy=True)
    assert buf.unsafe_buffer_pointer() != a.ctypes.data
    a[0] = 5
    assert contents(buf, np.float64)[0] == 0


def test_copy_false_views(cpu):
    a = np.arange(4, dtype=np.float64)
    buf = cpu.from_dlpack(a, copy=False)
    assert buf.unsafe_buffer_pointer() == a.ctypes.data


def test_numpy_array_kept_alive_exactly_as_long_as_the_view(cpu):
    a = np.arange(100, dtype=np.float32)
    ref = weakref.ref(a)
    buf = cpu.from_dlpack(a)
    del a
    gc.collect()
    assert ref() is not None
    del buf
    gc.collect()
    assert ref() is None


def test_numpy_array_released_at_once_when_copied(cpu):
    a = np.arange(100, dtype=np.float32)[::2]
    base = weakref.ref(a.base)
    buf = cpu.from_dlpack(a)
    del a
    gc.collect()
    assert base() is None
    assert contents(buf, np.float32)[-1] == 98


def test_failed_import_keeps_the_producer_usable(cpu):
    a = np.arange(6, dtype=np.int32)[::2]
    with pytest.raises(BufferError):
        cpu.from_dlpack(a, copy=False)
    assert a.tolist() == [0, 2, 4]


def test_not_a_dlpack_object(cpu):
    with pytest.raises(TypeError, match="__dlpack__"):
        cpu.from_dlpack([1, 2, 3])
    with pytest.raises(TypeError, match="copy"):
        cpu.from_dlpack(np.zeros(2), copy="yes")


def test_wrong_capsule_is_refused(cpu):
    import datetime  # any module exporting a non-DLPack capsule

    cap = datetime.datetime_CAPI
    with pytest.raises(ValueError, match="not a DLPack capsule"):
        cpu.from_dlpack(cap)


# ----------------------------------------------------------------- PyTorch


@pytest.mark.parametrize("name", sorted(TORCH_TYPES))
def test_torch_every_dtype(cpu, name):
    t = (torch.arange(10) % 4).to(TORCH_TYPES[name])
    buf = cpu.from_dlpack(t)
    assert buf.dtype == name
    assert buf.unsafe_buffer_pointer() == t.data_ptr()
    if name == "bfloat16":
        assert buf.to_bytes() == t.view(torch.int16).numpy().tobytes()
    else:
        np.testing.assert_array_equal(contents(buf, name), t.numpy())


@pytest.mark.parametrize(
    "make, zero_copy",
    [
        (lambda t: t, True),
        (lambda t: t.t(), True),
        (lambda t: t.permute(1, 0), True),
        (lambda t: t[::2, 1::2], False),
        (lambda t: t[0].expand(3, 6), False),
        (lambda t: t[1, 2], True),
        (lambda t: t[:0], None),
        (lambda t: torch.empty(0, 3), None),
    ],
    ids=["contiguous", "t", "permute", "stepped", "expand", "0-d", "empty", "empty-new"],
)
def test_torch_layouts(cpu, make, zero_copy):
    t = make(torch.arange(24, dtype=torch.float32).reshape(4, 6))
    buf = cpu.from_dlpack(t)
    assert buf.shape == tuple(t.shape)
    np.testing.assert_array_equal(contents(buf, np.float32), t.numpy())
    if zero_copy is True:
        assert buf.unsafe_buffer_pointer() == t.data_ptr()
    elif zero_copy is False:
        assert buf.unsafe_buffer_pointer() != t.data_ptr()
        with pytest.raises(BufferError):
            cpu.from_dlpack(t, copy=False)


def test_torch_writes_are_seen_through_the_view(cpu):
    t = torch.zeros(4, dtype=torch.int32)
    buf = cpu.from_dlpack(t)
    t[1] = 11
    assert contents(buf, np.int32).tolist() == [0, 11, 0, 0]
    back = torch.from_dlpack(buf)
    assert back.data_ptr() == t.data_ptr()
    back[2] = 22
    assert t.tolist() == [0, 11, 22, 0]


def test_torch_storage_released_when_the_view_is_deleted(cpu):
    # torch.from_numpy's storage holds the NumPy array until the storage
    # dies: a weak reference to the array tells when the storage was freed.
    host = np.arange(64, dtype=np.float32)
    host_ref = weakref.ref(host)
    t = torch.from_numpy(host)
    del host
    buf = cpu.from_dlpack(t)
    del t
    gc.collect()
    assert host_ref() is not None, "the view must keep the storage alive"
    assert contents(buf, np.float32)[63] == 63
    buf.delete()
    del buf
    gc.collect()
    assert host_ref() is None, "the storage must be freed with the view"


# ------------------------------------------------------------------ xpu


def test_numpy_to_xpu_copies(xpu):
    # Where it lands: test_module.py's test_numpy_on_a_chosen_device_or_memory.
    a = np.arange(6, dtype=np.float32)
    dev = xpu.devices[1]
    buf = xpu.from_dlpack(a, device=dev)
    assert buf.unsafe_buffer_pointer() != a.ctypes.data
    np.testing.assert_array_equal(contents(buf, np.float32), a)
    with pytest.raises(BufferError):
        xpu.from_dlpack(a, device=dev, copy=False)


def test_module_level_from_dlpack_with_device(xpu):
    t = torch.arange(5, dtype=torch.int64)
    buf = pjrt_dlpack.from_dlpack(t, device=xpu.devices[0])
    assert buf.client.platform == "xpu"
    assert contents(buf, np.int64).tolist() == [0, 1, 2, 3, 4]


@pytest.fixture
def two_xpus(plugin):
    """Two more xpu clients, made in the order (other, own): both have the
    DLDevice (kDLOneAPI, 0), each with its own memory and stream, and `other`
    is the first live client with it."""
    other = plugin.client(platform="xpu")
    own = plugin.client(platform="xpu")
    assert other.devices[0].dlpack_device == own.devices[0].dlpack_device
    return other, own


def assert_view_in(client, buf, source):
    assert buf.client is client
    assert buf.unsafe_buffer_pointer() == source.unsafe_buffer_pointer()


def test_client_import_of_its_own_buffer_needs_no_other_clients_stream(two_xpus):
    # Issue 20, defect 2: the exchange API's current_work_stream gave the
    # stream of the first client with the DLDevice (other's), which own's
    # CreateViewOfDeviceBuffer refuses. Our own table's exports are ready:
    # no stream at all.
    other, own = two_xpus
    b = own.buffer(np.arange(4, dtype=np.float32), device=own.devices[0])
    assert_view_in(own, own.from_dlpack(b, copy=False), b)
    c = other.buffer(np.arange(4, dtype=np.float32), device=other.devices[0])
    assert_view_in(other, other.from_dlpack(c, copy=False), c)


def test_current_work_stream_is_none_when_clients_disagree(two_xpus):
    # A stream belongs to one client; the call names only a DLDevice.
    from dlpack_ctypes import Table
    other, own = two_xpus
    kind, dev_id = own.devices[0].dlpack_device
    assert own.devices[0].stream != other.devices[0].stream
    assert Table(pjrt_dlpack.Buffer).stream(kind, dev_id) is None


def test_module_import_prefers_the_producers_client(two_xpus):
    # Issue 20, defect 3: the module-level from_dlpack took the first live
    # client with the DLDevice (other) and gave up when its view failed.
    other, own = two_xpus
    b = own.buffer(np.arange(4, dtype=np.float32), device=own.devices[0])
    assert_view_in(own, pjrt_dlpack.from_dlpack(b, copy=False), b)


def test_module_import_tries_every_client_with_the_dldevice(two_xpus):
    # A capsule does not say whose it is: the first client refuses (not its
    # memory), the next one takes it.
    other, own = two_xpus
    b = own.buffer(np.arange(4, dtype=np.float32), device=own.devices[0])
    for capsule in (b.__dlpack__(max_version=(1, 0)), b.__dlpack__()):
        assert_view_in(own, pjrt_dlpack.from_dlpack(capsule, copy=False), b)


# ------------------------------------------------------- empty tensors

WIDE = 2 ** 62


@pytest.mark.parametrize("make", [
    # PyTorch 2 exports its strides, (2**62, 1).
    pytest.param(lambda: torch.empty(0, WIDE), id="torch-strides-2**62"),
    pytest.param(lambda: pjrt_dlpack.Client.external_dlpack(
        0, (0, WIDE), "float32", None, (pjrt_dlpack.kDLCPU, 0), None), id="null-strides"),
    pytest.param(lambda: pjrt_dlpack.Client.external_dlpack(
        0, (0, WIDE, 8), "float32", None, (pjrt_dlpack.kDLCPU, 0), None),
        id="null-strides-compact-overflow"),
    pytest.param(lambda: pjrt_dlpack.Client.external_dlpack(
        0, (0, 3), "float32", (2 ** 63 - 1, -2 ** 63), (pjrt_dlpack.kDLCPU, 0), None),
        id="wild-strides"),
])
@pytest.mark.parametrize("target", ["cpu", "xpu", "xla"])
def test_empty_tensor_with_huge_strides_is_imported(request, target, make):
    # Issue 20, defect 6: with no elements no stride arithmetic may fail
    # (conformance rows 14 and 18 refuse only element counts that overflow).
    client = request.getfixturevalue(target)
    x = make()
    shape = tuple(x.shape) if isinstance(x, torch.Tensor) else None
    buf = client.from_dlpack(x)
    assert 0 in buf.shape and buf.nbytes == 0 and buf.to_bytes() == b""
    if shape is not None:
        assert buf.shape == shape


# ------------------------------------------------------ protocol details


class ModernProducer:
    """An array API 2023.12 producer that records how it is called."""

    def __init__(self, buf, force_copy=False):
        self.buf, self.force_copy, self.calls = buf, force_copy, []

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls.append(dict(stream=stream, max_version=max_version, dl_device=dl_device,
                               copy=copy))
        if self.force_copy:
            copy = True
        return self.buf.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device,
                                   copy=copy)

    def __dlpack_device__(self):
        return self.buf.__dlpack_device__()


class OldProducer:
    """A pre-2023 producer (like NumPy 1.24): only `stream`."""

    def __init__(self, buf):
        self.buf, self.calls = buf, []

    def __dlpack__(self, stream=None):
        self.calls.append(stream)
        return self.buf.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.buf.__dlpack_device__()


def test_consumer_asks_for_a_versioned_capsule(cpu):
    src = cpu.buffer(np.arange(4, dtype=np.float32))
    producer = ModernProducer(src)
    buf = cpu.from_dlpack(producer)
    assert producer.calls == [
        dict(stream=None, max_version=pjrt_dlpack.DLPACK_VERSION, dl_device=None, copy=None)
    ]
    assert pjrt_dlpack.DLPACK_VERSION[0] == 1
    assert buf.unsafe_buffer_pointer() == src.unsafe_buffer_pointer()
    cpu.from_dlpack(producer, copy=False)
    assert producer.calls[-1]["copy"] is False


def test_consumer_falls_back_for_old_producers(cpu):
    src = cpu.buffer(np.arange(4, dtype=np.float32))
    producer = OldProducer(src)
    buf = cpu.from_dlpack(producer)
    assert producer.calls == [None]
    assert buf.unsafe_buffer_pointer() == src.unsafe_buffer_pointer()


def test_producer_errors_propagate(cpu):
    class Failing:
        def __dlpack__(self, **kwargs):
            raise RuntimeError("producer says no")

        def __dlpack_device__(self):
            return (pjrt_dlpack.kDLCPU, 0)

    with pytest.raises(RuntimeError, match="producer says no"):
        cpu.from_dlpack(Failing())


def test_bad_dlpack_device_runs_no_python_with_an_error_pending(cpu):
    """A __dlpack_device__ whose first entry is no int and whose second runs
    Python (__index__) raises the first entry's TypeError; the module used
    to convert both before checking, so __index__ ran with that TypeError
    pending, and its first C call failed with SystemError (found by
    fuzz/python)."""
    class Index:
        def __index__(self):
            len(())  # a C function: fails when an exception is pending
            return 0

    class Producer:
        def __dlpack_device__(self):
            return ("1", Index())

        def __dlpack__(self, **kwargs):
            raise AssertionError("not reached")

    with pytest.raises(TypeError, match=r"__dlpack_device__\(\)\[0\] must be an int, not str"):
        cpu.from_dlpack(Producer())


def test_copy_false_refuses_a_producer_copy(cpu):
    src = cpu.buffer(np.arange(4, dtype=np.float32))
    with pytest.raises(BufferError, match="copy"):
        cpu.from_dlpack(ModernProducer(src, force_copy=True), copy=False)
    copied = cpu.from_dlpack(ModernProducer(src, force_copy=True))
    assert copied.unsafe_buffer_pointer() != src.unsafe_buffer_pointer()


def test_numpy_readonly_arrays(cpu):
    ro = np.broadcast_to(np.arange(3.0), (4, 3))  # read-only, zero strides
    if np.lib.NumpyVersion(np.__version__) < "2.0.0":
        # NumPy 1.x will not export read-only arrays at all.
        with pytest.raises(BufferError):
            cpu.from_dlpack(ro)
        return
    # NumPy 2 exports them flagged read-only: copied, never viewed writable.
    buf = cpu.from_dlpack(ro)
    np.testing.assert_array_equal(contents(buf, np.float64), ro)
    with pytest.raises(BufferError):
        cpu.from_dlpack(ro, copy=False)


def test_numpy_zero_strides_are_copied(cpu):
    base = np.arange(3, dtype=np.float64)
    bcast = np.lib.stride_tricks.as_strided(base, shape=(4, 3), strides=(0, 8), writeable=True)
    buf = cpu.from_dlpack(bcast)
    assert buf.shape == (4, 3)
    np.testing.assert_array_equal(contents(buf, np.float64), np.tile(base, (4, 1)))
    with pytest.raises(BufferError):
        cpu.from_dlpack(bcast, copy=False)


def test_copy_true_of_device_memory_is_the_producers_copy(xpu):
    # Memory the host cannot read (xpu's kDLOneAPI here; CUDA memory of
    # PyTorch on a GPU, where this failed): the library views it but cannot
    # copy it, so copy=True asks the producer, __dlpack__(copy=True), and
    # views that copy. Through our own exchange table too (the Buffer).
    src = xpu.buffer(np.arange(6, dtype=np.float32), device=xpu.devices[0])
    for producer in (src, ModernProducer(src)):
        copied = xpu.from_dlpack(producer, copy=True)
        assert copied.unsafe_buffer_pointer() != src.unsafe_buffer_pointer()
        assert copied.to_bytes() == src.to_bytes()
        assert copied.__dlpack_device__() == src.__dlpack_device__()
    assert [c["copy"] for c in producer.calls] == [True]
    # Without copy=True nothing is asked, and the import is a view.
    assert xpu.from_dlpack(producer).unsafe_buffer_pointer() == src.unsafe_buffer_pointer()
    assert producer.calls[-1]["copy"] is None
    # A producer that takes no keywords made no copy: the import still
    # needs one, and says why it cannot make it, rather than viewing.
    old = OldProducer(src)
    with pytest.raises(pjrt_dlpack.DLPackError, match="not reachable from the host for a copy"):
        xpu.from_dlpack(old, copy=True)
    assert len(old.calls) == 1
