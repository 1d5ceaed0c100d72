#!/usr/bin/env bash
# What the Level Zero loader's static front-end, embedded in Intel's 2026
# Unified Runtime adapters (dpctl's and dpnp's runtime), looks up by name in
# libze_loader.so.1 at run time, which imports.sh cannot see: every DDI
# table getter the adapters name (z*Get*ProcAddrTable) and every entry point
# the front-end calls without checking the lookup is exported by ze_sim.
# The optional lookups (zelLoaderTracingLayerInit, zelLoaderGetContext,
# zelRegisterTeardownCallback, ...) are not asked for.
#   lookups.sh ZE_LOADER ADAPTER...
set -euo pipefail
loader=$1
shift
for f in "$loader" "$@"; do
    [[ -f "$f" ]] || {
        echo "FAIL: $f is missing (run scripts/setup.sh test)"
        exit 1
    }
done
unchecked='zeLoaderInit|zeLoaderGetTracingHandle|zelLoaderGetVersionsInternal|zelLoaderTranslateHandleInternal|zelLoaderGetVersion|zelEnableTracingLayer|zelDisableTracingLayer|zelGetTracingLayerState'
needed=$(strings -n 8 "$@" | grep -E "^(z(e|et|es|er|el)Get[A-Za-z]*ProcAddrTable|$unchecked)\$" | sort -u)
getters=$(grep -c 'ProcAddrTable$' <<<"$needed" || true)
if ((getters < 47)); then
    echo "FAIL: only $getters DDI table getters named in $* (expected the front-end's 47 or more)"
    exit 1
fi
provided=$(nm -D --defined-only "$loader" | awk '{print $3}' | sort -u)
missing=$(comm -23 <(echo "$needed") <(echo "$provided"))
if [[ -n "$missing" ]]; then
    echo "FAIL: ze_sim lacks what the 2026 adapters look up:" $missing
    exit 1
fi
echo "$(echo "$needed" | wc -l) Level Zero entry points looked up at run time ($getters table getters), all provided by ze_sim"
