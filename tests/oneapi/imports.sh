#!/usr/bin/env bash
# Every Level Zero function (ze*, zes*, zel*) that Intel's oneAPI plugin and
# its Unified Runtime adapter import is exported by ze_sim.
#   imports.sh ZE_LOADER PLUGIN ADAPTER
set -euo pipefail
loader=$1
shift
for f in "$loader" "$@"; do
    [[ -f "$f" ]] || {
        echo "FAIL: $f is missing (run scripts/setup.sh)"
        exit 1
    }
done
provided=$(nm -D --defined-only "$loader" | awk '{print $3}' | sort -u)
needed=$(for f in "$@"; do nm -D --undefined-only "$f"; done | awk '{print $2}' | sed 's/@.*//' |
    grep -E '^(ze|zes|zel)[A-Z]' | sort -u)
missing=$(comm -23 <(echo "$needed") <(echo "$provided"))
if [[ -n "$missing" ]]; then
    echo "FAIL: ze_sim lacks:" $missing
    exit 1
fi
echo "$(echo "$needed" | wc -l) Level Zero functions imported, all provided by ze_sim"
