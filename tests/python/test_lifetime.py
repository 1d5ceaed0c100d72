"""Reference cycles, threads and interpreter shutdown with live exports."""
import ctypes
import gc
import threading
import time
import weakref

import numpy as np
import pytest
import torch

import pjrt_dlpack
from dlpack_ctypes import HostTensor, _py
from fresh_python import PRELUDE, run_python


class Cycle:
    """An object that refers to itself: only the cycle collector frees it."""

    def __init__(self):
        self.self = self


def assert_cycle_collected(fill):
    """A Cycle given its other attributes by fill(cycle) is collected."""
    h = Cycle()
    fill(h)
    ref = weakref.ref(h)
    del h
    gc.collect()
    assert ref() is None


def test_reference_cycle_through_buffer_and_export_is_collected(cpu):
    def fill(h):
        h.buf = cpu.buffer(np.arange(4, dtype=np.float32))
        h.view = np.from_dlpack(h.buf)
        h.capsule = h.buf.__dlpack__(max_version=(1, 0))
        h.tensor = torch.from_dlpack(h.buf)

    assert_cycle_collected(fill)


def test_reference_cycle_through_imported_producer(cpu):
    def fill(h):
        h.array = np.arange(8, dtype=np.int64)
        h.view = cpu.from_dlpack(h.array)

    assert_cycle_collected(fill)


def test_producer_deleter_may_call_the_module_during_a_release(cpu):
    # The release keeps the GIL on the reference plugin; NumPy's deleter,
    # which it triggers, runs once the library call has returned, so Python
    # code that the deleter sets off (here a finalizer importing again) runs
    # outside the library's work.
    base = np.arange(8, dtype=np.float32)
    seen = []
    weakref.finalize(base, lambda: seen.append(cpu.from_dlpack(np.ones(4, np.float32))))
    buf = cpu.from_dlpack(base[2:])
    del base
    gc.collect()
    assert seen == []
    del buf
    assert len(seen) == 1 and np.asarray(seen[0]).tolist() == [1.0] * 4


def test_views_released_from_other_threads(cpu):
    arrays = [np.arange(16, dtype=np.float32) + i for i in range(32)]
    refs = [weakref.ref(a) for a in arrays]
    views = [cpu.from_dlpack(a) for a in arrays]
    del arrays

    def drop(chunk):
        for v in chunk:
            v.delete()
        chunk.clear()

    chunks = [views[i::4] for i in range(4)]
    del views
    threads = [threading.Thread(target=drop, args=(c,)) for c in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    del chunks
    gc.collect()
    assert all(r() is None for r in refs)


def test_concurrent_exports_and_imports(cpu):
    buf = cpu.buffer(np.arange(1000, dtype=np.float64))
    errors = []

    def work():
        try:
            for _ in range(200):
                v = torch.from_dlpack(buf)
                b = cpu.from_dlpack(v)
                assert b.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()
                del b, v
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


@pytest.mark.parametrize("platform", ["cpu", "xpu"])
def test_shutdown_with_live_exports(platform, request):
    if platform == "xpu":
        request.getfixturevalue("xpu")  # skips with the reason when unsupported
    out = run_python(PRELUDE + f"""
    client = plugin.client(platform="{platform}")
    buf = client.buffer(np.arange(6, dtype=np.float32))
    cap_versioned = buf.__dlpack__(max_version=(1, 0))
    cap_legacy = buf.__dlpack__()
    if client.platform == "cpu":
        view = np.from_dlpack(buf)
        tensor = torch.from_dlpack(buf)
    released = buf.release_to_dlpack()
    print("ok")
    """)
    assert out.strip() == "ok"


@pytest.mark.parametrize("platform", ["cpu", "xpu"])
def test_shutdown_with_live_imports(platform, request):
    if platform == "xpu":
        request.getfixturevalue("xpu")
    out = run_python(PRELUDE + f"""
    client = plugin.client(platform="{platform}")
    device = client.devices[0] if client.platform == "xpu" else None
    arrays = [np.arange(10, dtype=np.float64) for _ in range(4)]
    views = [client.from_dlpack(a, device=device) for a in arrays]
    tensors = [torch.arange(5) for _ in range(4)]
    tviews = [client.from_dlpack(t, device=device) for t in tensors]
    del arrays, tensors
    class Cycle:
        pass
    c = Cycle()
    c.c = c
    c.views = views
    print("ok")
    """)
    assert out.strip() == "ok"


def test_shutdown_with_a_daemon_thread_holding_views():
    out = run_python(PRELUDE + """
    import threading, time
    client = plugin.client(platform="cpu")
    def hold():
        keep = [client.from_dlpack(np.arange(100.0)) for _ in range(10)]
        time.sleep(60)
    threading.Thread(target=hold, daemon=True).start()
    time.sleep(0.2)
    print("ok")
    """)
    assert out.strip() == "ok"


def test_exports_outlive_the_module_state():
    # Objects deleted during finalization in whatever order CPython chooses.
    out = run_python(PRELUDE + """
    import sys
    client = plugin.client(platform="cpu")
    bufs = [client.buffer(np.arange(i + 1, dtype=np.int32)) for i in range(5)]
    sys.modules["__main__"].keep = [torch.from_dlpack(b) for b in bufs]
    sys.keep_capsules = [b.__dlpack__() for b in bufs]
    print("ok")
    """)
    assert out.strip() == "ok"


def test_module_from_dlpack_without_a_client():
    out = run_python("""
    import numpy as np, pjrt_dlpack
    try:
        pjrt_dlpack.from_dlpack(np.zeros(2))
    except ValueError as e:
        print("ValueError:", e)
    """)
    assert "no pjrt_dlpack client exists" in out


def test_waits_release_the_gil(plugin):
    slow = slow_xpu(plugin, 300000)
    ticks = 0
    stop = threading.Event()

    def spin():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        buf = slow.buffer(np.arange(1000, dtype=np.float32))
        before = ticks
        buf.to_bytes()  # waits for the delayed transfer
        during = ticks - before
    finally:
        stop.set()
        t.join()
    assert during > 1000, "another thread must run while the transfer is awaited"


def slow_xpu(plugin, delay_us):
    try:
        return plugin.client(platform="xpu", transfer_delay_us=delay_us)
    except pjrt_dlpack.Error as e:
        pytest.fail(f"reference plugin cannot create a slow xpu client: {e}")


def test_producer_released_after_an_asynchronous_copy(plugin):
    slow = slow_xpu(plugin, 50000)
    a = np.arange(256, dtype=np.float32)
    ref = weakref.ref(a)
    buf = slow.from_dlpack(a, device=slow.devices[0])
    del a
    assert np.frombuffer(buf.to_bytes(), dtype=np.float32)[255] == 255
    for _ in range(500):  # the release may come from a plugin thread: allow it to land
        gc.collect()
        if ref() is None:
            break
        time.sleep(0.01)
    assert ref() is None


def test_tensor_without_deleter_is_done_with_on_return(plugin):
    """A tensor without a deleter can be told nothing later: its copy is
    complete when from_dlpack returns, and its struct is not read again (a
    deleter written into it afterwards, as a producer reusing it might, is
    never called)."""
    slow = slow_xpu(plugin, 50000)
    data = (ctypes.c_float * 64)(*range(64))
    t = HostTensor(ctypes.addressof(data), (64,))
    deleter, t.struct.deleter = t.struct.deleter, None
    capsule = _py.PyCapsule_New(t.address, b"dltensor_versioned", None)
    buf = slow.from_dlpack(capsule, device=slow.devices[0], copy=True)
    t.struct.deleter = deleter
    ctypes.memset(data, 0, ctypes.sizeof(data))
    assert np.frombuffer(buf.to_bytes(), dtype=np.float32).tolist() == list(range(64))
    del buf
    for _ in range(20):  # a late callback would land in these 0.2 s
        time.sleep(0.01)
        slow.devices  # a library call: runs what was queued for Python
    assert t.calls == 0


def error_setting_view(cpu, data):
    """A view of `data` whose producer's deleter leaves a Python error set
    (MemoryError): PyErr_NoMemory itself, a C function that ignores the
    tensor it is called with. Returns the buffer and the tensor, which the
    caller keeps alive."""
    t = HostTensor(ctypes.addressof(data), (len(data),))
    t.struct.deleter = ctypes.cast(_py.PyErr_NoMemory, ctypes.c_void_p).value
    capsule = _py.PyCapsule_New(t.address, b"dltensor_versioned", None)
    return cpu.from_dlpack(capsule), t


def test_error_left_by_a_deleter_is_cleared(cpu):
    """The deleter runs when the release returns, with no exception pending:
    what it leaves set is cleared (an error indicator set past a statement
    would surface in unrelated code). pythonapi's PyErr_Occurred raises a
    set error itself."""
    data = (ctypes.c_float * 8)(*range(8))
    buf, t = error_setting_view(cpu, data)
    occurred = _py.PyErr_Occurred  # looked up first: a lookup may clear the indicator
    del buf
    assert not occurred()
    assert np.asarray(cpu.from_dlpack(np.ones(2, np.float32))).tolist() == [1.0, 1.0]


def test_deleter_keeps_the_exception_being_raised(cpu):
    """A release while an exception is being raised (sorted() drops the keys
    it made when a later key raises): the deleter runs, and the exception
    that propagates is the one raised, not the deleter's."""
    data = (ctypes.c_float * 8)(*range(8))
    kept = []

    def key(i):
        if i == 1:
            raise ZeroDivisionError("the key's own")
        buf, t = error_setting_view(cpu, data)
        kept.append(t)
        return buf

    occurred = _py.PyErr_Occurred
    with pytest.raises(ZeroDivisionError, match="the key's own"):
        sorted([0, 1], key=key)
    assert not occurred()


def test_shutdown_during_asynchronous_transfers():
    out = run_python(PRELUDE + """
    client = plugin.client(platform="xpu", transfer_delay_us=20000)
    dev = client.devices[1]
    views = [client.from_dlpack(np.arange(100.0), device=dev) for _ in range(8)]
    views += [client.from_dlpack(torch.arange(10), device=dev) for _ in range(8)]
    exports = [client.buffer(np.arange(4.0), device=dev).__dlpack__() for _ in range(4)]
    print("ok")
    """)
    assert out.strip() == "ok"
