#!/usr/bin/env python3
"""The CUDA checks of scripts/gpu-check.sh: pjrt_dlpack against XLA's CUDA
PJRT plugin, with PyTorch and CuPy on the other side of the exchange, and
pjrt_dlpack.jax on JAX's own CUDA backend.

Run by gpu-check.sh after it has built the command and the module (the
module must be on PYTHONPATH):

    python3 scripts/gpu_check.py --cli build-gpu/tools/pjrt-dlpack [--plugin PATH]

Every step is a named check that passes or fails with a message; an error
in one does not stop the others, and a check whose prerequisite failed is
reported as not run (the prerequisite's failure already counts). The last
line is "gpu-check: N passed, N failed"; the exit status is 1 when any check
failed, else 0. See docs/gpu-check.md.
"""

import argparse
import ctypes
import gc
import importlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
import traceback

KDL_CUDA = 2
KDL_CUDA_HOST = 3

# XLA's GPU plugin preallocates most of the GPU's memory unless told not to;
# PyTorch and CuPy need some too.
CLIENT_OPTIONS = {"preallocate": False}
CLI_OPTIONS = ["--option", "preallocate=false"]

# The CUDA 13 libraries XLA's plugin links, by soname, loaded from the
# NVIDIA wheels (nvidia/<package>/lib) before the plugin so that its
# dependencies resolve to them. Only sonames no CUDA 12 library shares.
CUDA13_SONAMES = [
    "libcudart.so.13",
    "libnvJitLink.so.13",
    "libnvrtc.so.13",
    "libcublasLt.so.13",
    "libcublas.so.13",
    "libcupti.so.13",
]


class CheckFailed(Exception):
    """A check's expectation that did not hold; the message says which."""


def expect(cond, message):
    if not cond:
        raise CheckFailed(message)


class Runner:
    def __init__(self, verbose):
        self.verbose = verbose
        self.status = {}
        self.passed = 0
        self.failed = 0
        self.not_run = 0

    def run(self, name, fn, needs=()):
        missing = [n for n in needs if self.status.get(n) != "pass"]
        if missing:
            self.status[name] = "not run"
            self.not_run += 1
            print(f"SKIP {name}: not run, needs {', '.join(missing)}", flush=True)
            return
        t0 = time.perf_counter()
        try:
            message = fn()
        except CheckFailed as e:
            self._fail(name, str(e))
        except Exception as e:  # any error of a check is that check's failure
            where = traceback.extract_tb(e.__traceback__)[-1]
            self._fail(
                name,
                f"{type(e).__name__}: {e} (at {os.path.basename(where.filename)}:{where.lineno})",
            )
            if self.verbose:
                traceback.print_exc()
        else:
            self.status[name] = "pass"
            self.passed += 1
            took = time.perf_counter() - t0
            print(f"PASS {name}: {message or 'ok'} ({took:.2f} s)", flush=True)

    def _fail(self, name, message):
        self.status[name] = "fail"
        self.failed += 1
        print(f"FAIL {name}: {message}", flush=True)


class State:
    """What the checks hand on to each other."""

    plugin_path = None
    nvidia_lib_dirs = ()
    cli = None
    np = None
    torch = None
    cupy = None
    pj = None
    plugin = None
    client = None
    device = None
    dl_id = 0
    export_buf = None
    host = None
    cupy_array = None
    timings = None
    jax = None
    pjax = None
    jax_array = None


S = State()


# --- locating things -------------------------------------------------------


def nvidia_lib_dirs():
    """The lib/ folders of the installed NVIDIA wheels (nvidia/*/lib)."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    dirs = []
    for base in spec.submodule_search_locations:
        try:
            names = sorted(os.listdir(base))
        except OSError:
            continue
        for name in names:
            lib = os.path.join(base, name, "lib")
            if os.path.isdir(lib):
                dirs.append(lib)
    # CUDA 13's folder first: it shares some sonames with CUDA 12's wheels.
    return sorted(dirs, key=lambda d: os.path.basename(os.path.dirname(d)) != "cu13")


def plugin_from_package(package):
    """xla_cuda_plugin.so of an installed jax_plugins package, without
    importing it (its __init__ imports jax)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        path = os.path.join(base, "xla_cuda_plugin.so")
        if os.path.isfile(path):
            return path
    return None


def check_find_plugin(args):
    def run():
        if args.plugin:
            expect(os.path.isfile(args.plugin), f"no CUDA plugin found: {args.plugin} does not exist")
            S.plugin_path = os.path.abspath(args.plugin)
            how = "given"
        else:
            path = plugin_from_package("jax_plugins.xla_cuda13")
            how = "jax_plugins.xla_cuda13"
            if path is None:
                path = plugin_from_package("jax_plugins.xla_cuda12")
                how = "jax_plugins.xla_cuda12 (no xla_cuda13)"
            expect(
                path is not None,
                f"no CUDA plugin found: jax_plugins.xla_cuda13 is not installed for "
                f"{sys.executable} (pip install jax-cuda13-plugin, or give --plugin PATH or "
                f"PJDL_CUDA_PLUGIN)",
            )
            S.plugin_path = path
        S.nvidia_lib_dirs = nvidia_lib_dirs()
        return f"{S.plugin_path} ({how}; {len(S.nvidia_lib_dirs)} NVIDIA library folders)"

    return run


# --- the command -----------------------------------------------------------


def cli_env():
    env = dict(os.environ)
    dirs = list(S.nvidia_lib_dirs)
    if env.get("LD_LIBRARY_PATH"):
        dirs.append(env["LD_LIBRARY_PATH"])
    if dirs:
        env["LD_LIBRARY_PATH"] = os.pathsep.join(dirs)
    return env


def run_cli(argv, timeout):
    cmd = [S.cli] + argv
    try:
        return subprocess.run(
            cmd, env=cli_env(), capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        raise CheckFailed(f"{' '.join(cmd)} did not finish in {timeout} s") from None


def tail(text, lines=8):
    return " | ".join(text.strip().splitlines()[-lines:])


def run_cli_with_options(command, timeout):
    """Runs `pjrt-dlpack COMMAND` with CLI_OPTIONS, and again without them
    when the plugin refuses them (exit 3 naming the option)."""
    r = run_cli(command + CLI_OPTIONS + [S.plugin_path], timeout)
    if r.returncode == 3 and "preallocate" in (r.stderr + r.stdout):
        r = run_cli(command + [S.plugin_path], timeout)
    return r


def check_cli_info():
    r = run_cli_with_options(["info", "--json"], 300)
    expect(r.returncode == 0, f"pjrt-dlpack info exited {r.returncode}: {tail(r.stderr + r.stdout)}")
    info = json.loads(r.stdout)
    platform = str(info.get("platform", ""))
    expect(platform.lower() == "cuda", f"platform is '{platform}', expected 'cuda'")
    devices = info.get("devices") or []
    expect(devices, "the plugin reports no devices")
    kinds = {}
    for m in devices[0].get("memories", []):
        kinds[m.get("kind")] = (m.get("dl_device") or {}).get("device_type")
    expect(kinds.get("device") == "kDLCUDA", f"memory 'device' maps to {kinds.get('device')}, expected kDLCUDA")
    expect(
        kinds.get("pinned_host") == "kDLCUDAHost",
        f"memory 'pinned_host' maps to {kinds.get('pinned_host')}, expected kDLCUDAHost",
    )
    exts = [e.get("name") for e in info.get("extensions", [])]
    expect("Stream" in exts, f"no Stream extension (extensions: {exts})")
    return (
        f"{platform} {info.get('platform_version', '')}, ABI "
        f"{info['abi_version']['major']}.{info['abi_version']['minor']}, {len(devices)} device(s), "
        f"memories {sorted(k for k in kinds if k)}"
    )


def check_cli_check():
    r = run_cli_with_options(["check"], 600)
    out = r.stdout.strip().splitlines()
    summary = out[-1] if out else ""
    if r.returncode != 0:
        failing = [line for line in out if line.startswith("FAIL")]
        detail = " | ".join(failing + [summary]) if failing else tail(r.stderr + r.stdout)
        raise CheckFailed(f"pjrt-dlpack check exited {r.returncode}: {detail}")
    # The checks that did not pass, each with its reason, after the counts.
    unsupported = [" ".join(line.split()) for line in out if line.startswith(("UNSUPPORTED", "SKIP"))]
    return " | ".join([summary] + unsupported)


# --- Python: modules, plugin, client ---------------------------------------


def check_import(name, attr):
    def run():
        try:
            mod = importlib.import_module(name)
        except ImportError as e:
            raise CheckFailed(f"cannot import {name} with {sys.executable}: {e}") from None
        setattr(S, attr, mod)
        version = getattr(mod, "__version__", "")
        return f"{name} {version} from {os.path.dirname(getattr(mod, '__file__', '') or '')}"

    return run


def check_torch_cuda():
    torch = S.torch
    expect(torch.cuda.is_available(), f"torch {torch.__version__} sees no CUDA device (a CPU-only build?)")
    return f"torch CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}"


def check_cupy_cuda():
    cupy = S.cupy
    n = cupy.cuda.runtime.getDeviceCount()
    expect(n > 0, "CuPy sees no CUDA device")
    return f"CuPy {cupy.__version__}, {n} device(s), CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()}"


def preload_cuda13():
    loaded = []
    for soname in CUDA13_SONAMES:
        for d in S.nvidia_lib_dirs:
            path = os.path.join(d, soname)
            if os.path.isfile(path):
                try:
                    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                    loaded.append(soname)
                except OSError:
                    pass
                break
    return loaded


def check_load_plugin(args):
    def run():
        loaded = [] if args.no_preload else preload_cuda13()
        S.plugin = S.pj.load_plugin(S.plugin_path)
        major, minor = S.plugin.abi_version
        return f"PJRT ABI {major}.{minor}; preloaded {', '.join(loaded) or 'nothing'}"

    return run


def check_client():
    try:
        S.client = S.plugin.client(**CLIENT_OPTIONS)
        how = ", ".join(f"{k}={v}" for k, v in CLIENT_OPTIONS.items())
    except S.pj.Error as e:
        # A plugin that knows no such option: without options then.
        S.client = S.plugin.client()
        how = f"no options ({CLIENT_OPTIONS} refused: {e})"
    platform = S.client.platform
    expect(platform.lower() == "cuda", f"the client's platform is '{platform}', expected 'cuda'")
    expect(len(S.client.devices) > 0, "the client has no devices")
    S.device = S.client.devices[0]
    return f"{platform} {S.client.platform_version}, {len(S.client.devices)} device(s), options: {how}"


def check_device_mapping():
    dev = S.device
    dl = tuple(dev.__dlpack_device__())
    expect(dl[0] == KDL_CUDA, f"device 0's __dlpack_device__() is {dl}, expected ({KDL_CUDA}, id)")
    S.dl_id = dl[1]
    kinds = {m.kind: tuple(m.dlpack_device) for m in dev.memories}
    expect(dev.default_memory is not None, "device 0 has no default memory")
    default = tuple(dev.default_memory.dlpack_device)
    expect(default[0] == KDL_CUDA, f"the default memory maps to {default}, expected kDLCUDA")
    return f"{dev.kind!r} -> {dl}; memories {kinds}"


# --- export: PJRT buffer -> PyTorch / CuPy ---------------------------------


def torch_device():
    return S.torch.device("cuda", S.dl_id)


def new_host(n=1 << 20, shape=None):
    np = S.np
    a = (np.arange(n, dtype=np.float32) % 1024).astype(np.float32)
    return a.reshape(shape) if shape else a


def check_export_torch():
    np, torch = S.np, S.torch
    S.host = new_host(1 << 20, (1024, 1024))
    buf = S.client.buffer(S.host, device=S.device)
    S.export_buf = buf
    dl = tuple(buf.__dlpack_device__())
    expect(dl == (KDL_CUDA, S.dl_id), f"buffer __dlpack_device__() is {dl}, expected ({KDL_CUDA}, {S.dl_id})")
    t = torch.from_dlpack(buf)
    expect(t.device.type == "cuda", f"the tensor is on {t.device}, expected cuda")
    ptr = buf.unsafe_buffer_pointer()
    expect(t.data_ptr() == ptr, f"not zero-copy: tensor at {t.data_ptr():#x}, buffer at {ptr:#x}")
    expect(tuple(t.shape) == S.host.shape, f"shape {tuple(t.shape)}, expected {S.host.shape}")
    expect(np.array_equal(t.cpu().numpy(), S.host), "the tensor's data differ from what was uploaded")
    return f"zero-copy at {ptr:#x}, {S.host.nbytes >> 20} MiB, data equal"


def check_export_shared_write():
    np, torch = S.np, S.torch
    buf = S.client.buffer(S.host, device=S.device)
    t = torch.from_dlpack(buf)
    t.add_(1)
    torch.cuda.synchronize()
    back = np.frombuffer(buf.to_bytes(), dtype=np.float32).reshape(S.host.shape)
    expect(np.array_equal(back, S.host + 1), "a write through PyTorch is not seen in the PJRT buffer")
    return "a PyTorch write is read back through the PJRT buffer"


def check_export_cupy():
    np, cupy = S.np, S.cupy
    buf = S.export_buf
    with cupy.cuda.Device(S.dl_id):
        a = cupy.from_dlpack(buf)
        ptr = buf.unsafe_buffer_pointer()
        expect(a.data.ptr == ptr, f"not zero-copy: CuPy array at {a.data.ptr:#x}, buffer at {ptr:#x}")
        expect(np.array_equal(cupy.asnumpy(a), S.host), "CuPy's data differ from what was uploaded")
    return f"zero-copy at {ptr:#x}, data equal"


def check_export_stream_torch():
    np, torch = S.np, S.torch
    host = new_host(1 << 24)  # 64 MiB: the upload is still running when the export asks
    expected = host * 2 + 1
    s = torch.cuda.Stream(device=torch_device())
    # Explicitly: the consumer's stream given to __dlpack__.
    buf = S.client.buffer(host, device=S.device)
    capsule = buf.__dlpack__(stream=s.cuda_stream)
    with torch.cuda.stream(s):
        t = torch.utils.dlpack.from_dlpack(capsule)
        y = t * 2 + 1
        got = y.cpu().numpy()
    expect(np.array_equal(got, expected), "wrong data after a kernel on the consumer stream (explicit stream)")
    # Implicitly: torch.from_dlpack passes its current stream itself.
    buf2 = S.client.buffer(host, device=S.device)
    with torch.cuda.stream(s):
        t2 = torch.from_dlpack(buf2)
        y2 = t2 * 2 + 1
        got2 = y2.cpu().numpy()
    expect(np.array_equal(got2, expected), "wrong data after a kernel on the consumer stream (torch's stream)")
    ptr = buf2.unsafe_buffer_pointer()
    expect(t2.data_ptr() == ptr, "not zero-copy on a side stream")
    return f"stream {s.cuda_stream:#x}: explicit and torch-passed stream, data correct"


def check_export_stream_cupy():
    np, cupy = S.np, S.cupy
    host = new_host(1 << 24)
    expected = host * 2 + 1
    buf = S.client.buffer(host, device=S.device)
    with cupy.cuda.Device(S.dl_id):
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            a = cupy.from_dlpack(buf)  # CuPy passes its current stream
            y = a * 2 + 1
            got = cupy.asnumpy(y, stream=stream)
        stream.synchronize()
    expect(np.array_equal(got, expected), "wrong data after a kernel on CuPy's stream")
    return f"stream {stream.ptr:#x}, data correct"


def check_export_transfer():
    np, torch = S.np, S.torch
    buf = S.client.buffer(S.host, device=S.device)
    ptr = buf.unsafe_buffer_pointer()
    capsule = buf.release_to_dlpack(stream=torch.cuda.current_stream(torch_device()).cuda_stream or 1)
    expect(buf.is_deleted, "the buffer is not marked deleted after release_to_dlpack")
    t = torch.utils.dlpack.from_dlpack(capsule)
    expect(t.data_ptr() == ptr, "release_to_dlpack moved the data")
    expect(np.array_equal(t.cpu().numpy(), S.host), "wrong data after release_to_dlpack")
    del t
    torch.cuda.synchronize()
    return "ownership moved to PyTorch, same memory"


def check_pinned_host():
    np = S.np
    mems = [m for m in S.device.memories if m.kind == "pinned_host"]
    expect(mems, f"device 0 has no pinned_host memory (memories: {[m.kind for m in S.device.memories]})")
    mem = mems[0]
    dl = tuple(mem.dlpack_device)
    expect(dl[0] == KDL_CUDA_HOST, f"memory pinned_host maps to {dl}, expected ({KDL_CUDA_HOST}, id)")
    buf = S.client.buffer(S.host, device=mem)
    expect(buf.memory.kind == "pinned_host", f"the buffer landed in memory '{buf.memory.kind}'")
    bdl = tuple(buf.__dlpack_device__())
    expect(bdl[0] == KDL_CUDA_HOST, f"the buffer's __dlpack_device__() is {bdl}, expected kDLCUDAHost")
    arr = np.from_dlpack(buf)  # NumPy reads kDLCUDAHost memory directly
    ptr = buf.unsafe_buffer_pointer()
    expect(arr.ctypes.data == ptr, f"not zero-copy: NumPy at {arr.ctypes.data:#x}, buffer at {ptr:#x}")
    expect(np.array_equal(arr, S.host), "NumPy reads different data from pinned_host")
    return f"pinned_host -> {bdl}, NumPy shares {ptr:#x}"


# --- import: PyTorch / CuPy -> PJRT buffer ---------------------------------


def check_import_torch():
    np, torch = S.np, S.torch
    n = 1 << 24
    # A fresh kernel's output, maybe still being written: the import must
    # order itself after PyTorch's stream.
    t = torch.arange(n, dtype=torch.float32, device=torch_device()).remainder_(1024).mul_(3)
    buf = S.client.from_dlpack(t)
    ptr = buf.unsafe_buffer_pointer()
    expect(ptr == t.data_ptr(), f"not a view: buffer at {ptr:#x}, tensor at {t.data_ptr():#x}")
    dl = tuple(buf.__dlpack_device__())
    expect(dl == (KDL_CUDA, S.dl_id), f"imported buffer's __dlpack_device__() is {dl}")
    expect(buf.shape == (n,) and buf.dtype == "float32", f"shape {buf.shape} dtype {buf.dtype}")
    expected = (np.arange(n, dtype=np.float32) % 1024) * 3
    got = np.frombuffer(buf.to_bytes(), dtype=np.float32)
    expect(np.array_equal(got, expected), "the imported buffer reads different data")
    # A view: PyTorch's later write shows through the buffer.
    t.fill_(7)
    torch.cuda.synchronize()
    got = np.frombuffer(buf.to_bytes(), dtype=np.float32)
    expect(bool((got == 7).all()), "a PyTorch write after the import is not seen: not a view")
    return f"view at {ptr:#x}, data correct, later writes seen"


def check_import_torch_side_stream():
    np, torch = S.np, S.torch
    n = 1 << 24
    s = torch.cuda.Stream(device=torch_device())
    with torch.cuda.stream(s):
        t = torch.full((n,), 5.0, dtype=torch.float32, device=torch_device()).mul_(2)
        buf = S.client.from_dlpack(t)
    got = np.frombuffer(buf.to_bytes(), dtype=np.float32)
    expect(bool((got == 10).all()), "an import of a tensor made on a side stream reads wrong data")
    expect(buf.unsafe_buffer_pointer() == t.data_ptr(), "not a view")
    return "producer on a side stream, data correct"


def check_import_torch_copy():
    np, torch = S.np, S.torch
    t = torch.arange(4096, dtype=torch.float32, device=torch_device())
    # CUDA memory the library cannot copy: copy=True is PyTorch's copy.
    buf = S.client.from_dlpack(t, copy=True)
    expect(buf.unsafe_buffer_pointer() != t.data_ptr(), "copy=True gave a view")
    t.fill_(-1)
    torch.cuda.synchronize()
    got = np.frombuffer(buf.to_bytes(), dtype=np.float32)
    expect(np.array_equal(got, np.arange(4096, dtype=np.float32)),
           "the copy reads different data (or sees PyTorch's later write)")
    own = S.client.from_dlpack(buf, copy=True)
    expect(own.unsafe_buffer_pointer() != buf.unsafe_buffer_pointer(), "copy=True of a buffer gave a view")
    expect(own.to_bytes() == buf.to_bytes(), "the copy of a buffer reads different data")
    return "copy=True of a PyTorch tensor and of a CUDA buffer: new memory, right data"


def check_import_torch_2d():
    np, torch = S.np, S.torch
    t = torch.arange(12, dtype=torch.int32, device=torch_device()).reshape(3, 4)
    buf = S.client.from_dlpack(t)
    expect(buf.shape == (3, 4) and buf.dtype == "int32", f"shape {buf.shape} dtype {buf.dtype}")
    expect(buf.unsafe_buffer_pointer() == t.data_ptr(), "not a view")
    got = np.frombuffer(buf.to_bytes(), dtype=np.int32).reshape(3, 4)
    expect(np.array_equal(got, np.arange(12, dtype=np.int32).reshape(3, 4)), "wrong data")
    tt = t.T  # a compact permutation: viewed in place where the plugin takes the layout, else copied
    bt = S.client.from_dlpack(tt)
    got = np.frombuffer(bt.to_bytes(), dtype=np.int32).reshape(4, 3)
    expect(np.array_equal(got, np.arange(12, dtype=np.int32).reshape(3, 4).T), "wrong data for t.T")
    how = "a view" if bt.unsafe_buffer_pointer() == t.data_ptr() else "a copy"
    return f"2-D int32 viewed; its transpose imported as {how}, data correct"


def check_import_cupy():
    np, cupy = S.np, S.cupy
    with cupy.cuda.Device(S.dl_id):
        a = cupy.arange(1 << 20, dtype=cupy.float32) * 2
        buf = S.client.from_dlpack(a)
        expect(buf.unsafe_buffer_pointer() == a.data.ptr, "not a view of CuPy's memory")
        got = np.frombuffer(buf.to_bytes(), dtype=np.float32)
        expect(np.array_equal(got, np.arange(1 << 20, dtype=np.float32) * 2), "wrong data")
    return "view of a CuPy array, data correct"


# --- timing ----------------------------------------------------------------


def median_us(fn, n):
    for _ in range(min(50, n)):
        fn()
    samples = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        fn()
        samples.append(time.perf_counter_ns() - t0)
    return statistics.median(samples) / 1000.0


def check_timing(n):
    def run():
        torch, cupy = S.torch, S.cupy
        buf = S.client.buffer(S.host, device=S.device)
        t = torch.zeros(1 << 20, dtype=torch.float32, device=torch_device())
        with cupy.cuda.Device(S.dl_id):
            c = cupy.arange(1 << 20, dtype=cupy.float32)
        torch.cuda.synchronize()
        side = torch.cuda.Stream(device=torch_device())

        def torch_import_across_streams():
            # PyTorch as the consumer of another stream's data: CuPy's
            # __dlpack__(stream=) orders it, as PyTorch's orders ours.
            with torch.cuda.stream(side):
                return torch.from_dlpack(c)

        export = median_us(lambda: torch.from_dlpack(buf), n)
        imp = median_us(lambda: S.client.from_dlpack(t), n)
        base = median_us(lambda: torch.from_dlpack(c), n)
        base_sync = median_us(torch_import_across_streams, n)
        S.timings = (export, imp, base, base_sync)
        for label, v in (("export", export), ("import", imp), ("baseline", base),
                         ("baseline across streams", base_sync)):
            expect(v == v and v > 0, f"{label} time is {v}")
        return (
            f"median of {n}: export torch.from_dlpack(buf) {export:.1f} us, import "
            f"client.from_dlpack(tensor) {imp:.1f} us; torch.from_dlpack(cupy_array) {base:.1f} us, "
            f"on a side stream {base_sync:.1f} us (export x{export / base:.1f}, "
            f"import x{imp / base_sync:.1f} the latter: both order across streams)"
        )

    return run


# --- pjrt_dlpack.jax on JAX's own CUDA backend ------------------------------


def check_import_jax():
    # JAX's CUDA client, made at its first use, takes most of the GPU's
    # memory unless told not to; PyTorch and CuPy need some.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    check_import("jax", "jax")()
    check_import("pjrt_dlpack.jax", "pjax")()
    jax = S.jax
    devices = jax.devices()
    expect(devices and devices[0].platform == "gpu", f"JAX's default devices are {devices}, not CUDA")
    S.jax_array = jax.numpy.arange(1 << 20, dtype=jax.numpy.float32) * 3
    S.jax_array.block_until_ready()
    return f"jax {jax.__version__} on {devices[0]}"


def check_jax_export_torch():
    np, torch, x = S.np, S.torch, S.jax_array
    dl = tuple(S.pjax.dlpack_device(x))
    expect(dl == (KDL_CUDA, S.dl_id), f"pjrt_dlpack.jax.dlpack_device(x) is {dl}")
    t = torch.from_dlpack(S.pjax.export(x))
    ptr = x.unsafe_buffer_pointer()
    expect(t.device.type == "cuda", f"PyTorch got a tensor on {t.device}")
    expect(t.data_ptr() == ptr, f"not zero-copy: tensor at {t.data_ptr():#x}, array at {ptr:#x}")
    expect(np.array_equal(t.cpu().numpy(), np.arange(1 << 20, dtype=np.float32) * 3),
           "PyTorch reads different data")
    return f"torch.from_dlpack(pjrt_dlpack.jax.export(x)): zero-copy at {ptr:#x}"


def check_jax_client_view():
    np, torch = S.np, S.torch
    c = S.pjax.client(S.jax_array)
    t = torch.full((1000,), 2.0, device=torch_device()).mul_(3)
    buf = c.from_dlpack(t)
    expect(buf.unsafe_buffer_pointer() == t.data_ptr(), "not a view")
    expect(bool((np.frombuffer(buf.to_bytes(), dtype=np.float32) == 6).all()), "wrong data")
    return f"pjrt_dlpack.jax.client(x): JAX's own {c.platform} client; a PyTorch tensor viewed in it"


def check_jax_from_dlpack():
    np, torch, jax = S.np, S.torch, S.jax
    t = torch.arange(12, dtype=torch.float32, device=torch_device())
    y = S.pjax.from_dlpack(t)
    expect(isinstance(y, jax.Array), f"pjrt_dlpack.jax.from_dlpack returned {type(y).__name__}")
    expect(y.unsafe_buffer_pointer() == t.data_ptr(), "not zero-copy")
    expect(np.array_equal(np.asarray(y), np.arange(12, dtype=np.float32)), "wrong data")
    return f"pjrt_dlpack.jax.from_dlpack(tensor): a jax.Array on {list(y.devices())[0]}, zero-copy"


def check_teardown():
    S.export_buf = None
    S.cupy_array = None
    S.jax_array = None
    gc.collect()
    if S.torch is not None:
        S.torch.cuda.synchronize()
    S.client = None
    S.device = None
    gc.collect()
    S.plugin = None
    gc.collect()
    return "buffers, client and plugin released"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True, help="the built pjrt-dlpack command")
    ap.add_argument("--plugin", default=os.environ.get("PJDL_CUDA_PLUGIN") or None,
                    help="XLA's CUDA plugin (default: from jax_plugins.xla_cuda13)")
    ap.add_argument("--repeat", type=int, default=2000, help="timing samples (default 2000)")
    ap.add_argument("--no-preload", action="store_true",
                    help="do not preload the CUDA 13 libraries of the NVIDIA wheels")
    ap.add_argument("--verbose", action="store_true", help="tracebacks of failing checks")
    args = ap.parse_args()
    S.cli = os.path.abspath(args.cli)

    r = Runner(args.verbose)
    r.run("find-plugin", check_find_plugin(args))
    r.run("cli-info", check_cli_info, needs=["find-plugin"])
    r.run("cli-check", check_cli_check, needs=["find-plugin"])
    r.run("import-numpy", check_import("numpy", "np"))
    # PyTorch and CuPy load their CUDA libraries before the plugin loads its own.
    r.run("import-torch", check_import("torch", "torch"))
    r.run("torch-cuda", check_torch_cuda, needs=["import-torch"])
    r.run("import-cupy", check_import("cupy", "cupy"))
    r.run("cupy-cuda", check_cupy_cuda, needs=["import-cupy"])
    r.run("import-pjrt_dlpack", check_import("pjrt_dlpack", "pj"))
    r.run("load-plugin", check_load_plugin(args), needs=["find-plugin", "import-pjrt_dlpack"])
    r.run("client", check_client, needs=["load-plugin"])
    r.run("device-mapping", check_device_mapping, needs=["client"])
    gpu = ["device-mapping", "import-numpy", "torch-cuda"]
    r.run("export-torch", check_export_torch, needs=gpu)
    r.run("export-shared-write", check_export_shared_write, needs=["export-torch"])
    r.run("export-cupy", check_export_cupy, needs=["export-torch", "cupy-cuda"])
    r.run("export-stream-torch", check_export_stream_torch, needs=gpu)
    r.run("export-stream-cupy", check_export_stream_cupy, needs=["device-mapping", "import-numpy", "cupy-cuda"])
    r.run("export-transfer", check_export_transfer, needs=["export-torch"])
    r.run("pinned-host", check_pinned_host, needs=["export-torch"])
    r.run("import-torch-view", check_import_torch, needs=gpu)
    r.run("import-torch-side-stream", check_import_torch_side_stream, needs=gpu)
    r.run("import-torch-copy", check_import_torch_copy, needs=gpu)
    r.run("import-torch-2d", check_import_torch_2d, needs=gpu)
    r.run("import-cupy-view", check_import_cupy, needs=["device-mapping", "import-numpy", "cupy-cuda"])
    r.run("timing", check_timing(args.repeat), needs=["export-torch", "import-torch-view", "cupy-cuda"])
    r.run("import-jax", check_import_jax, needs=["torch-cuda", "import-pjrt_dlpack"])
    r.run("jax-export-torch", check_jax_export_torch, needs=["import-jax", "device-mapping"])
    r.run("jax-client-view", check_jax_client_view, needs=["import-jax", "device-mapping"])
    r.run("jax-from-dlpack", check_jax_from_dlpack, needs=["import-jax", "device-mapping"])
    r.run("teardown", check_teardown, needs=["client"])

    total = r.passed + r.failed
    print(f"gpu-check: {r.passed} passed, {r.failed} failed", flush=True)
    return 1 if r.failed or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
