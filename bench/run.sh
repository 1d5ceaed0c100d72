#!/usr/bin/env bash
# Runs every benchmark of a Release build and writes bench/results/:
# results.md (the table), latency.png (the plot), latency.dat, latency.gp and
# the raw result lines (raw-*.tsv). Usage: bench/run.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build-bench}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/results
mkdir -p "$out"
plugin=$build/lib/libpjrt_ref.so
[[ -f $plugin ]] || { echo "bench: $plugin not found; build first" >&2; exit 1; }

# run_if_built PROGRAM RAW WHAT WHY_MISSING: runs $build/bench/PROGRAM into
# $out/raw-RAW.tsv, or says why it is not there and leaves that file empty.
run_if_built() {
    local program=$1 raw=$2 what=$3 why=$4
    if [[ -x $build/bench/$program ]]; then
        echo "== bench: $what ($program)"
        "$build/bench/$program" --plugin "$plugin" | tee "$out/raw-$raw.tsv"
    else
        echo "== bench: $program not built ($why); skipped"
        : >"$out/raw-$raw.tsv"
    fi
}
echo "== bench: C (pjdl_bench)"
"$build/bench/pjdl_bench" --plugin "$plugin" | tee "$out/raw-c.tsv"
run_if_built pjdl_bench_torch torch "C++ against libtorch" "libtorch-dev missing"
run_if_built pjdl_bench_torch2 torch2 "C++ against PyTorch 2's libtorch" \
    "no modern Python environment"
echo "== bench: C over XLA's CPU plugin (pjdl_bench_xla)"
xla_plugin=${PJRT_XLA_CPU_PLUGIN:-$(bash "$here/../scripts/plugins.sh" path xla-cpu)}
"$build/bench/pjdl_bench_xla" --plugin "$xla_plugin" 2>/dev/null | tee "$out/raw-xla.tsv"
echo "== bench: Python (bench_python.py)"
PYTHONPATH=$build/python PYTHONDONTWRITEBYTECODE=1 \
    /usr/bin/python3 "$here/bench_python.py" --plugin "$plugin" | tee "$out/raw-python.tsv"
modern_python=$(bash "$here/../scripts/python-env.sh" python)
if [[ -x $modern_python ]]; then
    echo "== bench: Python, modern environment (bench_python_modern.py)"
    PYTHONPATH=$build/python:$build/bench PYTHONDONTWRITEBYTECODE=1 \
        "$modern_python" "$here/bench_python_modern.py" --plugin "$plugin" |
        tee "$out/raw-python-modern.tsv"
    echo "== bench: pjrt_dlpack.jax against JAX's own DLPack (bench_jax.py)"
    PYTHONPATH=$build/python PYTHONDONTWRITEBYTECODE=1 \
        "$modern_python" "$here/bench_jax.py" --plugin "$plugin" 2>/dev/null |
        tee "$out/raw-jax.tsv"
    oneapi_plugin=$(bash "$here/../scripts/plugins.sh" path oneapi)
    if [[ -f $oneapi_plugin ]]; then
        echo "== bench: the same on Intel's plugin on ze_sim (bench_jax.py --oneapi)"
        (eval "$(bash "$here/../scripts/plugins.sh" env oneapi "$build")" &&
            PYTHONPATH=$build/python PYTHONDONTWRITEBYTECODE=1 \
                "$modern_python" "$here/bench_jax.py" --plugin "$plugin" \
                --oneapi "$oneapi_plugin" 2>/dev/null) | tee "$out/raw-jax-oneapi.tsv"
    else
        echo "== bench: Intel's plugin not installed (scripts/setup.sh intel); skipped"
        : >"$out/raw-jax-oneapi.tsv"
    fi
else
    echo "== bench: no modern Python environment (scripts/python-env.sh install); skipped"
    : >"$out/raw-python-modern.tsv"
    : >"$out/raw-jax.tsv"
    : >"$out/raw-jax-oneapi.tsv"
fi
echo "== bench: report"
/usr/bin/python3 "$here/report.py" "$out" # reads $out/raw-*.tsv (report.py's RAW)
