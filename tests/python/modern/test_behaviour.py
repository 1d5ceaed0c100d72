"""The conformance suite by behaviour: what other projects' own DLPack test
suites check (NumPy's test_dlpack.py, PyTorch's test_dlpack.py, JAX's
array_interoperability_test.py, CuPy's test_dlpack.py, array-api-tests'
test_has_names / from_dlpack cases and tvm-ffi's tests of its tensor),
read for the facts and written here as behaviours of pjrt_dlpack, as a
consumer and as a producer, on every plugin a run has: the reference
plugin's cpu and xpu, XLA's CPU plugin, and (tests/oneapi/python/modern,
which imports this file with its own `target`) Intel's plugin on ze_sim.

Each behaviour is one rule; docs/conformance.md's rows 53 to 67 name the
test of each. Where a producer has both the DLPack C exchange API and
__dlpack__ (PyTorch 2, and our own Buffer), every tensor of the suite goes
both ways and the answers must be the same: the same exception class, or
the same values, shape, dtype and whether the memory is shared; and so
where a consumer takes both (tvm-ffi, whose from_dlpack uses a producer's
table; its own tensors publish none).
"""
import gc
import os
import sys

import ml_dtypes
import numpy as np
import pytest
import torch
import tvm_ffi

import pjrt_dlpack
from dlpack_helpers import IS_COPIED, KDL_CPU, capsule_name, legacy, versioned

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fresh_python  # noqa: E402
from aligned_arrays import aligned_copy  # noqa: E402

COPY_ERROR = pjrt_dlpack.DLPackCopyError


@pytest.fixture(params=["cpu", "xpu", "xla"])
def target(request):
    """The client a behaviour runs on (overridden for Intel's plugin)."""
    return request.getfixturevalue(request.param)


def on_host(client):
    """Whether the client's first device keeps its data where the host can
    read it (cpu, XLA's cpu): a host tensor can then be viewed, not copied."""
    return client.devices[0].dlpack_device[0] == KDL_CPU


def host_array(dtype, shape=(3, 4)):
    """A 64-byte aligned array (XLA views need it) of `dtype` with distinct
    values where the type allows."""
    n = int(np.prod(shape))
    values = np.arange(n) % 7 if np.dtype(dtype) != np.bool_ else np.arange(n) % 2
    return aligned_copy(values.astype(dtype).reshape(shape))


def read_back(buf):
    """A host NumPy copy of a buffer on any device, through the library's
    own host copy (NumPy's DLPack knows no bfloat16 or float8)."""
    dtype = getattr(ml_dtypes, buf.dtype, None) or np.dtype(buf.dtype)
    return np.frombuffer(buf.to_bytes(), dtype=dtype).reshape(buf.shape)


class ViaCapsule:
    """Hides a producer's exchange table: only __dlpack__ and
    __dlpack_device__, so that from_dlpack takes the capsule protocol."""

    def __init__(self, inner):
        self.inner = inner

    def __dlpack__(self, **kwargs):
        return self.inner.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.inner.__dlpack_device__()


class TorchViaCapsule(torch.Tensor):
    """A torch.Tensor whose __dlpack__ is its own (calling PyTorch's): its
    exchange table, inherited, no longer answers for it, so from_dlpack
    asks __dlpack__, with the checks of a torch.Tensor kept."""

    def __dlpack__(self, *args, **kwargs):
        return super().__dlpack__(*args, **kwargs)


def outcome(make_buffer, source_address):
    """What an import gave: ("raises", exception class) or ("buffer",
    shape, dtype, host values, whether it is the source's memory)."""
    try:
        buf = make_buffer()
    except Exception as e:  # noqa: BLE001 -- the class is the outcome
        return ("raises", type(e))
    shared = buf.unsafe_buffer_pointer() == source_address
    return ("buffer", buf.shape, buf.dtype, read_back(buf).tobytes(), shared)


def torch_address(t):
    try:
        return t.data_ptr()
    except (RuntimeError, NotImplementedError):  # sparse, quantized ...
        return None


def torch_via_capsule(t):
    """t, seen by from_dlpack through __dlpack__ only: a TorchViaCapsule,
    or for a tensor that cannot be one (sparse) a plain wrapper."""
    try:
        return t.as_subclass(TorchViaCapsule)
    except (RuntimeError, NotImplementedError):
        return ViaCapsule(t)


# --------------------------------------------------------- as a consumer

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128,
          ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_consumer_every_dtype(target, dtype):
    """Every dtype arrives with its values; a host tensor on a host device
    is a view (NumPy's and PyTorch's suites: test_dtype_passthrough)."""
    a = host_array(dtype)
    if np.dtype(dtype).isbuiltin == 2:  # ml_dtypes: no __dlpack__ of NumPy's
        buf = target.buffer(a)
    else:
        buf = target.from_dlpack(a)
        # A view where the data is (a host device, or an accelerator's
        # pinned_host memory), else a copy on the device.
        viewed = buf.unsafe_buffer_pointer() == a.ctypes.data
        assert viewed == (buf.__dlpack_device__()[0] == KDL_CPU)
        assert viewed or not on_host(target)
    assert buf.shape == a.shape
    assert read_back(buf).view(np.uint8).tobytes() == a.view(np.uint8).tobytes()


@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (3, 0), (1,), (2, 3, 4)])
def test_consumer_zero_d_and_empty(target, shape):
    """0-d and empty tensors (every suite checks both)."""
    a = host_array(np.float32, shape)
    buf = target.from_dlpack(a)
    assert buf.shape == shape and buf.nbytes == a.nbytes
    assert read_back(buf).tobytes() == a.tobytes()


def strided_cases():
    base = aligned_copy(np.arange(24, dtype=np.float32)).reshape(4, 6)
    return {
        "fortran": np.asfortranarray(base),
        "transposed": base.T,
        "negative": base[::-1],
        "broadcast": np.broadcast_to(base[:1], (4, 6)),
        "gaps": base[:, ::2],
    }


@pytest.mark.parametrize("name", sorted(strided_cases()))
def test_consumer_strides_copy_or_value_error(target, name):
    """Any strides arrive with their values (copy=None); with copy=False a
    view or the array API's ValueError, never a copy and never another
    class (issue 38, item 4: layout refusals raised a plain DLPackError)."""
    a = strided_cases()[name]
    buf = target.from_dlpack(a)
    assert np.array_equal(read_back(buf), a)
    try:
        view = target.from_dlpack(a, copy=False)
    except ValueError as e:
        assert isinstance(e, COPY_ERROR) and isinstance(e, BufferError), type(e)
    else:
        assert view.unsafe_buffer_pointer() == a.ctypes.data
        assert np.array_equal(read_back(view), a)


def test_consumer_misaligned_copy_false_is_a_value_error(target):
    """Memory the plugin cannot view as it is (one byte off its element
    size): copied by default, ValueError under copy=False."""
    raw = aligned_copy(np.zeros(4 * 9, dtype=np.uint8))
    a = raw[1:33].view(np.float32)
    a[:] = np.arange(8, dtype=np.float32)
    assert np.array_equal(read_back(target.from_dlpack(a)), a)
    with pytest.raises(COPY_ERROR):
        target.from_dlpack(a, copy=False)


def test_consumer_byte_order_is_the_producers_refusal(target):
    """NumPy refuses to export a non-native byte order (BufferError); the
    refusal reaches the caller as it is (the array API: propagate it)."""
    with pytest.raises(BufferError):
        target.from_dlpack(np.arange(4, dtype=">f4"))


def test_consumer_read_only(target):
    """A read-only tensor is never taken as a writable view: copied, and a
    ValueError under copy=False (NumPy's suite: test_readonly)."""
    a = host_array(np.float32)
    a.flags.writeable = False
    buf = target.from_dlpack(a)
    assert buf.unsafe_buffer_pointer() != a.ctypes.data
    assert np.array_equal(read_back(buf), a)
    with pytest.raises(COPY_ERROR):
        target.from_dlpack(a, copy=False)


def test_consumer_copy_true_is_a_copy(target):
    a = host_array(np.float32)
    buf = target.from_dlpack(a, copy=True)
    assert buf.unsafe_buffer_pointer() != a.ctypes.data
    a[0, 0] = 99
    assert read_back(buf)[0, 0] == 0


def test_consumer_device_argument(target):
    """device= the device the data is on never copies; a move needs a
    copy, which copy=False refuses with ValueError."""
    a = host_array(np.float32)
    device = target.devices[0]
    buf = target.from_dlpack(a, device=device)
    assert buf.device == device
    if on_host(target):
        assert buf.unsafe_buffer_pointer() == a.ctypes.data
        assert target.from_dlpack(a, device=device, copy=False).device == device
    else:
        with pytest.raises(COPY_ERROR):
            target.from_dlpack(a, device=device, copy=False)
    again = pjrt_dlpack.from_dlpack(buf, device=buf.device, copy=False)
    assert again.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()


def test_consumer_pinned_host_stays_put(target):
    """Issue 38 (5): a buffer in a device's pinned_host memory placed on
    its own device (device=x.device) is a view there, not a copy into the
    device memory (which copy=False refused)."""
    pinned = [m for m in target.devices[0].memories if m.kind == "pinned_host"]
    if not pinned:
        assert on_host(target)  # only host platforms have no pinned_host memory
        return
    buf = target.buffer(host_array(np.float32), device=pinned[0])
    for consume in (pjrt_dlpack.from_dlpack, target.from_dlpack):
        view = consume(buf, device=buf.device, copy=False)
        assert view.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
        assert view.__dlpack_device__() == buf.__dlpack_device__()


def test_consumer_lifetime_and_reference_counts(target):
    """The view outlives the producer's object, and the producer's object
    is released when the view goes (NumPy's suite: test_dlpack_refcount)."""
    a = host_array(np.float32)
    expected = a.copy()
    before = sys.getrefcount(a)
    buf = target.from_dlpack(a)
    if on_host(target):
        assert sys.getrefcount(a) == before + 1  # held by NumPy's export
    del a
    gc.collect()
    assert np.array_equal(read_back(buf), expected)
    b = host_array(np.float32)
    before = sys.getrefcount(b)
    view = target.from_dlpack(b)
    del view
    gc.collect()
    assert sys.getrefcount(b) == before


def test_consumer_multiple_consumption(target):
    """The same array imported twice gives two buffers over one memory on a
    host device; a capsule is consumed once (a second use: BufferError)."""
    a = host_array(np.float32)
    one, two = target.from_dlpack(a), target.from_dlpack(a)
    if on_host(target):
        assert one.unsafe_buffer_pointer() == two.unsafe_buffer_pointer() == a.ctypes.data
    del one
    gc.collect()
    assert np.array_equal(read_back(two), a)
    capsule = a.__dlpack__()
    target.from_dlpack(capsule)
    with pytest.raises(BufferError, match="consumed"):
        target.from_dlpack(capsule)


def test_consumer_not_a_dlpack_object(target):
    with pytest.raises(AttributeError):
        target.from_dlpack(object())
    with pytest.raises(TypeError):
        target.from_dlpack([1, 2, 3])


def torch_cases():
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    c = torch.arange(4, dtype=torch.float32).to(torch.complex64) * (1 + 1j)
    return {
        "contiguous": x,
        "transposed": x.t(),
        "sliced": x[:, ::2],
        "zero-d": torch.tensor(3.5),
        "empty": torch.empty(0, 3),
        "bool": torch.tensor([True, False, True]),
        "bfloat16": x.to(torch.bfloat16),
        "complex": c,
        "conj": torch.conj(c),
        "neg": torch._neg_view(x),
        "requires_grad": torch.ones(4, requires_grad=True),
        "parameter": torch.nn.Parameter(torch.ones(4)),
        "sparse": torch.ones(4).to_sparse(),
        "quantized": torch.quantize_per_tensor(torch.ones(4), 0.1, 0, torch.qint8),
        "huge-empty": torch.empty(2 ** 62, 0),
    }


@pytest.mark.parametrize("name", sorted(torch_cases()))
def test_torch_exchange_api_answers_as_dlpack(target, name):
    """Issue 38 (1): PyTorch's C exchange table skips Tensor.__dlpack__'s
    checks (torch.conj(x) came in un-conjugated, requires_grad, sparse and
    quantized tensors were taken or refused with the wrong class). Every
    tensor of the suite goes both ways, with the same answer; the ones
    DLPack cannot describe are refused with a BufferError."""
    t = torch_cases()[name]
    address = torch_address(t)
    table = outcome(lambda: target.from_dlpack(t), address)
    capsule = outcome(lambda: target.from_dlpack(torch_via_capsule(t)), address)
    assert table == capsule
    refused = {"conj", "neg", "requires_grad", "parameter", "sparse", "quantized", "huge-empty"}
    if name in refused:
        assert table[0] == "raises" and issubclass(table[1], BufferError), table
    else:
        assert table[0] == "buffer", table
        expected = t.resolve_conj().resolve_neg()
        if expected.dtype == torch.bfloat16:
            expected = expected.view(torch.int16)
        assert table[3] == expected.contiguous().numpy().tobytes()


def our_cases(client):
    a = host_array(np.float32)
    return {
        "plain": client.buffer(a),
        "zero-d": client.buffer(np.float32(2.5)),
        "empty": client.buffer(np.zeros((0, 3), np.float32)),
        "int4": client.buffer(np.arange(6).astype(ml_dtypes.int4)),
        "float6": client.buffer(np.arange(6).astype(ml_dtypes.float6_e2m3fn)),
        "deleted": client.buffer(a),
    }


@pytest.mark.parametrize("name", ["plain", "zero-d", "empty", "int4", "float6", "deleted"])
@pytest.mark.parametrize("copy", [None, False, True])
def test_our_exchange_api_answers_as_dlpack(target, name, copy):
    """Our own Buffer is taken through our table or through __dlpack__ with
    the same answer, whatever copy= says."""
    buf = our_cases(target)[name]
    if name == "deleted":
        buf.delete()
    address = None if buf.is_deleted else buf.unsafe_buffer_pointer()
    table = outcome(lambda: target.from_dlpack(buf, copy=copy), address)
    capsule = outcome(lambda: target.from_dlpack(ViaCapsule(buf), copy=copy), address)
    assert table == capsule


def test_module_level_from_dlpack_takes_the_stream_of_the_client_that_holds_it(xpu, plugin):
    """Issue 38 (10): with two clients of one platform and the data on the
    second, the producer was asked to order its work before the first
    client's stream, which it cannot: each client is asked in turn."""
    other = plugin.client(platform="xpu")
    buf = other.buffer(host_array(np.float32), device=other.devices[0])
    asked = []

    class Producer(ViaCapsule):
        def __dlpack__(self, **kwargs):
            asked.append(kwargs.get("stream"))
            return super().__dlpack__(**kwargs)

    view = pjrt_dlpack.from_dlpack(Producer(buf))
    assert view.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
    assert np.array_equal(read_back(view), read_back(buf))
    assert asked[-1] is not None and len(set(asked)) == len(asked)


# --------------------------------------------------------- as a producer


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_producer_every_dtype(target, dtype):
    """Every dtype leaves with its values: to NumPy on the host, zero-copy
    where the memory is the host's."""
    a = host_array(dtype)
    buf = target.buffer(a)
    if np.dtype(dtype).isbuiltin == 2:
        t = versioned(buf.__dlpack__(max_version=(1, 3)))
        assert t.dl_tensor.dims() == a.shape
        return
    out = np.from_dlpack(buf, device="cpu")
    assert out.view(np.uint8).tobytes() == a.view(np.uint8).tobytes()
    if on_host(target):
        assert out.ctypes.data == buf.unsafe_buffer_pointer()
        torch_out = torch.from_dlpack(buf)
        assert torch_out.data_ptr() == buf.unsafe_buffer_pointer()


SUB_BYTE = [ml_dtypes.int4, ml_dtypes.uint4, ml_dtypes.int2, ml_dtypes.float4_e2m1fn,
            ml_dtypes.float6_e2m3fn, ml_dtypes.float6_e3m2fn]
REQUESTS = {
    "legacy": dict(),
    "versioned": dict(max_version=(1, 3)),
    "legacy-copy": dict(copy=True),
    "versioned-copy": dict(max_version=(1, 3), copy=True),
    "legacy-no-copy": dict(copy=False),
    "versioned-no-copy": dict(max_version=(1, 3), copy=False),
}


@pytest.mark.parametrize("dtype", [np.float32] + SUB_BYTE, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("request_name", sorted(REQUESTS))
def test_producer_tensor_is_on_the_dlpack_device(target, dtype, request_name):
    """Issue 38 (3): without dl_device, the exported tensor is on the device
    __dlpack_device__ names, or the export is refused (BufferError): a
    float6 buffer on a device was handed to a legacy consumer as a kDLCPU
    host copy."""
    buf = target.buffer(np.arange(6).astype(dtype))
    kwargs = REQUESTS[request_name]
    try:
        capsule = buf.__dlpack__(**kwargs)
    except BufferError:
        assert kwargs.get("copy") is False or not on_host(target) or "legacy" in request_name
        return
    t = versioned(capsule) if capsule_name(capsule) == "dltensor_versioned" else legacy(capsule)
    device = (t.dl_tensor.device.device_type, t.dl_tensor.device.device_id)
    assert device == buf.__dlpack_device__()


def test_producer_host_device_ids_are_0(target):
    """Issue 38 (6): host memory has device_id 0; a consumer asking for
    another host id gets a BufferError, as from NumPy."""
    buf = target.buffer(host_array(np.float32))
    for dl_device in [(KDL_CPU, 2 ** 30), (KDL_CPU, 1)]:
        with pytest.raises(BufferError):
            buf.__dlpack__(dl_device=dl_device, max_version=(1, 3))
        with pytest.raises(BufferError):
            np.arange(2).__dlpack__(dl_device=dl_device)
    assert versioned(buf.__dlpack__(dl_device=(KDL_CPU, 0), max_version=(1, 3)))


def test_producer_host_copy_on_request(target):
    """dl_device=(kDLCPU, 0): the data as it is on a host device, a host
    copy flagged IS_COPIED from a device; under copy=False the copy is a
    ValueError."""
    buf = target.buffer(host_array(np.float32))
    t = versioned(buf.__dlpack__(dl_device=(KDL_CPU, 0), max_version=(1, 3)))
    assert bool(t.flags & IS_COPIED) != on_host(target)
    if not on_host(target):
        with pytest.raises(COPY_ERROR):
            buf.__dlpack__(dl_device=(KDL_CPU, 0), copy=False, max_version=(1, 3))


def test_producer_multiple_exports_and_lifetime(target):
    """Two exports of one buffer are both valid; the consumer's array
    outlives buf.delete() (PyTorch's suite: test_dlpack_tensor_lifetime)."""
    a = host_array(np.float32)
    buf = target.buffer(a)
    one = np.from_dlpack(buf, device="cpu")
    two = np.from_dlpack(buf, device="cpu")
    buf.delete()
    gc.collect()
    assert np.array_equal(one, a) and np.array_equal(two, a)


def test_producer_exchange_api_answers_as_dlpack_for_torch(target):
    """PyTorch 2 consumes through the capsule protocol; our table and our
    __dlpack__ agree with it (0-d, empty and strided too)."""
    for name, buf in our_cases(target).items():
        if name in ("int4", "float6", "deleted"):
            continue
        address = buf.unsafe_buffer_pointer()
        direct = outcome(lambda: target.from_dlpack(torch.from_dlpack(buf))
                         if on_host(target) else target.from_dlpack(buf), address)
        wrapped = outcome(lambda: target.from_dlpack(torch.from_dlpack(ViaCapsule(buf)))
                          if on_host(target) else target.from_dlpack(ViaCapsule(buf)), address)
        assert direct[0] == wrapped[0] == "buffer", (name, direct, wrapped)
        assert direct == wrapped


def tvm_outcome(make_tensor, address):
    """What tvm-ffi's from_dlpack gave: the exception class, or the tensor's
    shape, dtype, device, strides and whether it is the source's memory."""
    try:
        t = make_tensor()
    except Exception as e:  # noqa: BLE001 -- the class is the outcome
        return ("raises", type(e))
    return ("tensor", tuple(t.shape), str(t.dtype), str(t.device), tuple(t.strides),
            t.data_ptr() == address)


def test_tvm_ffi_takes_our_buffers_both_ways(target):
    """tvm-ffi consumes the DLPack C exchange API: a Buffer goes to it
    through our table, and wrapped through __dlpack__, with the same tensor
    (on a device too: tvm-ffi holds kDLOneAPI memory as `oneapi`)."""
    for name, buf in our_cases(target).items():
        if name == "deleted":
            buf.delete()
            with pytest.raises(BufferError):
                tvm_ffi.from_dlpack(buf)
            continue
        if name == "float6":
            # tvm-ffi 0.1.15 takes the 6-bit floats' padded form its own way:
            # from our table a copy it makes on the host (through our
            # allocator), from __dlpack__ first a legacy (packed) request,
            # which a device buffer refuses (the tensor would not be on its
            # device, test_producer_tensor_is_on_the_dlpack_device), and
            # which of the two it tries depends on what it saw before.
            continue
        address = buf.unsafe_buffer_pointer()
        table = tvm_outcome(lambda: tvm_ffi.from_dlpack(buf), address)
        capsule = tvm_outcome(lambda: tvm_ffi.from_dlpack(ViaCapsule(buf)), address)
        assert table == capsule, name
        assert table[0] == "tensor" and table[1] == buf.shape and table[-1], (name, table)


def test_tvm_ffi_tensors_come_in(target):
    """A tvm-ffi tensor (a capsule producer: it publishes no table) comes in
    with its values, a view where the memory can be one."""
    a = host_array(np.float32)
    t = tvm_ffi.from_dlpack(a)
    buf = target.from_dlpack(t)
    assert np.array_equal(read_back(buf), a)
    viewed = buf.unsafe_buffer_pointer() == a.ctypes.data
    assert viewed == (buf.__dlpack_device__()[0] == KDL_CPU)
    assert target.from_dlpack(t, copy=True).unsafe_buffer_pointer() != a.ctypes.data


# -------------------------------------------- what must never crash


def test_plugin_never_sees_a_shape_it_aborts_on(xla):
    """Issue 38 (8): torch.empty(2**62, 0) aborted the process in XLA's CPU
    plugin ("overflow in static extent product"); refused first, in a
    fresh interpreter so that a regression cannot take this one down."""
    fresh_python.run_python(f"""
import os, torch, pjrt_dlpack
client = pjrt_dlpack.load_plugin({os.environ['PJRT_XLA_CPU_PLUGIN']!r}).client()
for shape in [(2 ** 62, 0), (2 ** 61, 0), (2 ** 31, 2 ** 31, 0)]:
    try:
        client.from_dlpack(torch.empty(*shape))
    except BufferError as e:
        assert "overflow" in str(e), e
    else:
        raise AssertionError(shape)
    try:
        client.buffer(__import__('numpy').empty(shape, 'float32'))
    except (BufferError, pjrt_dlpack.Error, ValueError, MemoryError) as e:
        pass
assert client.from_dlpack(torch.empty(0, 2 ** 62)).shape == (0, 2 ** 62)
print("ok")
""")


def test_float8_e5m2_buffers(target):
    """Issue 38 (9): client.buffer of an ml_dtypes float8_e5m2 array (its
    dtype kind is 'f', not 'V' as the others') failed with "cannot include
    dtype '5' in a buffer"."""
    a = np.linspace(-2, 2, 8).astype(ml_dtypes.float8_e5m2)
    buf = target.buffer(a)
    assert buf.dtype == "float8_e5m2"
    assert buf.to_bytes() == a.view(np.uint8).tobytes()
