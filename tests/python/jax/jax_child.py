"""One JAX process of the JAX matrix: the reference plugin as platform `xpu`
(two devices) beside JAX's CPU backend with four devices, every scenario of
pjrt_dlpack.jax run once, the outcome of each printed as one JSON line
("RESULT {...}"). A scenario's value is what it observed, or the error it
raised as "Type: message". test_jax_release.py checks the values against
what each JAX release can do; `--row` prints the line of python/README.md's
support table instead (scripts/jax-matrix.sh).

    python jax_child.py PLUGIN [--row]

JAX reads PJRT_NAMES_AND_LIBRARY_PATHS and XLA_FLAGS once per process, when
it makes its backends: this script sets both before importing JAX."""
import ctypes
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/python: dlpack_ctypes

import numpy as np  # noqa: E402

import dlpack_ctypes as dl  # noqa: E402

CPU_DEVICES = 4


def setup_environment(plugin):
    os.environ["PJRT_REF_PLUGIN"] = os.path.abspath(plugin)
    config = os.path.join(tempfile.mkdtemp(prefix="jax_child_"), "xpu.json")
    with open(config, "w") as f:
        json.dump({"library_path": os.path.abspath(plugin),
                   "create_options": {"platform": "xpu"}}, f)
    os.environ["PJRT_NAMES_AND_LIBRARY_PATHS"] = f"xpu:{config}"
    os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={CPU_DEVICES}"
    os.environ.pop("JAX_PLATFORMS", None)


def run(f):
    try:
        return f()
    except Exception as e:  # a scenario's outcome, checked by the tests
        return f"{type(e).__name__}: {e}"


def tensor_of(capsule):
    """(data pointer, (device_type, id), shape, strides) of an unconsumed capsule."""
    t = (dl.versioned(capsule) if dl.capsule_name(capsule) == "dltensor_versioned"
         else dl.legacy(capsule)).dl_tensor
    return t.data, (t.device.device_type, t.device.device_id), t.dims(), t.steps()


def exported(x, **kw):
    """What pjax.to_dlpack hands out for x: pointer, device, shape, strides."""
    import pjrt_dlpack.jax as pjax

    data, device, shape, strides = tensor_of(pjax.to_dlpack(x, max_version=(1, 0), **kw))
    return {"same_pointer": data == x.unsafe_buffer_pointer(), "device": list(device),
            "shape": list(shape), "strides": list(strides)}


def copy_written_through(x):
    """copy=True: the copy's memory is not x's; writing 99 through it (raw
    memory: the reference plugin's xpu memory is host memory) leaves x alone."""
    import pjrt_dlpack.jax as pjax

    before = np.asarray(x).copy()
    capsule = pjax.to_dlpack(x, max_version=(1, 0), copy=True)
    t = dl.versioned(capsule)
    values = np.ctypeslib.as_array(ctypes.cast(t.dl_tensor.data, ctypes.POINTER(ctypes.c_float)),
                                   shape=before.shape)
    same_values = bool(np.array_equal(values, before))
    values[...] = 99
    return {"new_memory": t.dl_tensor.data != x.unsafe_buffer_pointer(),
            "flagged_copied": bool(t.flags & dl.IS_COPIED), "same_values": same_values,
            "original_unchanged": bool(np.array_equal(np.asarray(x), before))}


def layout_path(x):
    import pjrt_dlpack.jax as pjax

    for outer, inner in pjax._LAYOUT_PATHS:
        if hasattr(type(x), outer) and hasattr(getattr(x, outer), inner):
            return f"{outer}.{inner}"
    return None


def xpu_scenarios(r, jax, pjax, a):
    d0, d1 = jax.devices("xpu")
    r["xpu_devices"] = [str(d) for d in (d0, d1)]
    x = jax.device_put(a, d1)
    r["xpu_roundtrip"] = run(lambda: bool(np.array_equal(np.asarray(x), a)))
    r["xpu_export"] = run(lambda: exported(x))
    r["xpu_copy"] = run(lambda: copy_written_through(x))
    r["xpu_client"] = run(lambda: pjax.client("xpu").platform)
    r["xpu_view"] = run(lambda: pjax.client("xpu").from_dlpack(
        pjax.export(x), copy=False).unsafe_buffer_pointer() == x.unsafe_buffer_pointer())

    def to_jax():
        y = pjax.from_dlpack(pjax.export(x))
        return [str(next(iter(y.devices()))), y.unsafe_buffer_pointer() == x.unsafe_buffer_pointer(),
                bool(np.array_equal(np.asarray(y), a))]
    r["xpu_to_jax"] = run(to_jax)
    mesh = jax.sharding.Mesh(np.array([d0, d1]), ("i",))
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(None, "i"))
    s = jax.device_put(a, sharding)
    r["xpu_sharded_export"] = run(lambda: str(pjax.export(s)))
    r["xpu_shards"] = run(lambda: [exported(sh.array) | {"index": str(sh.index)}
                                   for sh in pjax.export_shards(s)])
    r["xpu_from_shards"] = run(lambda: shards_back(jax, pjax, s, sharding, a))


def shards_back(jax, pjax, s, sharding, a):
    z = pjax.from_shards(pjax.export_shards(s), sharding)
    return {"values": bool(np.array_equal(np.asarray(z), a)), "shape": list(z.shape),
            "zero_copy": [p.data.unsafe_buffer_pointer() == q.data.unsafe_buffer_pointer()
                          for p, q in zip(z.addressable_shards, s.addressable_shards)]}


def cpu_scenarios(r, jax, pjax, a):
    cpus = jax.devices("cpu")
    r["cpu_devices"] = len(cpus)
    w = jax.device_put(a, cpus[1])
    r["layout_path"] = layout_path(w)
    r["cpu_export"] = run(lambda: exported(w))
    r["cpu_numpy"] = run(lambda: [np.from_dlpack(pjax.export(w)).ctypes.data
                                  == w.unsafe_buffer_pointer(),
                                  bool(np.array_equal(np.from_dlpack(pjax.export(w)), a))])
    r["cpu_copy"] = run(lambda: copy_written_through(w))
    # Facts of this release the table shows: does JAX's own same-device copy
    # copy, and where jaxlib keeps dlpack_managed_tensor_to_buffer.
    r["device_put_copies"] = (jax.device_put(w, w.sharding, may_alias=False)
                              .unsafe_buffer_pointer() != w.unsafe_buffer_pointer())
    impl = pjax._to_buffer_impl()
    r["to_buffer"] = [getattr(impl[0], "__module__", None) or "?", impl[1], impl[2]]
    r["cpu_client"] = run(lambda: str(pjax.client("cpu")))

    def to_jax():
        y = pjax.from_dlpack(pjax.export(w), device=cpus[2])
        return [str(next(iter(y.devices()))), y.unsafe_buffer_pointer() == w.unsafe_buffer_pointer(),
                bool(np.array_equal(np.asarray(y), a))]
    r["cpu_to_jax"] = run(to_jax)
    mesh = jax.sharding.Mesh(np.array(cpus).reshape(2, 2), ("a", "b"))
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("a", "b"))
    s = jax.device_put(np.arange(32, dtype=np.float32).reshape(4, 8), sharding)
    r["cpu_shards"] = run(lambda: [exported(sh.array) | {"index": str(sh.index),
                                                         "jax_device": str(sh.device)}
                                   for sh in pjax.export_shards(s)])
    r["cpu_from_shards"] = run(lambda: shards_back(jax, pjax, s, sharding, np.asarray(s)))
    r["cpu_whose_export"] = run(lambda: whose_export(w))
    r["xpu_whose_export"] = run(lambda: whose_export(jax.device_put(a, jax.devices("xpu")[0])))
    r["export_side_by_side"] = run(lambda: side_by_side(jax, a, cpus[0]))
    r["import_side_by_side"] = run(lambda: import_side_by_side(jax, cpus[0]))


def whose_export(x):
    """Whose tensor pjax.to_dlpack hands out for x, per request: the name of
    the library holding its deleter (JAX's own export where it gives the
    tensor asked for, from 0.11; ours otherwise)."""
    import pjrt_dlpack.jax as pjax

    def lib(capsule):
        name = os.path.basename(dl.deleter_library(capsule) or "?")
        return "jax" if name.startswith(("_jax", "libjax")) or "xla_extension" in name else \
            "ours" if name.startswith("_pjrt_dlpack") else name
    return {"legacy": lib(pjax.to_dlpack(x)),
            "read_only": lib(pjax.to_dlpack(x, max_version=(1, 0), read_only=True)),
            "writable": lib(pjax.to_dlpack(x, max_version=(1, 0)))}


def column_major(jax, a, device):
    """a on device in column-major order (a Format of a Layout, JAX 0.7 and
    later; of a DeviceLocalLayout in 0.6.2, whose Layout is the Format), or
    None where this JAX has no such form."""
    try:
        from jax.experimental.layout import Format, Layout
    except ImportError:
        return None
    import jax.experimental.layout as layouts

    order = tuple(reversed(range(a.ndim)))
    sharding = jax.sharding.SingleDeviceSharding(device)
    local = getattr(layouts, "DeviceLocalLayout", None)
    try:
        return jax.device_put(a, Format(Layout(order), sharding))
    except TypeError:
        if local is None:
            raise
    return jax.device_put(a, Format(local(major_to_minor=order), sharding))


def side_by_side(jax, a, device):
    """JAX's own __dlpack__ and pjax.to_dlpack (ours, writable) for the same
    array, as a consumer reads them: equal tensors (address, device, shape,
    strides), row-major and column-major; then back into JAX, zero-copy, by
    jax.dlpack.from_dlpack and by pjax.from_dlpack, each from a library
    buffer viewing the memory."""
    import pjrt_dlpack.jax as pjax

    out = {}
    for name, x in (("row_major", jax.device_put(a, device)),
                    ("column_major", column_major(jax, a, device))):
        if x is None:
            out[name] = "n/a"
            continue
        theirs = tensor_of(x.__dlpack__())
        ours = tensor_of(pjax.to_dlpack(x, max_version=(1, 0)))
        out[name] = {"same_tensor": theirs == ours, "strides": list(ours[3])}
    return out


def import_side_by_side(jax, device):
    """A tensor of ours (a buffer of the library's own CPU client over
    64-byte aligned NumPy memory, C- and F-ordered) into JAX by its own
    jax.dlpack.from_dlpack and by pjax.from_dlpack: zero-copy and equal."""
    import pjrt_dlpack
    import pjrt_dlpack.jax as pjax
    from aligned_arrays import aligned_copy

    c = pjrt_dlpack.load_plugin(os.environ["PJRT_REF_PLUGIN"]).client(platform="cpu")
    out = {}
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    for name, src in (("row_major", aligned_copy(a)), ("column_major", aligned_copy(a.T).T)):
        buf = c.from_dlpack(src, copy=False)
        got = []
        for f in (lambda: jax.dlpack.from_dlpack(buf), lambda: pjax.from_dlpack(buf, device=device)):
            y = run(f)
            got.append(y if isinstance(y, str) else
                       [y.unsafe_buffer_pointer() == src.ctypes.data,
                        bool(np.array_equal(np.asarray(y), a))])
        out[name] = got
    return out


def library_scenarios(r, jax, plugin):
    """jax.dlpack.from_dlpack on a buffer of the library's own client."""
    import pjrt_dlpack

    c = pjrt_dlpack.load_plugin(plugin).client(platform="cpu")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    buf = c.buffer(a)
    r["jax_from_library"] = run(lambda: bool(np.array_equal(np.asarray(
        jax.dlpack.from_dlpack(buf)), a)))


def example(plugin):
    """examples/jax_xpu.py in its own process: its exit status and the last
    line it wrote to stderr."""
    import subprocess

    path = os.path.join(HERE, "..", "..", "..", "examples", "jax_xpu.py")
    proc = subprocess.run([sys.executable, path, plugin], capture_output=True, text=True,
                          timeout=600)
    last = (proc.stderr.strip().splitlines() or [""])[-1]
    return {"returncode": proc.returncode, "stderr": last, "stdout": proc.stdout[-2000:]}


def scenarios(plugin):
    setup_environment(plugin)
    import jax

    r = {"jax": jax.__version__}
    try:
        import pjrt_dlpack.jax as pjax
    except ImportError as e:
        r["import"] = f"ImportError: {e}"
        return r
    r["import"] = True
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    xpu_scenarios(r, jax, pjax, a)
    cpu_scenarios(r, jax, pjax, a)
    library_scenarios(r, jax, plugin)
    r["example"] = example(plugin)
    return r


# The columns of python/README.md's table: (heading, the cell of a result).
def _cell(value, ok):
    if isinstance(value, str) and " or newer; this is JAX" in value:
        return "no: needs " + value.split("needs JAX ")[1].split(" or newer")[0]
    if isinstance(value, str) and ": " in value:
        return "no: " + value.split(": ")[0]
    return "yes" if ok(value) else "WRONG"


COLUMNS = [
    ("`xpu`: device_put, np.asarray", "xpu_roundtrip", lambda v: v is True),
    ("export xpu (kDLOneAPI)", "xpu_export", lambda v: v["same_pointer"] and v["device"] == [14, 1]),
    ("export cpu", "cpu_numpy", lambda v: v == [True, True]),
    ("`copy=True` copies", "xpu_copy", lambda v: all(v.values())),
    ("`client()`", "xpu_view", lambda v: v is True),
    ("`from_dlpack` cpu", "cpu_to_jax", lambda v: v[1:] == [True, True]),
    ("`from_dlpack` xpu", "xpu_to_jax", lambda v: v[1:] == [True, True]),
    ("`jax.dlpack.from_dlpack(buf)`", "jax_from_library", lambda v: v is True),
    ("`export_shards` cpu×4, xpu×2", "xpu_shards", lambda v: len(v) == 2),
    ("`from_shards` cpu", "cpu_from_shards", lambda v: all(v["zero_copy"]) and v["values"]),
    ("`from_shards` xpu", "xpu_from_shards", lambda v: all(v["zero_copy"]) and v["values"]),
]


def _own_cell(v):
    """Which requests get JAX's own tensor (cpu arrays), from whose_export."""
    if isinstance(v, str):
        return _cell(v, lambda _: False)
    if v["writable"] != "ours":
        return "WRONG"
    used = [k.replace("_", "-") for k in ("legacy", "read_only") if v[k] == "jax"]
    return ", ".join(used) if used else "no"


def _side_cell(r):
    """JAX's own DLPack and ours, side by side: equal tensors out, zero-copy
    equal arrays in; "row-major" where this JAX cannot lay out column-major."""
    ex, im = r["export_side_by_side"], r["import_side_by_side"]
    if isinstance(ex, str) or isinstance(im, str):
        return _cell(ex if isinstance(ex, str) else im, lambda _: False)
    ok_out = ex["row_major"]["same_tensor"] and (ex["column_major"] == "n/a" or
                                                 ex["column_major"]["same_tensor"])
    columns_in = im["column_major"]
    refused_alike = all(isinstance(v, str) and "non-default layout" in v for v in columns_in)
    # JAX's own import wrong (zero-copy, unequal), ours refusing it.
    theirs_wrong = columns_in[0] == [True, False] and isinstance(columns_in[1], str) and \
        "values would be wrong" in columns_in[1]
    ok_in = im["row_major"] == [[True, True]] * 2 and (columns_in == [[True, True]] * 2 or
                                                     refused_alike or theirs_wrong)
    if not (ok_in and ok_out):
        return "WRONG"
    notes = []
    if ex["column_major"] == "n/a":
        notes.append("no column-major arrays")
    if refused_alike:
        notes.append("both refuse column-major tensors")
    if theirs_wrong:
        notes.append("JAX's own import of a column-major tensor gives wrong values; ours refuses it")
    return "yes" + (f" ({'; '.join(notes)})" if notes else "")


def row(r):
    """The table line of one run: JAX release, layout path, then COLUMNS and
    examples/jax_xpu.py."""
    if r.get("import") is not True:
        return f"| {r['jax']} | {r['import']} |"
    cells = [_cell(r[key], ok) for _, key, ok in COLUMNS]
    if r["cpu_shards"] and not isinstance(r["cpu_shards"], str) and len(r["cpu_shards"]) != 4:
        cells[8] = "WRONG"
    if not isinstance(r["cpu_copy"], dict) or not all(r["cpu_copy"].values()):
        cells[3] = "WRONG"
    ex = r["example"]
    cells.append("yes" if ex["returncode"] == 0 else _cell(ex["stderr"], lambda v: False))
    own_copy = "yes" if r["device_put_copies"] else "no: aliases"
    module, takes_type, takes_copy = r["to_buffer"]
    to_buffer = f"`{module}`" + (", `copy=`" if takes_copy else "") + \
        (", `dl_device_type=`" if takes_type else "")
    cells += [_own_cell(r["cpu_whose_export"]), _side_cell(r)]
    python = "%d.%d" % sys.version_info[:2]
    return "| " + " | ".join([r["jax"], python, f"`{r['layout_path']}`", own_copy, to_buffer] +
                             cells) + " |"


def header():
    names = ["JAX", "Python", "layout from", "JAX's `device_put(may_alias=False)` copies",
             "`dlpack_managed_tensor_to_buffer` in"] + \
        [c[0] for c in COLUMNS] + ["examples/jax_xpu.py", "JAX's own tensor for (cpu)",
                                   "JAX's DLPack and ours side by side (cpu)"]
    return "| " + " | ".join(names) + " |\n|" + " --- |" * len(names)


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--row"]):
        sys.exit("usage: jax_child.py PLUGIN [--row]")
    results = scenarios(sys.argv[1])
    if sys.argv[2:] == ["--row"]:
        if os.environ.get("PJDL_TABLE_HEADER"):
            print(header())
        print(row(results))
    else:
        print("RESULT " + json.dumps(results))


if __name__ == "__main__":
    main()
