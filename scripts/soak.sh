#!/usr/bin/env bash
# make soak: the library and the Python module under load for SOAK_S seconds
# (default 600), four processes at once, each checking itself
# (tests/soak/soak.c, tests/soak/soak.py; docs/reliability.md, "Soak"):
#   xpu     the reference plugin's simulated accelerator: slow transfers,
#           every 97th failing, and the library's allocation faults
#   xla     XLA's CPU plugin, with the library's allocation faults
#   oneapi  Intel's oneAPI plugin on ze_sim, the same, one worker thread
#           (SOAK_ONEAPI_THREADS, up to 4; see below)
#   python  the module with NumPy and PyTorch (Debian's Python) on the
#           reference plugin's cpu and xpu and on XLA's CPU plugin
# One line of figures per process, then "N passed, N failed"; exits 1 if
# any failed. Each process's own log: BUILD/soak/NAME.log.
#
#   soak.sh [BUILD]      SOAK_S=3600 bash scripts/soak.sh build
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-build}")
seconds=${SOAK_S:-600}
logs=$build/soak
soak=$build/tests/soak/pjdl_soak
[[ -x $soak ]] || { echo "soak.sh: no $soak: build first (make build)" >&2; exit 2; }
mkdir -p "$logs"
ref=$build/lib/libpjrt_ref.so
xla=$(bash "$here/plugins.sh" path xla-cpu)
oneapi=$(bash "$here/plugins.sh" path oneapi)
oneapi_env=$(bash "$here/plugins.sh" env oneapi "$build")

echo "soak: $seconds s each, four processes at once (logs in $logs)"
pids=()
"$soak" xpu "$ref" "$seconds" >"$logs/xpu.out" 2>"$logs/xpu.log" &
pids+=($!)
"$soak" xla "$xla" "$seconds" >"$logs/xla.out" 2>"$logs/xla.log" &
pids+=($!)
# Intel's runtime (Unified Runtime 0.11, its Level Zero adapter v1) aborts
# a process whose threads submit to Intel's plugin at once, every few
# minutes ("urEventWait must not be called for an internal event",
# docs/plugins.md): one worker thread there unless SOAK_ONEAPI_THREADS says.
(eval "$oneapi_env" && SOAK_THREADS=${SOAK_ONEAPI_THREADS:-1} exec "$soak" oneapi "$oneapi" "$seconds") \
    >"$logs/oneapi.out" 2>"$logs/oneapi.log" &
pids+=($!)
PYTHONPATH=$build/python PJRT_REF_PLUGIN=$ref PJRT_XLA_CPU_PLUGIN=$xla PYTHONDONTWRITEBYTECODE=1 \
    /usr/bin/python3 "$here/../tests/soak/soak.py" "$seconds" >"$logs/python.out" 2>"$logs/python.log" &
pids+=($!)
pass=0 fail=0
for i in "${!pids[@]}"; do
    name=$(echo xpu xla oneapi python | cut -d' ' -f$((i + 1)))
    rc=0
    wait "${pids[$i]}" || rc=$?
    cat "$logs/$name.out"
    if ((rc == 0)); then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "soak $name: exit $rc (the end of $logs/$name.log:)"
        tail -n 5 "$logs/$name.log"
    fi
done
echo "$pass passed, $fail failed"
((fail == 0))
