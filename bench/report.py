"""Turns benchmark result lines into bench/results/results.md and the plot.

Usage: report.py OUTDIR [RESULTS.tsv...] (lines "key<TAB>value<TAB>unit", as
printed by pjdl_bench, pjdl_bench_torch and bench_python.py; without files,
OUTDIR/raw-NAME.tsv for each NAME of RAW, which bench/run.sh writes). Writes
OUTDIR/results.md (its rows and targets: bench/targets.tsv), OUTDIR/latency.dat,
OUTDIR/latency.gp and, when gnuplot is installed, OUTDIR/latency.png. Missing
results become "n/a" rows; the exit status is 0 either way (benchmarks are not
tests).

       report.py --check README.md OUTDIR: whether the README's table of
targets (the first table of its Performance section, and the "N of M
targets met." line after it), OUTDIR/results.md's and the one OUTDIR's raw
files give are the same run's; exit status 1, with the difference, when
not (make bench rewrites the committed bench/results/: its output is
committed together with the README's table, or not at all).
"""
import os
import shutil
import statistics
import subprocess
import sys


VERSIONS = []  # (name, version) from "version<TAB>name<TAB>version" lines
# key -> (group, [per-round values]) from "rounds<TAB>key<TAB>group<TAB>v1 v2 ..."
# lines (bench_util.h's bench_emit_rounds, bench_rounds.py's emit)
ROUNDS = {}
# The raw result files of a run, OUTDIR/raw-NAME.tsv, in the order they are
# read (bench/run.sh writes them).
RAW = ("c", "torch", "torch2", "xla", "python", "python-modern", "jax", "jax-oneapi")
TARGETS_HEADER = "| what | value | baseline | ratio | target | met |"
RATIO_NOTE = ("Value and baseline are medians over the rounds; the ratio is the median over "
              "the rounds of the value over the baseline measured in the same round (a slow "
              "phase of the machine moves both), or, marked †, the ratio of the medians of "
              "two measurements not made in the same rounds.")


def load(paths):
    r = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 3 and parts[0] == "version":
                    if (parts[1], parts[2]) not in VERSIONS:  # one environment, several files
                        VERSIONS.append((parts[1], parts[2]))
                elif len(parts) == 4 and parts[0] == "rounds":
                    ROUNDS[parts[1]] = (parts[2], [float(x) for x in parts[3].split()])
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
    if unit == "x":
        return f"{v:.2f}×"
    return f"{v:.3g}"


def load_rows(path=os.path.join(os.path.dirname(os.path.abspath(__file__)), "targets.tsv")):
    """The table's rows from targets.tsv: (what, value key, baseline key,
    baseline label, unit, target), target None for a context row."""
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            what, vk, bk, blabel, unit, target = line.rstrip("\n").split("\t")
            rows.append((what, vk, bk, blabel, unit, None if target == "-" else target.split()))
    return rows


def fmt_ratio(ratio):
    if ratio is None:
        return "n/a"
    # Two decimals, or two significant digits for ratios far below 1 (JAX).
    return f"{ratio:.2f}×" if ratio >= 0.1 else f"{ratio:.2g}×"


def judge(ratio, target):
    """The target as text, and whether the ratio meets it."""
    kind, x = target[0], float(target[1])
    if kind == "le":
        return f"≤ {x:g}×", ratio is not None and ratio <= x
    if kind == "ge":
        return f"≥ {x:g}×", ratio is not None and ratio >= x
    return f"within {x * 100:.0f}%", ratio is not None and abs(ratio - 1) <= x


def paired_ratio(vk, bk):
    """The median over rounds of value / baseline, when both were measured
    in the same rounds (one group, as many rounds); else None."""
    v, b = ROUNDS.get(vk), ROUNDS.get(bk)
    if v is None or b is None or v[0] != b[0] or len(v[1]) != len(b[1]) or not v[1]:
        return None
    if any(x <= 0 for x in b[1]):
        return None
    return statistics.median(x / y for x, y in zip(v[1], b[1]))


def row_cells(r, row):
    """The cells every row has: what, value, baseline, ratio; and the ratio:
    the median of the per-round ratios where the two were measured in the
    same rounds, else (marked †) the ratio of the medians."""
    what, vk, bk, blabel, unit, _ = row
    v, b = r.get(vk), r.get(bk)
    ratio = paired_ratio(vk, bk) if v is not None and b else None
    mark = ""
    if ratio is None and v is not None and b:
        ratio, mark = v / b, " †"
    return (f"| {what} | {fmt(v, unit)} | {fmt(b, unit)} ({blabel}) | {fmt_ratio(ratio)}{mark} |",
            ratio)


def machine_scaling(r):
    """A sentence on the two-thread row: what the machine itself gave."""
    ours, machine = r.get("threads.ratio"), r.get("threads.machine_ratio")
    if ours is None or not machine:
        return []
    attempts = r.get("threads.attempts")
    tries = (f" It took {attempts:.0f} measurements for the machine's own scaling to say "
             f"two cores (≥ 1.9×: not two hardware threads of one core)."
             if attempts and attempts > 1 else "")
    return ["", f"Two threads against one, medians of per-round ratios: export + delete "
                f"{ours:.2f}×, a loop that shares nothing but keeps a core's multiplier busy "
                f"{machine:.2f}× (the machine's own "
                f"scaling in the same rounds), so ours is {ours / machine:.2f}× the machine's "
                f"(per round, median: {r.get('threads.relative', ours / machine):.2f}×); by "
                f"the threads' CPU time {r.get('threads.cpu_ratio', 0):.2f}× and "
                f"{r.get('threads.machine_cpu_ratio', 0):.2f}×.{tries}"] + pinned_cpus(r)


def pinned_cpus(r):
    """A sentence on where the threads ran: pinned, one to each of two CPUs."""
    a, b = r.get("threads.one_a"), r.get("threads.one_b")
    if a is None or b is None:
        return []
    if not r.get("threads.pinned"):
        return ["Not pinned (the process may run on fewer than two CPUs)."]
    return [f"Each thread pinned to a CPU of its own; one thread alone exported "
            f"{a / 1e6:.1f} M/s on the first and {b / 1e6:.1f} M/s on the second "
            f"(medians), and \"one thread's throughput\" is the mean of the two, per round."]


def table(r, rows):
    targets = [row for row in rows if row[5] is not None]
    out = [TARGETS_HEADER, "| --- | --- | --- | --- | --- | --- |"]
    met_count = 0
    for row in targets:
        cells, ratio = row_cells(r, row)
        tgt, ok = judge(ratio, row[5])
        met_count += ok
        out.append(f"{cells} {tgt} | {'yes' if ok else 'no'} |")
    out += ["", f"{met_count} of {len(targets)} targets met.", "", RATIO_NOTE, "",
            "Context (no target):", "",
            "| what | value | baseline | ratio |", "| --- | --- | --- | --- |"]
    out += [row_cells(r, row)[0] for row in rows if row[5] is None]
    if VERSIONS:
        out.append("")
        out.append("Environment: " + ", ".join(f"{n} {v}" for n, v in VERSIONS) + ".")
    if r.get("threads.loadavg") is not None:
        out.append("")
        out.append(f"Load average (1 min) when the thread benchmark ended: "
                   f"{r['threads.loadavg']:.2f} on {os.cpu_count()} CPUs.")
    out += machine_scaling(r)
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


def targets_part(lines):
    """The table of targets in `lines` and the "N of M targets met." line
    after it (None when there is no such table)."""
    try:
        start = lines.index(TARGETS_HEADER)
    except ValueError:
        return None
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    met = next((line for line in lines[end:end + 3] if line.endswith("targets met.")), "")
    return lines[start:end] + [met]


def check(readme, outdir):
    """0 when the three tables agree, else 1 with the first difference."""
    with open(readme) as f:
        text = f.read().split("\n## Performance", 1)
    with open(os.path.join(outdir, "results.md")) as f:
        results = f.read().splitlines()
    regenerated = table(load(raw_paths(outdir)), load_rows()).splitlines()
    tables = [("README.md's Performance section", targets_part(text[1].splitlines())
               if len(text) == 2 else None),
              ("results.md", targets_part(results)),
              ("the raw files (raw-*.tsv)", targets_part(regenerated))]
    for name, lines in tables:
        if lines is None:
            print(f"report.py --check: no table of targets in {name}", file=sys.stderr)
            return 1
    for name, lines in tables[:2]:
        other = tables[2][1]
        for k in range(max(len(lines), len(other))):
            a = lines[k] if k < len(lines) else "(nothing)"
            b = other[k] if k < len(other) else "(nothing)"
            if a != b:
                print(f"report.py --check: {name} is not the run of {outdir}'s raw files:\n"
                      f"  {name}: {a}\n  raw files: {b}\n"
                      f"make bench rewrites {outdir}: commit its output with the README's "
                      f"table, or restore it (git checkout {outdir})", file=sys.stderr)
                return 1
    return 0


def raw_paths(outdir):
    return [os.path.join(outdir, f"raw-{name}.tsv") for name in RAW]


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--check":
        return check(sys.argv[2], sys.argv[3])
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    r = load(sys.argv[2:] or raw_paths(outdir))
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write("# Benchmark results\n\n")
        f.write("Produced by `make bench` (bench/run.sh): medians of interleaved rounds, "
                "library and baseline in the same run.\n\n")
        f.write(table(r, load_rows()))
        f.write("\n![latency against size](latency.png)\n")
    plot(r, outdir)
    print(open(os.path.join(outdir, "results.md")).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
