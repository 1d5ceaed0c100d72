#!/usr/bin/env bash
# Runs every libFuzzer target in DIR for SECONDS each (make fuzz), one after
# the other. Each target starts from its checked-in seed corpus
# fuzz/corpus/<name without fuzz_> plus what earlier runs found, kept in
# DIR/work/<name> (outside the source tree). Prints the executions per
# target; a crash stops the run with the fuzzer's report, and the input is
# left as DIR/crash-<name>-* (turn it into a regression seed in
# fuzz/corpus/<name>/ once fixed).
# Usage: fuzz/run.sh DIR [SECONDS]   (SECONDS default: $PJDL_FUZZ_SECONDS or 300)
set -euo pipefail
dir=${1:?usage: fuzz/run.sh DIR [SECONDS]}
seconds=${2:-${PJDL_FUZZ_SECONDS:-300}}
src=$(cd "$(dirname "$0")" && pwd)
source "$src/report.sh"
shopt -s nullglob
targets=("$dir"/fuzz_*)
if [[ ${#targets[@]} -eq 0 ]]; then
    echo "fuzz/run.sh: no fuzz targets in $dir (configure with clang and -DPJDL_FUZZ=ON)" >&2
    exit 2
fi
for target in "${targets[@]}"; do
    [[ -x "$target" && -f "$target" ]] || continue
    name=$(basename "$target")
    work="$dir/work/${name#fuzz_}"
    mkdir -p "$work"
    cp -r "$src/corpus/${name#fuzz_}/." "$work/"
    log="$dir/$name.log"
    echo "== fuzz: $name for ${seconds}s (corpus $work)"
    status=0
    "$target" -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="$dir/crash-$name-" "$work" >"$log" 2>&1 || status=$?
    fuzz_report "$log" "$status" "$name" || exit 1
done
