#!/usr/bin/env bash
# ze_sim exports what Intel's runtimes take from libze_loader.so.1:
#   imports.sh imports ZE_LOADER PLUGIN ADAPTER
#       every Level Zero function (ze*, zes*, zel*) that Intel's oneAPI
#       plugin and its 2025.1 Unified Runtime adapter import;
#   imports.sh lookups ZE_LOADER ADAPTER...
#       what the Level Zero loader's static front-end, embedded in the 2026
#       adapters (dpctl's and dpnp's runtime), looks up by name at run time,
#       which no import shows: every DDI table getter the adapters name
#       (z*Get*ProcAddrTable) and every entry point the front-end calls
#       without checking the lookup. Its optional lookups
#       (zelLoaderTracingLayerInit, zelLoaderGetContext, ...) are not asked for.
set -euo pipefail
mode=$1 loader=$2
shift 2
for f in "$loader" "$@"; do
    [[ -f "$f" ]] || {
        echo "FAIL: $f is missing (run scripts/setup.sh test)"
        exit 1
    }
done
unchecked='zeLoaderInit|zeLoaderGetTracingHandle|zelLoaderGetVersionsInternal|zelLoaderTranslateHandleInternal|zelLoaderGetVersion|zelEnableTracingLayer|zelDisableTracingLayer|zelGetTracingLayerState'
case $mode in
imports)
    needed=$(for f in "$@"; do nm -D --undefined-only "$f"; done | awk '{print $2}' | sed 's/@.*//' |
        grep -E '^(ze|zes|zel)[A-Z]' | sort -u)
    what="Level Zero functions imported"
    ;;
lookups)
    needed=$(strings -n 8 "$@" | grep -E "^(z(e|et|es|er|el)Get[A-Za-z]*ProcAddrTable|$unchecked)\$" | sort -u)
    getters=$(grep -c 'ProcAddrTable$' <<<"$needed" || true)
    if ((getters < 47)); then
        echo "FAIL: only $getters DDI table getters named in $* (the front-end requires 47)"
        exit 1
    fi
    what="Level Zero entry points looked up at run time ($getters table getters)"
    ;;
*)
    echo "usage: imports.sh imports|lookups ZE_LOADER LIBRARY..." >&2
    exit 2
    ;;
esac
provided=$(nm -D --defined-only "$loader" | awk '{print $3}' | sort -u)
missing=$(comm -23 <(echo "$needed") <(echo "$provided"))
if [[ -n "$missing" ]]; then
    echo "FAIL: ze_sim lacks:" $missing
    exit 1
fi
echo "$(echo "$needed" | wc -l) $what, all provided by ze_sim"
