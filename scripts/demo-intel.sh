#!/usr/bin/env bash
# The seed's exchange (make demo-intel): Intel's oneAPI PJRT plugin and its
# oneAPI 2025.1 runtime, Intel's dpctl and dpnp on their 2026 runtime, and
# JAX 0.10.2 on the plugin, all on ze_sim, the simulated Level Zero GPU the
# build makes (zesim/). First dpctl lists ze_sim's GPU through its own
# runtime, then examples/jax_dpnp.py hands a JAX array to dpnp and a dpnp
# array to JAX, zero-copy both ways, each computed on the simulated GPU
# before it is handed over. The Python runs in the dpnp environment
# (scripts/python-env.sh install dpnp-env); ze_sim compiles the kernels with
# that environment's OpenCL CPU runtime (the plugin's crashes inside one of
# dpnp's reductions: zesim/README.md).
set -euo pipefail
build=${1:-build}
python=$(bash scripts/python-env.sh python dpnp-env)
eval "$(bash scripts/plugins.sh env oneapi "$build")"
plugin=$(bash scripts/plugins.sh path oneapi)
ZE_SIM_OPENCL=$(cd "$(dirname "$python")/../lib" && pwd)/libintelocl.so
export ZE_SIM_OPENCL

echo "== dpctl (Intel's 2026 SYCL runtime) lists ze_sim's simulated GPU"
"$python" -m dpctl -f
echo
echo "== JAX on Intel's oneAPI plugin -> dpnp -> JAX, computed on the simulated GPU, without a copy"
# TF_CPP_MIN_LOG_LEVEL=2: without it XLA's GPU client logs every stream it
# creates; JAX's warning that the platform is experimental is left out too.
PYTHONPATH="$build/python" TF_CPP_MIN_LOG_LEVEL=2 "$python" examples/jax_dpnp.py "$plugin" 2>&1 |
    grep -v "^Platform 'oneapi' is experimental"
