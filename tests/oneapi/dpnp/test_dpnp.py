"""The seed's exchange, end to end, on ze_sim: buffers of Intel's oneAPI PJRT
plugin (oneAPI 2025.1) into Intel's dpnp.tensor and dpnp (their 2026
runtime) and back, zero-copy both ways, JAX on Intel's plugin handing arrays
to dpnp and taking dpnp's, in both start-up orders and on one and two
simulated GPUs. What a SYCL producer is asked for as a stream, and what our
export does with a dpctl.SyclQueue, is in docs/conformance.md; the set-up of
such a process in docs/plugins.md."""
import ctypes
import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pjrt_dlpack
from dlpack_ctypes import KDL_ONEAPI, Recorder
from fresh_python import run_python

# Fresh copies made back to back: ze_sim's worker runs them one after
# another, ZE_SIM_DELAY_US each, so the last one's data arrives well after
# the call that queued it (conftest.py).
BACKLOG = 12
ROUNDS = 6


def pointer(x):
    """The data address of a SYCL array (dpnp.tensor or dpnp), as the
    __sycl_usm_array_interface__ protocol gives it."""
    return x.__sycl_usm_array_interface__["data"][0]


def dl_device(x):
    return tuple(int(v) for v in x.__dlpack_device__())


def arrived(address, want):
    """Whether the simulated device memory at `address` holds `want`:
    ze_sim's device memory is host memory, so the test can look."""
    return ctypes.string_at(address, want.nbytes) == want.tobytes()


def write_through(x, values, dpt):
    """Writes `values` into a SYCL array's memory with its own runtime (a
    host-to-device copy on its queue)."""
    arr = x if isinstance(x, dpt.usm_ndarray) else x.get_array()
    arr.usm_data.copy_from_host(np.ascontiguousarray(values).view(np.uint8).reshape(-1))


class SyclRecorder(Recorder):
    """A Recorder that names the wrapped SYCL array's queue, as dpctl's and
    dpnp's arrays do."""

    @property
    def sycl_queue(self):
        return self.inner.sycl_queue


class InterfaceRecorder(Recorder):
    """A Recorder that names the queue only in the SYCL USM array interface
    (the protocol dpctl keeps for every SYCL array)."""

    @property
    def __sycl_usm_array_interface__(self):
        return self.inner.__sycl_usm_array_interface__


# ------------------------------------------------- PJRT buffers into dpnp


def test_both_sycl_runtimes_share_one_ze_sim(oneapi, dp):
    dpctl, _, _ = dp
    (gpu,) = dpctl.get_devices()
    assert gpu.filter_string == "level_zero:gpu:0"
    assert gpu.name == "ze_sim simulated Intel GPU 0"
    maps = {line.split()[-1] for line in open("/proc/self/maps") if "/" in line}
    names = {os.path.basename(p) for p in maps}
    assert {"libsycl.so.8", "libsycl.so.9"} <= names  # 2025.1 and 2026 in one process
    loaders = {p for p in maps if os.path.basename(p).startswith("libze_loader.so")}
    assert len(loaders) == 1 and "zesim" in next(iter(loaders))


def test_a_buffer_goes_into_dpnp_tensor_and_dpnp(oneapi, dp):
    _, dpnp, dpt = dp
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    buf = oneapi.buffer(host)
    x, y = dpt.from_dlpack(buf), dpnp.from_dlpack(buf)
    assert pointer(x) == pointer(y) == buf.unsafe_buffer_pointer()
    assert dl_device(x) == dl_device(y) == buf.__dlpack_device__() == (KDL_ONEAPI, 0)
    assert x.sycl_device.filter_string == "level_zero:gpu:0"
    np.testing.assert_array_equal(dpt.asnumpy(x), host)
    np.testing.assert_array_equal(dpnp.asnumpy(y), host)
    # Writes through either SYCL array are seen by the buffer and the other
    # array, and a write to the buffer's memory by both arrays.
    write_through(x, host + 100, dpt)
    assert buf.to_bytes() == (host + 100).tobytes()
    np.testing.assert_array_equal(dpnp.asnumpy(y), host + 100)
    write_through(y, host * 2, dpt)
    np.testing.assert_array_equal(dpt.asnumpy(x), host * 2)
    assert buf.to_bytes() == (host * 2).tobytes()
    ctypes.memmove(buf.unsafe_buffer_pointer(), (host - 1).tobytes(), host.nbytes)
    np.testing.assert_array_equal(dpt.asnumpy(x), host - 1)
    np.testing.assert_array_equal(dpnp.asnumpy(y), host - 1)
    # The views outlive the buffer.
    buf.delete()
    gc.collect()
    _ = [oneapi.buffer(host + k) for k in range(4)]  # would reuse freed memory
    np.testing.assert_array_equal(dpt.asnumpy(x), host - 1)
    np.testing.assert_array_equal(dpnp.asnumpy(y), host - 1)


def pending_rounds(client, consume):
    """ROUNDS times, BACKLOG fresh buffers, the last handed to
    consume(last, want); how many rounds had its copy still in flight then
    (zero would mean the test tested nothing)."""
    pending = 0
    for r in range(ROUNDS):
        want = np.full(4096, r, dtype=np.float32)
        bufs = [client.buffer(want + k) for k in range(BACKLOG)]
        last, want = bufs[-1], want + (BACKLOG - 1)
        pending += not arrived(last.unsafe_buffer_pointer(), want)
        consume(last, want)
    return pending


def test_fresh_buffers_are_ready_when_dpnp_takes_them(oneapi, dp):
    """dpnp asks with no stream; our export then waits for the buffer's
    ready event, so the view never sees a copy still in flight."""
    _, dpnp, _ = dp

    def consume(last, want):
        np.testing.assert_array_equal(dpnp.asnumpy(dpnp.from_dlpack(last)), want)

    assert pending_rounds(oneapi, consume) > 0


def test_our_export_takes_a_sycl_queue_as_stream(oneapi, dp):
    """__dlpack__(stream=dpctl.SyclQueue) waits for the buffer, as with no
    stream, so work on that queue (of another runtime) sees the data; any
    other object is refused, naming what to pass."""
    dpctl, _, _ = dp
    queue = dpctl.SyclQueue(dpctl.get_devices()[0])

    def consume(last, want):
        last.__dlpack__(stream=queue, max_version=(1, 0))
        assert arrived(last.unsafe_buffer_pointer(), want)

    assert pending_rounds(oneapi, consume) > 0
    buf = oneapi.buffer(np.zeros(3, dtype=np.float32))
    with pytest.raises(TypeError, match="dpctl.SyclQueue"):
        buf.__dlpack__(stream=object())


# ------------------------------------------------- dpnp arrays into PJRT


@pytest.mark.parametrize("kind", ["dpnp.tensor", "dpnp"])
@pytest.mark.parametrize("importer", ["client", "module"])
@pytest.mark.parametrize("names", [SyclRecorder, InterfaceRecorder])
def test_a_sycl_array_comes_into_pjrt(oneapi, dp, kind, importer, names):
    dpctl, dpnp, dpt = dp
    host = np.arange(10, dtype=np.int32)
    x = dpt.asarray(host) if kind == "dpnp.tensor" else dpnp.asarray(host)
    address, queue = pointer(x), x.sycl_queue
    producer = names(x)
    take = oneapi.from_dlpack if importer == "client" else pjrt_dlpack.from_dlpack
    b = take(producer)
    # Asked with its own queue: dpctl refuses a stream of another runtime.
    (kwargs,) = producer.calls
    assert isinstance(kwargs["stream"], dpctl.SyclQueue) and kwargs["stream"] == queue
    assert b.unsafe_buffer_pointer() == address
    assert b.device == oneapi.devices[0] and b.__dlpack_device__() == (KDL_ONEAPI, 0)
    assert b.to_bytes() == host.tobytes()
    write_through(x, host * 3, dpt)
    assert b.to_bytes() == (host * 3).tobytes()
    # The view outlives the producer.
    del x, producer
    gc.collect()
    _ = [dpt.asarray(host + k) for k in range(4)]  # would reuse freed memory
    assert b.to_bytes() == (host * 3).tobytes()


def test_pending_dpnp_copies_are_waited_for(oneapi, dp):
    """Copies of dpctl's still queued on the producer's queue (ze_sim runs
    each ZE_SIM_DELAY_US later) when the import asks for the capsule: the
    import waits for that queue, so the data is in place when it returns."""
    dpctl, _, dpt = dp
    queue = dpctl.SyclQueue(dpctl.get_devices()[0], property="in_order")
    pending = 0
    for r in range(ROUNDS):
        # Values of this round only: a freed block comes back with the last.
        want = np.arange(4096, dtype=np.float32) + 10000 * r
        src = dpt.asarray(want, sycl_queue=queue)
        dst = dpt.empty_like(src)
        address = pointer(dst)  # asked before: the interface waits for the queue
        for _ in range(3):
            queue.memcpy_async(dst.usm_data, src.usm_data, want.nbytes)
        pending += not arrived(address, want)
        b = oneapi.from_dlpack(dst)
        assert arrived(b.unsafe_buffer_pointer(), want)
        assert b.to_bytes() == want.tobytes()
    assert pending > 0


def test_round_trip_dpnp_pjrt_dpnp(oneapi, dp):
    _, dpnp, _ = dp
    z = dpnp.asarray(np.linspace(0, 1, 8, dtype=np.float32))
    b = oneapi.from_dlpack(z)
    w = dpnp.from_dlpack(b)
    assert pointer(w) == b.unsafe_buffer_pointer() == pointer(z)
    np.testing.assert_array_equal(dpnp.asnumpy(w), dpnp.asnumpy(z))


# ---------------------------------------- fresh processes: GPUs and orders


@pytest.mark.parametrize("gpus", [1, 2])
def test_python_m_dpctl_lists_the_simulated_gpus(gpus):
    """The 2026 runtime started alone on ze_sim (it crashed with SIGSEGV
    before ze_sim had the loader's interface)."""
    env = dict(os.environ, ZE_SIM_DEVICES=str(gpus))
    proc = subprocess.run([sys.executable, "-m", "dpctl", "-f"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Intel(R) oneAPI Unified Runtime over Level-Zero" in proc.stdout
    for i in range(gpus):
        assert f"level_zero:gpu:{i}" in proc.stdout
        assert f"ze_sim simulated Intel GPU {i}" in proc.stdout
    assert f"level_zero:gpu:{gpus}" not in proc.stdout


# Both directions on every GPU of a fresh process (device ids agreeing);
# ORDER is where dpctl starts: before the PJRT client or after it.
EXCHANGE = """
    import gc, os, numpy as np, pjrt_dlpack
    from dlpack_ctypes import KDL_ONEAPI
    if ORDER == "dpctl first":
        import dpctl, dpnp, dpnp.tensor as dpt
        early = dpnp.asarray(np.arange(5, dtype=np.float32))
    c = pjrt_dlpack.load_plugin(os.environ["PJRT_ONEAPI_PLUGIN"]).client()
    assert "UR_ADAPTERS_FORCE_LOAD" not in os.environ
    import dpctl, dpnp, dpnp.tensor as dpt
    gpus = dpctl.get_devices()
    assert len(c.devices) == len(gpus) == int(os.environ["ZE_SIM_DEVICES"])
    ptr = lambda x: x.__sycl_usm_array_interface__["data"][0]
    for i, (d, gpu) in enumerate(zip(c.devices, gpus)):
        assert d.dlpack_device == (KDL_ONEAPI, i) and gpu.filter_string == f"level_zero:gpu:{i}"
        host = np.arange(6, dtype=np.float32) + 10 * i
        buf = c.buffer(host, device=d)
        y = dpnp.from_dlpack(buf)
        assert ptr(y) == buf.unsafe_buffer_pointer()
        assert tuple(map(int, y.__dlpack_device__())) == (KDL_ONEAPI, i)
        assert y.sycl_device.filter_string == gpu.filter_string
        np.testing.assert_array_equal(dpnp.asnumpy(y), host)
        y.get_array().usm_data.copy_from_host((host + 1).view(np.uint8))
        assert buf.to_bytes() == (host + 1).tobytes()  # a write through dpnp
        buf.delete()
        np.testing.assert_array_equal(dpnp.asnumpy(y), host + 1)  # outlives the buffer
        z = dpt.asarray(host * 2, device=gpu.filter_string)
        for b in (c.from_dlpack(z), pjrt_dlpack.from_dlpack(z)):
            assert b.device == d and b.unsafe_buffer_pointer() == ptr(z)
            assert b.to_bytes() == (host * 2).tobytes()
        w = dpnp.from_dlpack(c.from_dlpack(z))
        assert ptr(w) == ptr(z) and w.sycl_device.filter_string == gpu.filter_string
        del z, w
        gc.collect()
        assert b.to_bytes() == (host * 2).tobytes()  # outlives the producer
    if ORDER == "dpctl first":
        assert c.from_dlpack(early).to_bytes() == np.arange(5, dtype=np.float32).tobytes()
    print("exchange ok", len(gpus))
"""


@pytest.mark.parametrize("order", ["pjrt first", "dpctl first"])
@pytest.mark.parametrize("gpus", [1, 2])
def test_exchange_in_a_fresh_process(monkeypatch, gpus, order):
    """dpctl first: the plugin's runtime would open dpctl's Unified Runtime
    adapter by its bare name and crash; the client's creation names its
    own adapters (UR_ADAPTERS_FORCE_LOAD, removed afterwards)."""
    monkeypatch.setenv("ZE_SIM_DEVICES", str(gpus))
    out = run_python(f"ORDER = {order!r}\n" + textwrap.dedent(EXCHANGE), timeout=300)
    assert f"exchange ok {gpus}" in out


# JAX 0.10.2 on Intel's plugin (JAX creates its client itself) and dpnp.
JAX = """
    import os, numpy as np
    if ORDER == "dpctl first":
        import dpctl
        dpctl.get_devices()
        # The recipe of docs/plugins.md: JAX's client names its runtime's
        # adapter while it is created.
        runtime = os.environ["PJDL_ONEAPI_RUNTIME"]
        os.environ["UR_ADAPTERS_FORCE_LOAD"] = runtime + "/libur_adapter_level_zero.so.0"
    import jax
    devices = jax.devices()
    os.environ.pop("UR_ADAPTERS_FORCE_LOAD", None)
    import dpctl, dpnp
    import pjrt_dlpack.jax as pjax
    from dlpack_ctypes import KDL_ONEAPI
    gpus = dpctl.get_devices()
    assert [d.platform for d in devices] == ["oneapi"] * len(gpus) == ["oneapi"] * GPUS
    client = pjax.client(devices[0])
    ptr = lambda x: x.__sycl_usm_array_interface__["data"][0]
    for i, (dev, gpu) in enumerate(zip(devices, gpus)):
        host = np.arange(8, dtype=np.float32) + 100 * i
        x = jax.device_put(host, dev)
        t = pjax.export(x)
        # Device ids agree across JAX, pjrt_dlpack and dpctl.
        assert t.__dlpack_device__() == pjax.dlpack_device(x) == (KDL_ONEAPI, i)
        assert client.devices[i].dlpack_device == (KDL_ONEAPI, i)
        d = dpnp.from_dlpack(t)
        assert ptr(d) == x.unsafe_buffer_pointer()
        assert d.sycl_device.filter_string == gpu.filter_string
        np.testing.assert_array_equal(dpnp.asnumpy(d), host)
        t.__dlpack__(stream=dpctl.SyclQueue(gpu))  # a SYCL consumer's stream
        z = dpnp.asarray(host * 3, device=gpu.filter_string)
        j = pjax.from_dlpack(z)
        assert isinstance(j, jax.Array) and j.devices() == {dev}
        assert j.unsafe_buffer_pointer() == ptr(z)
        np.testing.assert_array_equal(np.asarray(j), host * 3)
        assert client.from_dlpack(z).unsafe_buffer_pointer() == ptr(z)
    print("jax ok", len(devices))
"""


@pytest.mark.parametrize("order", ["jax first", "dpctl first"])
@pytest.mark.parametrize("gpus", [1, 2])
def test_jax_on_intels_plugin_and_dpnp(monkeypatch, gpus, order):
    monkeypatch.setenv("ZE_SIM_DEVICES", str(gpus))
    monkeypatch.setenv("PJRT_NAMES_AND_LIBRARY_PATHS", "oneapi:" + os.environ["PJRT_ONEAPI_PLUGIN"])
    monkeypatch.setenv("JAX_PLATFORMS", "oneapi")
    out = run_python(f"ORDER = {order!r}\nGPUS = {gpus}\n" + textwrap.dedent(JAX), timeout=300)
    assert f"jax ok {gpus}" in out
