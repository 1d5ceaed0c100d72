"""Plugins, clients, devices, memories and host buffers."""
import array
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import pjrt_dlpack
from dtype_names import NUMERIC


def test_load_plugin_missing_file_raises_not_found():
    with pytest.raises(pjrt_dlpack.Error) as info:
        pjrt_dlpack.load_plugin("/nonexistent/libnothing.so")
    assert info.value.code_name == "NOT_FOUND"
    assert info.value.code == 5
    assert "/nonexistent/libnothing.so" in str(info.value)


def test_error_attribute_names_are_kept_by_the_module():
    """Each error's `code` and `code_name` attributes are set with names
    the module keeps interned: a name nobody kept would be added to the
    interpreter's interned strings and taken out again with every error,
    churn that made that table grow in the soak (docs/reliability.md). In
    a fresh interpreter whose code never names the attributes (this file
    does, which keeps the strings alive here), with the type attribute
    cache, which holds the last names looked up, cleared."""
    script = (
        "import sys, pjrt_dlpack\n"
        "wanted = {''.join(['co', 'de']), ''.join(['code', '_name'])}\n"
        "try:\n"
        "    pjrt_dlpack.load_plugin('/nonexistent/libnothing.so')\n"
        "except pjrt_dlpack.Error as e:\n"
        "    keys = sorted(k for k in vars(e) if k in wanted)\n"
        "del wanted\n"
        "sys._clear_type_cache()\n"
        "refs = [sys.getrefcount(keys[0]), sys.getrefcount(keys[1])]\n"
        "print(keys[0], refs[0])\n"
        "print(keys[1], refs[1])\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    refs = dict(line.split() for line in out.stdout.splitlines())
    assert sorted(refs) == ["code", "code_name"], out.stdout
    # The list, getrefcount's argument and the module's reference (more
    # where the interpreter keeps the name too, as it does `code`).
    assert min(int(n) for n in refs.values()) >= 3, out.stdout


def test_load_plugin_not_a_plugin_raises():
    libc = "/lib/x86_64-linux-gnu/libc.so.6"
    assert os.path.exists(libc), "no C library at " + libc + " to offer as a plugin"
    with pytest.raises(pjrt_dlpack.Error) as info:
        pjrt_dlpack.load_plugin(libc)
    assert info.value.code_name == "INVALID_ARGUMENT"


def test_plugin_properties(plugin):
    assert plugin.path.endswith("libpjrt_ref.so")
    major, minor = plugin.abi_version
    assert major == 0 and minor > 0
    assert plugin.provides("PJRT_Client_Create")
    assert not plugin.provides("PJRT_No_Such_Slot")
    # This build's reference plugin is known never to block in a view or a
    # destroy: from_dlpack's view and a Buffer's release keep the GIL.
    assert plugin._sync_views is True


def test_types_cannot_be_instantiated_directly():
    for t in (pjrt_dlpack.Plugin, pjrt_dlpack.Client, pjrt_dlpack.Buffer, pjrt_dlpack.Device):
        with pytest.raises(TypeError):
            t()


def test_client_options_are_typed(plugin):
    with pytest.raises(pjrt_dlpack.Error) as info:
        plugin.client(platform="cpu", no_such_option=3)
    assert info.value.code_name == "INVALID_ARGUMENT"
    assert "no_such_option" in str(info.value)
    with pytest.raises(pjrt_dlpack.Error, match="platform"):
        plugin.client(platform=7)  # an int, not the string the plugin wants
    with pytest.raises(TypeError, match="list option"):
        plugin.client(platform="cpu", ids=[1, "x"])
    with pytest.raises(TypeError, match="unsupported value"):
        plugin.client(platform="cpu", x=object())
    with pytest.raises(TypeError):
        plugin.client("cpu")


def test_cpu_client(cpu):
    assert cpu.platform == "cpu"
    assert isinstance(cpu.platform_version, str)
    assert cpu.platform_id != 0
    devices = cpu.devices
    assert len(devices) >= 1
    d = devices[0]
    assert d == cpu.devices[0] and hash(d) == hash(cpu.devices[0])
    assert d.id == 0
    assert isinstance(d.kind, str) and d.kind
    assert d.local_hardware_id >= 0
    assert d.__dlpack_device__() == (pjrt_dlpack.kDLCPU, d.dlpack_device[1])
    assert d.client.platform == "cpu"
    memories = d.memories
    assert len(memories) >= 1
    assert d.default_memory in memories
    for m in memories:
        assert isinstance(m.kind, str)
        assert m.device == d
        assert len(m.dlpack_device) == 2


def test_xpu_client(xpu):
    assert xpu.platform == "xpu"
    devices = xpu.devices
    assert len(devices) == 2
    assert [d.dlpack_device for d in devices] == [
        (pjrt_dlpack.kDLOneAPI, d.local_hardware_id) for d in devices
    ]
    kinds = {m.kind: m for m in devices[1].memories}
    assert kinds["device"].dlpack_device == (pjrt_dlpack.kDLOneAPI, devices[1].local_hardware_id)
    if "pinned_host" in kinds:
        assert kinds["pinned_host"].dlpack_device[0] == pjrt_dlpack.kDLCPU


@pytest.mark.parametrize("dtype", ["bool"] + NUMERIC)
def test_buffer_from_numpy_round_trips(client, dtype):
    a = (np.arange(24).reshape(2, 3, 4) % 7).astype(dtype)
    buf = client.buffer(a)
    assert buf.shape == (2, 3, 4)
    assert buf.ndim == 3
    assert buf.dtype == dtype
    assert buf.nbytes == a.nbytes
    assert buf.to_bytes() == a.tobytes()
    np.testing.assert_array_equal(np.asarray(buf), a)


@pytest.mark.parametrize(
    "make",
    [
        lambda a: a.T,
        lambda a: a[::2, 1::3],
        lambda a: a[::-1, :],
        lambda a: a[:, ::-2],
        lambda a: np.broadcast_to(a[0], (4, 6)),
        lambda a: a[1, 2],
        lambda a: a[:0],
    ],
    ids=["transposed", "stepped", "reversed", "negative-step", "broadcast", "0-d", "empty"],
)
def test_buffer_honours_strides(client, make):
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    view = make(a)
    buf = client.buffer(view)
    assert buf.shape == view.shape
    assert buf.to_bytes() == np.ascontiguousarray(view).tobytes()


def test_buffer_from_other_buffer_protocol_objects(cpu):
    buf = cpu.buffer(b"\x01\x02\x03")
    assert (buf.shape, buf.dtype, buf.to_bytes()) == ((3,), "uint8", b"\x01\x02\x03")
    buf = cpu.buffer(array.array("d", [1.5, 2.5]))
    assert buf.dtype == "float64"
    assert struct.unpack("2d", buf.to_bytes()) == (1.5, 2.5)
    m = memoryview(bytearray(range(12))).cast("H", (2, 3))
    buf = cpu.buffer(m)
    assert (buf.shape, buf.dtype) == ((2, 3), "uint16")
    assert buf.to_bytes() == bytes(range(12))


def test_buffer_rejects_unsupported_formats(cpu):
    with pytest.raises(TypeError, match="format"):
        cpu.buffer(np.zeros(3, dtype=">f4"))
    with pytest.raises(TypeError, match="format"):
        cpu.buffer(np.zeros(3, dtype=[("a", "i4"), ("b", "f4")]))
    with pytest.raises(TypeError):
        cpu.buffer(object())


@pytest.mark.parametrize("put", ["buffer", "from_dlpack"])
def test_numpy_on_a_chosen_device_or_memory(xpu, put):
    """Client.buffer and Client.from_dlpack place a NumPy array on a device
    (its default memory) or on one of its memories."""
    a = np.arange(6, dtype=np.float32)
    d1 = xpu.devices[1]
    buf = getattr(xpu, put)(a, device=d1)
    assert buf.device == d1
    assert buf.__dlpack_device__() == d1.dlpack_device
    assert buf.to_bytes() == a.tobytes()
    for m in d1.memories:
        b = getattr(xpu, put)(a, device=m)
        assert b.memory == m
        assert b.__dlpack_device__() == m.dlpack_device
        assert b.to_bytes() == a.tobytes()


def test_buffer_rejects_a_device_of_another_client(cpu, xpu):
    with pytest.raises(ValueError, match="different client"):
        cpu.buffer(np.zeros(2), device=xpu.devices[0])
    with pytest.raises(TypeError, match="device must be"):
        cpu.buffer(np.zeros(2), device=0)


def test_delete(cpu):
    buf = cpu.buffer(np.arange(4, dtype=np.int64))
    assert not buf.is_deleted
    buf.delete()
    assert buf.is_deleted
    buf.delete()  # twice is fine
    assert buf.shape == (4,) and buf.dtype == "int64"  # metadata survives
    with pytest.raises(pjrt_dlpack.Error) as info:
        buf.to_bytes()
    assert info.value.code_name == "FAILED_PRECONDITION"
    with pytest.raises(BufferError):
        buf.__dlpack__()
    assert "deleted" in repr(buf)


def test_array_is_an_explicit_copy(cpu):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    buf = cpu.buffer(a)
    host = np.asarray(buf)
    host[0, 0] = 100
    assert np.asarray(buf)[0, 0] == 0
    assert np.asarray(buf, dtype=np.float64).dtype == np.float64
    with pytest.raises(ValueError):
        buf.__array__(copy=False)


def test_repr(cpu):
    buf = cpu.buffer(np.zeros((2, 3), dtype=np.float32))
    r = repr(buf)
    assert "(2, 3)" in r and "float32" in r and "cpu" in r
    assert "cpu" in repr(cpu)
