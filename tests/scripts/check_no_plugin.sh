#!/usr/bin/env bash
# Without a CUDA plugin, scripts/gpu-check.sh must fail cleanly: exit 1, a
# "no CUDA plugin found" message, the summary line last, no traceback.
#   check_no_plugin.sh BUILD_DIR PYTHON   (BUILD_DIR: a gpu-check.sh --build-only tree)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$1
python=$2

rc=0
out=$(env -u PJDL_CUDA_PLUGIN bash "$root/scripts/gpu-check.sh" --no-build --build-dir "$build" \
    --python "$python" --plugin "$build/no-such-dir/xla_cuda_plugin.so" 2>&1) || rc=$?
printf '%s\n' "$out"

problems=()
[[ $rc -eq 1 ]] || problems+=("exit status $rc, expected 1")
grep -q "^FAIL find-plugin: no CUDA plugin found" <<<"$out" || problems+=("no 'no CUDA plugin found' failure")
tail -n 1 <<<"$out" | grep -Eq '^gpu-check: [0-9]+ passed, [1-9][0-9]* failed$' ||
    problems+=("the last line is not the summary")
if grep -q "Traceback" <<<"$out"; then problems+=("a Python traceback"); fi
if [[ ${#problems[@]} -gt 0 ]]; then
    printf 'check_no_plugin: %s\n' "${problems[@]}" >&2
    exit 1
fi
echo "check_no_plugin: OK"
