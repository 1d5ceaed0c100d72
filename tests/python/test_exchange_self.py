"""The DLPack C exchange API of pjrt_dlpack.Buffer (__dlpack_c_exchange_api__),
called through ctypes as a C consumer calls it, and the consumer side
(Client.from_dlpack) against our own table and hand-made tables. Runs in
both environments: Debian's NumPy 1.24 / PyTorch 1.13 know nothing of the
API, so the exchange with ourselves is what the legacy run can test. The
tests against PyTorch 2's table are in modern/test_exchange_api.py."""
import ctypes
import gc

import numpy as np
import pytest

import pjrt_dlpack
from dlpack_ctypes import (
    IS_COPIED,
    KDL_CPU,
    KDL_METAL,
    KDL_ONEAPI,
    CountingDeleter,
    FROM_PY,
    STREAM,
    ExchangeAPI,
    HostTensor,
    Table,
    capsule_name,
    capsule_of,
    managed,
)


@pytest.fixture(scope="module")
def table():
    return Table(pjrt_dlpack.Buffer)


def test_the_type_publishes_a_dlpack_1_3_table(table, cpu):
    capsule = pjrt_dlpack.Buffer.__dlpack_c_exchange_api__
    assert capsule_name(capsule) == "dlpack_exchange_api"
    assert table.version == pjrt_dlpack.DLPACK_VERSION == (1, 3)
    api = table.api
    assert api.header.prev_api is None
    for name, _ in ExchangeAPI._fields_[1:]:
        assert getattr(api, name), name
    # On the type, the same for every instance.
    buf = cpu.buffer(np.ones(3, np.float32))
    assert type(buf).__dlpack_c_exchange_api__ is capsule


def test_managed_tensor_is_a_shared_ready_export(table, client):
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    buf = client.buffer(host)
    address = table.managed(buf)
    t = managed(address)
    assert (t.major, t.flags & IS_COPIED) == (1, 0)
    assert t.dl_tensor.data == buf.unsafe_buffer_pointer()
    assert t.dl_tensor.dims() == (3, 4) and t.dl_tensor.steps() == (4, 1)
    assert (t.dl_tensor.device.device_type, t.dl_tensor.device.device_id) == \
        buf.__dlpack_device__()
    counter = CountingDeleter(address)
    counter.delete()
    assert counter.calls == 1
    assert bytes(buf.to_bytes()) == host.tobytes()  # still usable


def to_object_then_drop(table, address, counter, check):
    """Hands the Buffer table.to_object(address) makes to check(), then drops
    it: the tensor's deleter, whose calls counter.calls counts, runs only
    once the Buffer is gone, and exactly once."""
    buf = table.to_object(address)
    check(buf)
    assert counter.calls == 0
    del buf
    gc.collect()
    assert counter.calls == 1


def test_round_trip_through_our_own_table_releases_once(table, client):
    buf = client.buffer(np.arange(6, dtype=np.float32))
    address = table.managed(buf)

    def check(view):
        assert isinstance(view, pjrt_dlpack.Buffer)
        assert view.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
        assert view.device.id == buf.device.id and view.shape == (6,)

    to_object_then_drop(table, address, CountingDeleter(address), check)


def test_to_object_views_a_foreign_tensor_and_deletes_it_once(table, cpu):
    host = np.arange(8, dtype=np.float32)
    tensor = HostTensor(host.ctypes.data, (2, 4))

    def check(buf):
        assert buf.unsafe_buffer_pointer() == host.ctypes.data
        assert buf.shape == (2, 4) and buf.dtype == "float32"

    to_object_then_drop(table, tensor.address, tensor, check)


def test_to_object_failure_leaves_the_tensor_to_the_caller(table, cpu):
    host = np.arange(4, dtype=np.float32)
    bad_dtype = HostTensor(host.ctypes.data, (4,), dtype=(99, 32))
    with pytest.raises(pjrt_dlpack.DLPackError):
        table.to_object(bad_dtype.address)
    wrong_major = HostTensor(host.ctypes.data, (4,), major=2)
    with pytest.raises(BufferError, match="version 2"):
        table.to_object(wrong_major.address)
    nowhere = HostTensor(host.ctypes.data, (4,), device=(KDL_METAL, 0))
    with pytest.raises(pjrt_dlpack.DLPackError):
        table.to_object(nowhere.address)
    gc.collect()
    # Not deleted by the failed calls: the caller still owns them.
    assert (bad_dtype.calls, wrong_major.calls, nowhere.calls) == (0, 0, 0)


def test_from_object_checks_the_type_and_the_buffer(table, cpu):
    with pytest.raises(TypeError, match="ndarray"):
        table.managed(np.ones(3, np.float32))
    buf = cpu.buffer(np.ones(3, np.float32))
    buf.delete()
    with pytest.raises(BufferError):
        table.managed(buf)


def test_dltensor_borrows_data_shape_and_strides(table, client):
    host = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    buf = client.buffer(host)
    for _ in range(2):  # made once, then reused
        view = table.dltensor(buf)
        assert view.data == buf.unsafe_buffer_pointer()
        assert view.dims() == (2, 3, 4) and view.steps() == (12, 4, 1)
        assert (view.dtype.code, view.dtype.bits, view.dtype.lanes) == (2, 32, 1)
        assert (view.device.device_type, view.device.device_id) == buf.__dlpack_device__()
    buf.delete()
    with pytest.raises(BufferError, match="deleted"):
        table.dltensor(buf)
    with pytest.raises(TypeError):
        table.dltensor(object())


def test_current_work_stream(table, cpu, xpu):
    assert table.stream(KDL_CPU, 0) is None
    device = xpu.devices[0]
    # The xpu device's stream (the reference plugin has the stream
    # extension); a device no client drives has none.
    kind, dev_id = device.dlpack_device
    assert kind == KDL_ONEAPI
    assert table.stream(kind, dev_id) is not None
    assert table.stream(KDL_METAL, 0) is None


@pytest.mark.parametrize("with_gil", [True, False])
def test_allocator(table, client, with_gil):
    device = client.devices[0].dlpack_device
    address, errors = table.allocate((3, 5), device=device, with_gil=with_gil)
    assert not errors
    t = managed(address)
    assert t.dl_tensor.dims() == (3, 5)
    assert (t.dl_tensor.device.device_type, t.dl_tensor.device.device_id) == device
    buf = table.to_object(address)  # owns the tensor from here
    assert buf.shape == (3, 5) and buf.dtype == "float32"
    assert buf.to_bytes() == bytes(60)


KDL_INT, KDL_FLOAT6_E2M3FN, KDL_FLOAT4_E2M1FN = 0, 15, 17


@pytest.mark.parametrize("dtype, name", [((KDL_INT, 4), "int4"),
                                         ((KDL_FLOAT4_E2M1FN, 4), "float4_e2m1fn"),
                                         ((KDL_FLOAT6_E2M3FN, 6), "float6_e2m3fn")])
def test_allocator_makes_sub_byte_buffers(table, client, dtype, name):
    # Issue 38 (11): the allocator called every sub-byte prototype "too
    # large" (their PJRT type size is 0); their host form is a byte each.
    device = client.devices[0].dlpack_device
    address, errors = table.allocate((2, 3), device=device, dtype=dtype)
    assert not errors, errors
    buf = table.to_object(address)
    assert buf.shape == (2, 3) and buf.dtype == name
    assert buf.to_bytes() == bytes(6)


def test_a_borrowed_dltensor_never_drops_a_flag(table, client):
    # Issue 38 (2): a DLTensor has no flags, so the 6-bit floats' one
    # element per byte (IS_SUBBYTE_TYPE_PADDED in a versioned tensor) would
    # read as packed: refused, while the managed tensor says it.
    device = client.devices[0].dlpack_device
    address, errors = table.allocate((4,), device=device, dtype=(KDL_FLOAT6_E2M3FN, 6))
    assert not errors, errors
    buf = table.to_object(address)
    with pytest.raises(BufferError, match="one per byte"):
        table.dltensor(buf)
    exported = table.managed(buf)
    assert managed(exported).flags & (1 << 2)  # DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED
    CountingDeleter(exported).delete()
    # Packed sub-byte memory has no flag: borrowed as it is.
    address, errors = table.allocate((4,), device=device, dtype=(KDL_INT, 4))
    packed = table.to_object(address)
    view = table.dltensor(packed)
    assert (view.dtype.code, view.dtype.bits) == (KDL_INT, 4)


def test_allocator_reports_errors_through_set_error(table, cpu):
    for kwargs, kind in [(dict(device=(KDL_METAL, 0)), "ValueError"),
                         (dict(dtype=(99, 32)), "BufferError"),
                         (dict(shape=(-1, 2)), "ValueError")]:
        args = {"shape": (2, 2), **kwargs}
        address, errors = table.allocate(args.pop("shape"), **args)
        assert address is None
        assert len(errors) == 1 and errors[0][0] == kind, errors


def test_consumer_uses_our_table(cpu, xpu):
    host = np.arange(5, dtype=np.float32)
    for client in (cpu, xpu):
        buf = client.buffer(host)
        view = client.from_dlpack(buf)
        assert view.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
        assert pjrt_dlpack.from_dlpack(buf).unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
    # A foreign type that borrows our table reaches our type check: proof
    # that the consumer asked the table, not __dlpack__.
    class Borrower:
        __dlpack_c_exchange_api__ = pjrt_dlpack.Buffer.__dlpack_c_exchange_api__

        def __dlpack__(self, **kwargs):
            raise AssertionError("__dlpack__ called")

    with pytest.raises(TypeError, match="Borrower"):
        cpu.from_dlpack(Borrower())


def test_consumer_copy_and_device_rules_on_the_table_path(cpu, xpu):
    buf = cpu.buffer(np.arange(4, dtype=np.float32))
    copied = cpu.from_dlpack(buf, copy=True)
    assert copied.unsafe_buffer_pointer() != buf.unsafe_buffer_pointer()
    assert copied.to_bytes() == buf.to_bytes()
    with pytest.raises(pjrt_dlpack.DLPackCopyError):
        cpu.from_dlpack(xpu.buffer(np.ones(2, np.float32)), device=cpu.devices[0], copy=False)
    # Device memory wanted on the host goes through the producer's copy
    # (the capsule protocol's dl_device): still works.
    moved = cpu.from_dlpack(xpu.buffer(np.arange(3, dtype=np.float32)), device=cpu.devices[0])
    assert moved.to_bytes() == np.arange(3, dtype=np.float32).tobytes()


class _Table(ctypes.Structure):
    _fields_ = ExchangeAPI._fields_


def _table_class(major, minor, prev_api, fallback):
    """A producer type whose table has the given version, chained to
    prev_api, and whose __dlpack__ hands out `fallback`'s capsule."""
    table = ExchangeAPI()
    table.header.major, table.header.minor = major, minor
    table.header.prev_api = prev_api
    capsule = capsule_of(table)

    class Producer:
        __dlpack_c_exchange_api__ = capsule
        keep = table
        calls = 0

        def __dlpack__(self, **kwargs):
            type(self).calls += 1
            return fallback.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return fallback.__dlpack_device__()

    return Producer


def test_consumer_checks_the_table_version(cpu, table):
    buf = cpu.buffer(np.arange(3, dtype=np.float32))
    # Unknown major, no older table: the capsule protocol.
    newer = _table_class(2, 0, None, buf)
    assert cpu.from_dlpack(newer()).unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
    assert newer.calls == 1
    # 1.1 predates the exchange API: not trusted either.
    older = _table_class(1, 1, None, buf)
    cpu.from_dlpack(older())
    assert older.calls == 1
    # An unknown major chained to a 1.x table: that table is used (ours,
    # which refuses a foreign object: the chain was followed).
    chained = _table_class(2, 0, table.address, buf)
    with pytest.raises(TypeError, match="Producer"):
        cpu.from_dlpack(chained())
    assert chained.calls == 0


def test_consumer_reports_a_table_that_fails_without_saying_why(cpu):
    # A producer's managed_tensor_from_py_object_no_sync that returns 0 with
    # no tensor, or -1 with no exception set: a DLPackError naming the
    # producer's type, not a SystemError or a crash. What a failed call left
    # in its out-parameter is not the consumer's to delete.
    buf = cpu.buffer(np.arange(3, dtype=np.float32))
    Producer = _table_class(1, 3, None, buf)
    leftover = ctypes.c_void_p(0x10)  # an address no deleter may be called on
    results = []

    @FROM_PY
    def silent(obj, out):
        rc = results.pop(0)
        if rc != 0:
            out[0] = leftover
        return rc

    Producer.keep.managed_tensor_from_py_object_no_sync = ctypes.cast(silent, ctypes.c_void_p)
    Producer.keep_fn = silent
    for rc in (0, -1):
        results.append(rc)
        with pytest.raises(pjrt_dlpack.DLPackError, match="exchange API of Producer failed"):
            cpu.from_dlpack(Producer())
        assert results == []
    assert Producer.calls == 0  # the table was asked, not __dlpack__


def test_registry_change_reaches_cached_devices(table, xpu):
    # Issue 20, defect 5: the Buffer cached its __dlpack_device__ tuple and
    # the table's DLTensor view; after register_platform both said (14, 0)
    # while the export said (2, 0). Each is made once, then revalidated by
    # the registry's generation.
    buf = xpu.buffer(np.arange(4, dtype=np.float32), device=xpu.devices[0])

    def devices():
        view = table.dltensor(buf).device
        counter = CountingDeleter(table.managed(buf))
        exported = counter.tensor.dl_tensor.device
        seen = [buf.__dlpack_device__(), (view.device_type, view.device_id),
                (exported.device_type, exported.device_id)]
        counter.delete()
        return seen

    assert devices() == [(KDL_ONEAPI, 0)] * 3  # all three cached now
    try:
        pjrt_dlpack.register_platform("xpu", pjrt_dlpack.kDLCUDA)
        assert devices() == [(pjrt_dlpack.kDLCUDA, 0)] * 3
    finally:
        pjrt_dlpack.register_platform("xpu", pjrt_dlpack.kDLOneAPI)
    assert devices() == [(KDL_ONEAPI, 0)] * 3


def test_consumer_orders_a_foreign_device_tensor_after_its_stream(table, xpu):
    # A foreign table's no-sync export of device memory is ready on the
    # producer's current stream. The view names a stream only when it is the
    # device's own: the plugin takes no other (XLA's CUDA plugin refused
    # PyTorch's side stream on an H200: "Only GPU streams used for dlpack
    # imports are supported"), and a NULL stream (CUDA's legacy default)
    # orders nothing. Otherwise the import asks __dlpack__(stream=<the
    # device's stream>), and the producer orders its work before it.
    buf = xpu.buffer(np.arange(6, dtype=np.float32), device=xpu.devices[0])
    kind, dev_id = buf.__dlpack_device__()
    own = table.stream(kind, dev_id)
    assert own is not None
    Producer = _table_class(1, 3, None, buf)
    streams = []
    asked = []

    @FROM_PY
    def hand_out(obj, out):
        out[0] = table.managed(buf)  # device memory of xpu:0
        return 0

    @STREAM
    def current(device_type, device_id, out):
        out[0] = streams[0]
        return 0

    real_dlpack = Producer.__dlpack__

    def recording_dlpack(self, **kwargs):
        asked.append(kwargs.get("stream"))
        return real_dlpack(self, **kwargs)

    Producer.__dlpack__ = recording_dlpack
    Producer.keep.managed_tensor_from_py_object_no_sync = ctypes.cast(hand_out, ctypes.c_void_p)
    Producer.keep.current_work_stream = ctypes.cast(current, ctypes.c_void_p)
    Producer.keep_fns = (hand_out, current)
    for stream, through_capsule in ((0xDEAD000, True), (None, True), (own, False)):
        streams[:] = [stream]
        asked.clear()
        Producer.calls = 0
        view = xpu.from_dlpack(Producer())
        assert view.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
        assert view.to_bytes() == buf.to_bytes()
        assert Producer.calls == (1 if through_capsule else 0), stream
        assert asked == ([own] if through_capsule else []), stream
        del view
    gc.collect()
