"""Turns benchmark result lines into bench/results/results.md and the plot.

Usage: report.py OUTDIR RESULTS.tsv... (lines "key<TAB>value<TAB>unit", as
printed by pjdl_bench, pjdl_bench_torch and bench_python.py). Writes
OUTDIR/results.md, OUTDIR/latency.dat, OUTDIR/latency.gp and, when gnuplot
is installed, OUTDIR/latency.png. Missing results become "n/a" rows; the
exit status is 0 either way (benchmarks are not tests).
"""
import os
import shutil
import subprocess
import sys


VERSIONS = []  # (name, version) from "version<TAB>name<TAB>version" lines


def load(paths):
    r = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 3 and parts[0] == "version":
                    VERSIONS.append((parts[1], parts[2]))
                elif len(parts) >= 2:
                    try:
                        r[parts[0]] = float(parts[1])
                    except ValueError:
                        pass
    return r


def fmt(v, unit):
    if v is None:
        return "n/a"
    if unit == "ns":
        return f"{v:.0f} ns" if v >= 100 else f"{v:.1f} ns"
    if unit == "GB/s":
        return f"{v:.2f} GB/s"
    if unit == "ops/s":
        return f"{v / 1e6:.2f} M/s"
    return f"{v:.3g}"


# (what, value key, baseline key, baseline label, unit, kind, target)
#   kind "le": ratio value/baseline <= target; "ge": ratio >= target;
#   "within": |value/baseline - 1| <= target
ROWS = [
    ("C export + delete (share, ready), 16x16 f32", "lib.export.1k", "torch.to.1k",
     "`at::toDLPack` + deleter", "ns", "le", 0.5),
    ("C export + delete (share, ready), 16x16 f32", "export.1k", "malloc",
     "`malloc`+`free` pair", "ns", "le", 15.0),
    ("C import (view) + release, 16x16 f32", "lib.import.1k", "torch.from.1k",
     "`at::fromDLPack` + destruction", "ns", "le", 1.0),
    ("C export + delete, 16384x16384 f32 (1 GiB) vs 16x16 (1 KiB)", "export.1g", "export.1k",
     "same at 1 KiB", "ns", "within", 0.10),
    ("C import (view) + release, 1 GiB vs 1 KiB", "import.1g", "import.1k",
     "same at 1 KiB", "ns", "within", 0.10),
    ("`numpy.from_dlpack(buf)`, (1024, 1024) f32", "py.np_from_buf", "py.np_from_torch",
     "`numpy.from_dlpack(torch_tensor)`", "ns", "le", 0.5),
    ("`numpy.from_dlpack(buf)`, (1024, 1024) f32", "py.np_from_buf", "py.np_from_np",
     "`numpy.from_dlpack(numpy_array)`", "ns", "le", 2.0),
    ("`torch.from_dlpack(buf)`, (1024, 1024) f32", "py.torch_from_buf", "py.torch_from_np",
     "`torch.from_dlpack(numpy_array)`", "ns", "le", 1.0),
    ("copy fallback (import copy), contiguous 256 MiB", "copy.contig.lib", "copy.contig.memcpy",
     "`memcpy` bandwidth", "GB/s", "ge", 0.8),
    ("copy fallback (import copy), 4096x4096 f32 transposed", "copy.transposed.lib",
     "copy.transposed.memcpy", "`memcpy` bandwidth", "GB/s", "ge", 0.4),
    ("reference plugin host -> device (xpu), 256 MiB", "xfer.h2d", "xfer.memcpy",
     "`memcpy` bandwidth", "GB/s", "ge", 0.8),
    ("reference plugin device -> host (xpu), 256 MiB", "xfer.d2h", "xfer.memcpy",
     "`memcpy` bandwidth", "GB/s", "ge", 0.8),
    ("two threads, export + delete on distinct buffers", "threads.two", "threads.one",
     "one thread's throughput", "ops/s", "ge", 1.6),
    ("C import (view) + release, 16x16 f32, PyTorch 2's libtorch", "pt2.lib.import.1k",
     "pt2.torch.from.1k", "PyTorch 2's `at::fromDLPack` + destruction", "ns", "le", 1.0),
    ("NumPy 2: `numpy.from_dlpack(buf)`, (1024, 1024) f32", "pym.np_from_buf", "pym.np_from_np",
     "`numpy.from_dlpack(numpy_array)`", "ns", "le", 1.2),
    ("PyTorch 2: `torch.from_dlpack(buf)`", "pym.torch_from_buf", "pym.torch_from_np",
     "`torch.from_dlpack(numpy_array)`", "ns", "le", 1.0),
    ("`client.from_dlpack(numpy_array)` (NumPy 2)", "pym.client_from_np", "pym.torch_from_np",
     "`torch.from_dlpack(numpy_array)`", "ns", "le", 1.0),
    ("`client.from_dlpack(torch_tensor)` (PyTorch 2, exchange API)", "pym.client_from_torch",
     "pym.np_from_torch", "`numpy.from_dlpack(torch_tensor)`", "ns", "le", 1.0),
    ("`client.from_dlpack(numpy_array)` (NumPy 2)", "pym.client_from_np", "pym.jax_from_np",
     "`jax.dlpack.from_dlpack(numpy_array)`", "ns", "le", 0.25),
    ("consumer: exchange API, `client.from_dlpack(torch_tensor)`", "pym.client_from_torch",
     "pym.client_from_torch_capsule",
     "capsule: `client.from_dlpack(torch_tensor.__dlpack__(max_version=(1, 3)))`", "ns", "le",
     1.0),
    ("producer: exchange API, `client.from_dlpack(buf)`", "pym.client_from_buf",
     "pym.client_from_buf_capsule",
     "capsule: `client.from_dlpack(buf.__dlpack__(max_version=(1, 3)))`", "ns", "le", 1.0),
    ("C export + delete on XLA's CPU plugin, 16x16 f32", "xla.export", "xla.pin_pair",
     "the plugin's own Increase + Decrease pair", "ns", "le", 1.5),
    ("C import (view) + release on XLA's CPU plugin, 16x16 f32", "xla.import", "xla.view_pair",
     "the plugin's own CreateViewOfDeviceBuffer + Destroy", "ns", "le", 1.5),
]

# Context rows: measured, no target.
EXTRA = [
    ("C export + delete, 1 GiB, same process as torch", "lib.export.1g", "torch.to.1g",
     "`at::toDLPack` + deleter, 1 GiB", "ns"),
    ("C import (view) + release, 1 GiB, same process as torch", "lib.import.1g",
     "torch.from.1g", "`at::fromDLPack` + destruction, 1 GiB", "ns"),
    ("JAX 0.10: `jax.dlpack.from_dlpack(buf)`", "pym.jax_from_buf", "pym.jax_from_np",
     "`jax.dlpack.from_dlpack(numpy_array)`", "ns"),
    ("C export + delete, 16x16 f32, PyTorch 2's libtorch", "pt2.lib.export.1k", "pt2.torch.to.1k",
     "PyTorch 2's `at::toDLPack` + deleter", "ns"),
    ("C import (view) + release, 1 GiB, PyTorch 2's libtorch", "pt2.lib.import.1g",
     "pt2.torch.from.1g", "PyTorch 2's `at::fromDLPack` + destruction, 1 GiB", "ns"),
    ("library `pjdl_buffer_from_host` (xpu), 256 MiB", "xfer.lib_h2d", "xfer.memcpy",
     "`memcpy` bandwidth", "GB/s"),
    ("two threads, export + delete, from each thread's CPU time (a core per thread)",
     "threads.cpu_two", "threads.cpu_one", "one thread, from its CPU time", "ops/s"),
]


def fmt_ratio(ratio):
    if ratio is None:
        return "n/a"
    # Two decimals, or two significant digits for ratios far below 1 (JAX).
    return f"{ratio:.2f}×" if ratio >= 0.1 else f"{ratio:.2g}×"


def table(r):
    out = ["| what | value | baseline | ratio | target | met |",
           "| --- | --- | --- | --- | --- | --- |"]
    met_count = 0
    for what, vk, bk, blabel, unit, kind, target in ROWS:
        v, b = r.get(vk), r.get(bk)
        ratio = v / b if v is not None and b else None
        if kind == "le":
            tgt, ok = f"≤ {target:g}×", ratio is not None and ratio <= target
        elif kind == "ge":
            tgt, ok = f"≥ {target:g}×", ratio is not None and ratio >= target
        else:
            tgt = f"within {target * 100:.0f}%"
            ok = ratio is not None and abs(ratio - 1) <= target
        met_count += ok
        rs = fmt_ratio(ratio)
        out.append(f"| {what} | {fmt(v, unit)} | {fmt(b, unit)} ({blabel}) | {rs} | {tgt} | "
                   f"{'yes' if ok else 'no'} |")
    out.append("")
    out.append(f"{met_count} of {len(ROWS)} targets met.")
    out.append("")
    out.append("Context (no target):")
    out.append("")
    out.append("| what | value | baseline | ratio |")
    out.append("| --- | --- | --- | --- |")
    for what, vk, bk, blabel, unit in EXTRA:
        v, b = r.get(vk), r.get(bk)
        ratio = v / b if v is not None and b else None
        rs = fmt_ratio(ratio)
        out.append(f"| {what} | {fmt(v, unit)} | {fmt(b, unit)} ({blabel}) | {rs} |")
    if VERSIONS:
        out.append("")
        out.append("Environment: " + ", ".join(f"{n} {v}" for n, v in VERSIONS) + ".")
    if r.get("threads.loadavg") is not None:
        out.append("")
        out.append(f"Load average (1 min) when the thread benchmark ended: "
                   f"{r['threads.loadavg']:.2f} on {os.cpu_count()} CPUs.")
    return "\n".join(out) + "\n"


SERIES = [
    ("view_export", "library export + delete (view)"),
    ("view_import", "library import (view) + release"),
    ("torch_to", "at::toDLPack + deleter"),
    ("torch_from", "at::fromDLPack + destruction"),
    ("copy_import", "library import with copy"),
    ("memcpy", "memcpy (floor of a copy)"),
]


def plot(r, outdir):
    sizes = sorted({int(k.rsplit(".", 1)[1]) for k in r if k.startswith("sweep.")})
    # The 256 MiB copy point comes from the bandwidth benchmark.
    big = 256 << 20
    if r.get("copy.contig.lib") and r.get("copy.contig.memcpy"):
        r[f"sweep.copy_import.{big}"] = big / r["copy.contig.lib"]
        r[f"sweep.memcpy.{big}"] = big / r["copy.contig.memcpy"]
        sizes = sorted(set(sizes) | {big})
    dat = os.path.join(outdir, "latency.dat")
    with open(dat, "w") as f:
        f.write("# bytes " + " ".join(s for s, _ in SERIES) + " (median ns; NaN: not run)\n")
        for size in sizes:
            vals = [r.get(f"sweep.{s}.{size}") for s, _ in SERIES]
            f.write(f"{size} " + " ".join("NaN" if v is None else f"{v:.6g}" for v in vals) + "\n")
    gp = os.path.join(outdir, "latency.gp")
    lines = [
        "set terminal pngcairo size 960,600 font ',10'",
        "set output 'latency.png'",
        "set title 'DLPack exchange latency against tensor size (float32, median)'",
        "set logscale xy",
        "set xrange [700:1.6e9]",
        "set xlabel 'tensor size'",
        "set ylabel 'latency (ns)'",
        "set xtics ('1 KiB' 1024, '16 KiB' 16384, '256 KiB' 262144, '4 MiB' 4194304, "
        "'64 MiB' 67108864, '256 MiB' 268435456, '1 GiB' 1073741824)",
        "set key top left",
        "set grid",
        "set datafile missing 'NaN'",
    ]
    plots = []
    for i, (_, title) in enumerate(SERIES):
        dash = "dt 2 " if i in (2, 3, 5) else ""
        plots.append(f"'latency.dat' using 1:{i + 2} with linespoints {dash}lw 2 title '{title}'")
    lines.append("plot " + ", \\\n     ".join(plots))
    with open(gp, "w") as f:
        f.write("\n".join(lines) + "\n")
    if shutil.which("gnuplot"):
        subprocess.run(["gnuplot", "latency.gp"], cwd=outdir, check=False)
    else:
        print("report: gnuplot not found; latency.png not drawn", file=sys.stderr)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    r = load(sys.argv[2:])
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write("# Benchmark results\n\n")
        f.write("Produced by `make bench` (bench/run.sh): medians of interleaved rounds, "
                "library and baseline in the same run.\n\n")
        f.write(table(r))
        f.write("\n![latency against size](latency.png)\n")
    plot(r, outdir)
    print(open(os.path.join(outdir, "results.md")).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
