#!/usr/bin/env bash
# Runs the Python fuzzer (fuzz/python/fuzz_dlpack.py, atheris) for SECONDS
# against the pjrt_dlpack module and reference plugin of BUILD (make fuzz,
# make test). It starts from the checked-in seeds fuzz/python/corpus plus
# what earlier runs found, kept in BUILD/fuzz-python/work; prints the
# executions; a failure (crash, broken oracle, hang over 20 s, over 2 GB)
# stops the run with the report, and the input is left as
# BUILD/fuzz-python/crash-* (turn it into a seed in fuzz/python/corpus once
# fixed). The interpreter is the fuzz-env of scripts/python-env.sh (set up by
# scripts/setup.sh); without it the run fails.
# A BUILD whose module is built with ASan + UBSan (make fuzz's build-pyfuzz,
# make test's build-asan-py) gets atheris's ASan runtime with libFuzzer
# (asan_with_fuzzer.so) preloaded, and the sanitizers check the C code
# (library, module, plugin); where it is also built with
# -fsanitize=fuzzer-no-link (build-pyfuzz), its coverage guides the fuzzer.
# Usage: fuzz/python/run.sh BUILD [SECONDS]   (SECONDS default: $PJDL_FUZZ_SECONDS or 300)
set -euo pipefail
build=${1:?usage: fuzz/python/run.sh BUILD [SECONDS]}
seconds=${2:-${PJDL_FUZZ_SECONDS:-300}}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/../report.sh"
build=$(cd "$build" && pwd)
python=$(bash "$root/scripts/python-env.sh" python fuzz-env)
plugin="$build/lib/libpjrt_ref.so"
if [[ ! -x "$python" ]]; then
    echo "fuzz/python/run.sh: no fuzz environment ($python); run scripts/setup.sh" >&2
    exit 2
fi
if [[ ! -f "$plugin" || ! -d "$build/python/pjrt_dlpack" ]]; then
    echo "fuzz/python/run.sh: $build has no pjrt_dlpack module or reference plugin" \
        "(cmake --build $build --target pjrt_dlpack_py pjrt_ref)" >&2
    exit 2
fi
preload=()
# The module of the fuzz environment's interpreter (a build has one for
# each interpreter it found: python/CMakeLists.txt).
suffix=$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
module="$build/python/pjrt_dlpack/_pjrt_dlpack$suffix"
if [[ ! -f "$module" ]]; then
    echo "fuzz/python/run.sh: $build has no module for the fuzz environment's interpreter" \
        "($module)" >&2
    exit 2
fi
symbols=$(nm -D "$module")
what=""
if [[ $symbols == *" U __sanitizer_cov_"* ]]; then
    what=", C coverage"
fi
if [[ $symbols == *" U __asan_init"* ]]; then
    what+=", ASan + UBSan"
    runtime="$("$python" -c 'import atheris; print(atheris.path())')/asan_with_fuzzer.so"
    preload=(LD_PRELOAD="$runtime" ASAN_OPTIONS=detect_leaks=0:quarantine_size_mb=64
        UBSAN_OPTIONS=print_stacktrace=1)
fi
out="$build/fuzz-python"
mkdir -p "$out/work"
cp -r "$here/corpus/." "$out/work/"
log="$out/fuzz_dlpack.log"
echo "== fuzz: Python (atheris$what) for ${seconds}s (corpus $out/work)"
status=0
env "${preload[@]}" PYTHONPATH="$build/python" PJRT_REF_PLUGIN="$plugin" PYTHONDONTWRITEBYTECODE=1 \
    "$python" "$here/fuzz_dlpack.py" -max_total_time="$seconds" -print_final_stats=1 \
    -timeout=20 -rss_limit_mb=2048 -artifact_prefix="$out/crash-" "$out/work" \
    >"$log" 2>&1 || status=$?
fuzz_report "$log" "$status" "the Python fuzzer" || exit 1
