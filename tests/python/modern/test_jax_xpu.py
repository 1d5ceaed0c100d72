"""JAX drives the reference plugin as platform `xpu`, and pjrt_dlpack.jax
moves its arrays through DLPack.

JAX reads PJRT_NAMES_AND_LIBRARY_PATHS once per process, when it first makes
its backends, and other tests in this process may have done that already:
the JAX side runs in child processes. One child runs every scenario and
reports a JSON dict; the tests below check its entries."""
import json
import os
import subprocess
import sys
import textwrap

import pytest


HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "..", "examples", "jax_xpu.py")

CHILD = textwrap.dedent(r'''
    import gc, json, sys
    import numpy as np, ml_dtypes, jax
    import pjrt_dlpack as pd, pjrt_dlpack.jax as pjax

    r = {}
    def record(name, f):
        try:
            r[name] = f()
        except Exception as e:
            r[name] = f"{type(e).__name__}: {e}"

    d0, d1 = jax.devices("xpu")
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    r["devices"] = [str(d) for d in jax.devices("xpu")]
    r["platform"] = d0.platform
    x = jax.device_put(a, d1)
    r["roundtrip"] = np.asarray(x).tolist() == a.tolist()
    r["dtypes"] = {}
    for dt in [np.bool_, np.int8, np.uint16, np.int32, np.float16, ml_dtypes.bfloat16,
               np.float32, np.complex64]:
        v = np.arange(6).reshape(2, 3).astype(dt)
        r["dtypes"][np.dtype(dt).name] = bool(np.array_equal(np.asarray(jax.device_put(v, d0)), v))
    record("jit", lambda: str(jax.jit(lambda v: v + 1)(x)))
    record("copy_same_device", lambda: np.asarray(
        jax.device_put(x, d1, may_alias=False)).tolist() == a.tolist())
    r["copy_new_pointer"] = (jax.device_put(x, d1, may_alias=False).unsafe_buffer_pointer()
                             != x.unsafe_buffer_pointer())

    # Export: kDLOneAPI with the device's id, the array kept alive.
    r["dl_device"] = [list(pjax.dlpack_device(jax.device_put(a, d))) for d in (d0, d1)]
    c = pjax.client("xpu")
    r["client_same"] = pjax.client(x) is c and pjax.client(d0) is c
    r["client_platform"] = c.platform
    refs = sys.getrefcount(x)
    buf = c.from_dlpack(pjax.export(x), copy=False)
    r["view_same_pointer"] = buf.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
    r["view_values"] = np.asarray(buf).tolist() == a.tolist()
    r["view_device"] = str(buf.device)
    r["owner_held"] = sys.getrefcount(x) - refs
    del buf
    gc.collect()
    r["owner_released"] = sys.getrefcount(x) - refs
    # Legacy and versioned capsules, both consumed by the library.
    for name, mv in [("legacy", None), ("versioned", (1, 3))]:
        cap = pjax.to_dlpack(x, max_version=mv)
        b = c.from_dlpack(cap)
        r[f"capsule_{name}"] = [b.unsafe_buffer_pointer() == x.unsafe_buffer_pointer(),
                                np.asarray(b).tolist() == a.tolist()]
        del b
    # Unconsumed capsules release the array too.
    refs = sys.getrefcount(x)
    cap = pjax.to_dlpack(x, max_version=(1, 3))
    del cap
    r["unconsumed_released"] = sys.getrefcount(x) - refs
    # copy=True: JAX copies on the device; the flag says so.
    b = c.from_dlpack(pjax.to_dlpack(x, max_version=(1, 3), copy=True))
    r["copy_true"] = [b.unsafe_buffer_pointer() != x.unsafe_buffer_pointer(),
                      np.asarray(b).tolist() == a.tolist()]
    # pinned_host memory is host memory: kDLCPU, NumPy views it.
    p = jax.device_put(a, jax.sharding.SingleDeviceSharding(d0, memory_kind="pinned_host"))
    r["pinned_dl_device"] = list(pjax.dlpack_device(p))
    n = np.from_dlpack(pjax.export(p))
    r["pinned_numpy"] = [n.ctypes.data == p.unsafe_buffer_pointer(), n.tolist() == a.tolist()]
    r["read_only_numpy"] = np.from_dlpack(pjax.export(p, read_only=True)).flags.writeable
    # NumPy cannot read xpu device memory, and says so.
    record("numpy_xpu", lambda: np.from_dlpack(pjax.export(x)).tolist())
    # Back to JAX, zero-copy, from a view and from a buffer of JAX's client.
    y = pjax.from_dlpack(c.from_dlpack(pjax.export(x)))
    r["to_jax"] = [str(next(iter(y.devices()))), y.unsafe_buffer_pointer() == x.unsafe_buffer_pointer(),
                   np.asarray(y).tolist() == a.tolist()]
    b = c.buffer(a, device=c.devices[0])
    z = pjax.from_dlpack(b)
    del b
    gc.collect()
    r["buffer_to_jax"] = [str(next(iter(z.devices()))), np.asarray(z).tolist() == a.tolist()]
    # JAX's built-in cpu: exported (kDLCPU), but it has no PJRT_Client* to wrap.
    w = jax.device_put(a, jax.devices("cpu")[0])
    r["cpu_export"] = [list(pjax.dlpack_device(w)),
                       np.from_dlpack(pjax.export(w)).tolist() == a.tolist()]
    record("cpu_client", lambda: str(pjax.client("cpu")))
    # A sharded array is one tensor per shard.
    mesh = jax.sharding.Mesh(np.array([d0, d1]), ("i",))
    s = jax.device_put(a, jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(None, "i")))
    record("sharded", lambda: pjax.export(s))
    r["sharded"] = str(r["sharded"])
    r["shards"] = [np.asarray(c.from_dlpack(pjax.export(sh.data))).tolist()
                   for sh in s.addressable_shards]
    record("deleted", lambda: (lambda t: (t.delete(), pjax.export(t)))(jax.device_put(a, d0)))
    r["deleted"] = str(r["deleted"])
    print("RESULT " + json.dumps(r))
''')


def _env(tmp_path, plugin_file):
    config = tmp_path / "xpu.json"
    config.write_text(json.dumps({"library_path": os.path.abspath(plugin_file),
                                  "create_options": {"platform": "xpu"}}))
    env = dict(os.environ)
    env["PJRT_NAMES_AND_LIBRARY_PATHS"] = f"xpu:{config}"
    env.pop("JAX_PLATFORMS", None)
    return env


@pytest.fixture(scope="module")
def results(tmp_path_factory, ref_plugin_file):
    env = _env(tmp_path_factory.mktemp("jax_xpu"), ref_plugin_file)
    proc = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True,
                          timeout=300)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, f"child failed ({proc.returncode}):\n" \
        f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return json.loads(lines[-1][len("RESULT "):])


def test_jax_loads_the_plugin_as_xpu(results):
    assert results["devices"] == ["xpu:0", "xpu:1"]
    assert results["platform"] == "xpu"


def test_device_put_and_asarray(results):
    assert results["roundtrip"]
    assert all(results["dtypes"].values()), results["dtypes"]


def test_jit_fails_cleanly(results):
    assert "UNIMPLEMENTED" in results["jit"] and "PJRT_Client_Compile" in results["jit"]


def test_copy_into_the_same_device(results):
    # PJRT_Buffer_CopyToMemory into the buffer's own memory makes a copy.
    assert results["copy_same_device"] is True
    assert results["copy_new_pointer"]


def test_export_is_oneapi(results):
    import pjrt_dlpack
    assert results["dl_device"] == [[pjrt_dlpack.kDLOneAPI, 0], [pjrt_dlpack.kDLOneAPI, 1]]
    assert results["pinned_dl_device"] == [pjrt_dlpack.kDLCPU, 0]


def test_view_on_jax_client(results):
    assert results["client_same"] and results["client_platform"] == "xpu"
    assert results["view_same_pointer"] and results["view_values"]
    assert results["view_device"] == "xpu:1"
    assert results["capsule_legacy"] == [True, True]
    assert results["capsule_versioned"] == [True, True]
    assert results["copy_true"] == [True, True]


def test_array_kept_alive_until_deleter(results):
    assert results["owner_held"] >= 1
    assert results["owner_released"] == 0
    assert results["unconsumed_released"] == 0


def test_host_memory_consumers(results):
    assert results["pinned_numpy"] == [True, True]
    assert results["read_only_numpy"] is False
    assert "Unsupported device" in results["numpy_xpu"] or "Error" in results["numpy_xpu"]


def test_back_to_jax(results):
    assert results["to_jax"] == ["xpu:1", True, True]
    assert results["buffer_to_jax"] == ["xpu:0", True]


def test_builtin_cpu_and_limits(results):
    assert results["cpu_export"] == [[1, 0], True]
    assert results["cpu_client"].startswith("ValueError") and "C API" in results["cpu_client"]
    assert results["sharded"].startswith("BufferError") and "shard" in results["sharded"]
    assert len(results["shards"]) == 2
    assert results["deleted"].startswith("BufferError") and "deleted" in results["deleted"]


def test_example_script(tmp_path, ref_plugin_file):
    proc = subprocess.run([sys.executable, EXAMPLE, ref_plugin_file],
                          env=_env(tmp_path, ref_plugin_file),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "jax_xpu.py OK" in proc.stdout
