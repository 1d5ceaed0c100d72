"""One JAX process driving Intel's oneAPI PJRT plugin on ze_sim (zesim/):
JAX 0.11.2, the release the plugin (jax-oneapi-pjrt 0.11.2) was built for,
finds it as `jax_plugins.xla_oneapi` on the path and makes its `oneapi`
backend. Every scenario is run twice, side by side, once through JAX's own
DLPack (`x.__dlpack__`, `jax.dlpack.from_dlpack`) and once through
pjrt_dlpack.jax (`export`, `from_dlpack`), with pjrt_dlpack buffers of
JAX's own client (`pjrt_dlpack.jax.client`) and of a client of the library's
own on the same plugin; the outcome of each is one JSON line ("RESULT
{...}"), checked by test_jax_oneapi.py. A scenario's value is what it
observed, or the error it raised as "Type: message". `--row` prints the
lines of python/README.md's table instead.

    python jax_oneapi_child.py [--row]

Nothing here computes on the device: data moves by copies and views."""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))

import numpy as np  # noqa: E402

import dlpack_ctypes as dl  # noqa: E402

A = np.arange(12, dtype=np.float32).reshape(3, 4)


def run(f):
    try:
        return f()
    except Exception as e:  # a scenario's outcome, checked by the tests
        return f"{type(e).__name__}: {str(e)[:300]}"


def tensor(capsule, x):
    """What a consumer reads in a capsule of x: kind, device, x's own memory,
    shape, strides, flags, and who made it (the library of its deleter)."""
    name = dl.capsule_name(capsule)
    m = dl.versioned(capsule) if name == "dltensor_versioned" else dl.legacy(capsule)
    t = m.dl_tensor
    maker = os.path.basename(dl.deleter_library(capsule) or "?")
    return {"capsule": name, "device": [t.device.device_type, t.device.device_id],
            "zero_copy": t.data == x.unsafe_buffer_pointer(), "shape": list(t.dims()),
            "strides": list(t.steps()), "flags": int(m.flags) if name.endswith("versioned") else None,
            "maker": "jax" if maker.startswith(("libjax", "_jax")) else
                     "ours" if maker.startswith("_pjrt_dlpack") else maker}


def into_jax(y, buf):
    """A jax.Array made from buf: its device, zero-copy, its values."""
    return {"device": str(next(iter(y.devices()))),
            "zero_copy": y.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer(),
            "values": bool(np.array_equal(np.asarray(y), A))}


def per_call_us(f, n=2000):
    """The best of 5 rounds of n calls, in microseconds per call."""
    f()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            f()
        best = min(best, (time.perf_counter() - start) / n)
    return round(best * 1e6, 2)


def exports(r, x, jax, pjax):
    """x (oneapi device memory) out through each: legacy and versioned asks."""
    r["jax_export"] = run(lambda: tensor(x.__dlpack__(), x))
    r["jax_export_v1"] = run(lambda: tensor(x.__dlpack__(max_version=(1, 0)), x))
    r["jax_export_copy"] = run(lambda: tensor(x.__dlpack__(copy=True), x))
    r["ours_export"] = run(lambda: tensor(pjax.to_dlpack(x), x))
    r["ours_export_v1"] = run(lambda: tensor(pjax.to_dlpack(x, max_version=(1, 0)), x))
    r["ours_export_copy"] = run(lambda: tensor(pjax.to_dlpack(x, max_version=(1, 0), copy=True), x))
    r["us_jax_export"] = run(lambda: per_call_us(lambda: x.__dlpack__()))
    r["us_ours_export_v1"] = run(lambda: per_call_us(lambda: pjax.to_dlpack(x, max_version=(1, 0))))
    r["us_ours_export"] = run(lambda: per_call_us(lambda: pjax.to_dlpack(x)))


def into_pjrt_dlpack(r, x, pjax, own):
    """x into pjrt_dlpack buffers, copy=False: JAX's own client (a view of
    x's memory) and a client of the library's own on the same plugin."""
    theirs = pjax.client("oneapi")
    r["jax_to_jax_client"] = run(lambda: theirs.from_dlpack(x, copy=False).unsafe_buffer_pointer()
                                 == x.unsafe_buffer_pointer())
    r["ours_to_jax_client"] = run(lambda: theirs.from_dlpack(pjax.export(x), copy=False)
                                  .unsafe_buffer_pointer() == x.unsafe_buffer_pointer())
    r["jax_to_own_client"] = run(lambda: own.from_dlpack(x).to_bytes() == A.tobytes())
    r["ours_to_own_client"] = run(lambda: own.from_dlpack(pjax.export(x)).to_bytes() == A.tobytes())


def back_into_jax(r, x, jax, pjax, own):
    """pjrt_dlpack buffers (of JAX's client: a view of x, and a new one; of
    the library's own client) into JAX through each."""
    theirs = pjax.client("oneapi")
    view = theirs.from_dlpack(pjax.export(x), copy=False)
    fresh = theirs.buffer(A)
    mine = own.buffer(A)
    for name, buf in (("view", view), ("jax_client", fresh), ("own_client", mine)):
        r[f"jax_from_{name}"] = run(lambda: into_jax(jax.dlpack.from_dlpack(buf), buf))
        r[f"ours_from_{name}"] = run(lambda: into_jax(pjax.from_dlpack(buf), buf))
    r["us_jax_from_dlpack"] = run(lambda: per_call_us(lambda: jax.dlpack.from_dlpack(fresh), 500))
    r["us_ours_from_dlpack"] = run(lambda: per_call_us(lambda: pjax.from_dlpack(fresh), 500))


def pinned(r, jax, pjax, device):
    """pinned_host memory: the DLDevice each says, and whether NumPy reads
    the tensor zero-copy."""
    sharding = jax.sharding.SingleDeviceSharding(device, memory_kind="pinned_host")
    p = jax.device_put(A, sharding)
    r["pinned_jax_device"] = run(lambda: [int(v) for v in p.__dlpack_device__()])
    r["pinned_ours_device"] = run(lambda: list(pjax.dlpack_device(p)))
    r["pinned_jax_numpy"] = run(lambda: np.from_dlpack(p).ctypes.data == p.unsafe_buffer_pointer())
    r["pinned_ours_numpy"] = run(lambda: np.from_dlpack(pjax.export(p)).ctypes.data
                                 == p.unsafe_buffer_pointer())


def scenarios():
    import jax

    import pjrt_dlpack
    import pjrt_dlpack.jax as pjax

    r = {"jax": jax.__version__, "python": "%d.%d" % sys.version_info[:2]}
    devices = jax.devices("oneapi")
    r["devices"] = [str(d) for d in devices]
    device = devices[0]
    r["platform"] = [device.platform, device.client.platform_version]
    x = jax.device_put(A, device)
    r["roundtrip"] = run(lambda: bool(np.array_equal(np.asarray(x), A)))
    own = pjrt_dlpack.load_plugin(os.environ["PJRT_ONEAPI_PLUGIN"]).client()
    exports(r, x, jax, pjax)
    into_pjrt_dlpack(r, x, pjax, own)
    back_into_jax(r, x, jax, pjax, own)
    pinned(r, jax, pjax, device)
    return r


def _cell(v):
    if isinstance(v, str):
        return "no: " + v.split(": ")[0]
    if isinstance(v, dict) and "capsule" in v:
        kind = "versioned" if v["capsule"].endswith("versioned") else "legacy"
        ok = v["zero_copy"] and v["device"] == [14, 0] and v["strides"] == [4, 1]
        maker = {"jax": "JAX's", "ours": "the module's"}.get(v["maker"], v["maker"])
        return f"kDLOneAPI:0, {kind}, zero-copy ({maker} tensor)" if ok else "WRONG"
    if isinstance(v, dict):
        return "zero-copy" if v["zero_copy"] and v["values"] else \
            ("copy" if v["values"] else "WRONG")
    return "zero-copy view" if v is True else "WRONG"


def rows(r):
    """The lines of python/README.md's table: one per way, side by side."""
    out = ["| JAX 0.11.2 on Intel's plugin (ze_sim) | JAX's own DLPack | pjrt_dlpack.jax |",
           "| --- | --- | --- |"]

    def line(what, jax_key, ours_key, cell=_cell):
        out.append(f"| {what} | {cell(r[jax_key])} | {cell(r[ours_key])} |")
    line("export, legacy asked", "jax_export", "ours_export")
    line("export, DLPack 1.x asked", "jax_export_v1", "ours_export_v1")
    line("into JAX's own client (`pjax.client`), copy=False", "jax_to_jax_client",
         "ours_to_jax_client")
    line("into a client of the library's own, the values", "jax_to_own_client",
         "ours_to_own_client", cell=lambda v: "yes" if v is True else _cell(v))
    line("back into JAX from a view of the array", "jax_from_view", "ours_from_view")
    line("back into JAX from a buffer of JAX's client", "jax_from_jax_client",
         "ours_from_jax_client")
    line("back into JAX from a buffer of another client", "jax_from_own_client",
         "ours_from_own_client")
    line("pinned_host: DLDevice", "pinned_jax_device", "pinned_ours_device",
         cell=lambda v: str(v) if isinstance(v, list) else _cell(v))
    line("export, µs per call (legacy / 1.x)", "us_jax_export", "us_ours_export_v1",
         cell=lambda v: str(v))
    line("from_dlpack, µs per call", "us_jax_from_dlpack", "us_ours_from_dlpack",
         cell=lambda v: str(v))
    return "\n".join(out)


def main():
    if sys.argv[1:] not in ([], ["--row"]):
        sys.exit("usage: jax_oneapi_child.py [--row]")
    results = scenarios()
    print(rows(results) if sys.argv[1:] == ["--row"] else "RESULT " + json.dumps(results))


if __name__ == "__main__":
    main()
