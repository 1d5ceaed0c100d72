#!/usr/bin/env bash
# The main job: the pjrt-dlpack checks on the bundled reference plugin, both
# platforms, then the NumPy -> plugin -> PyTorch exchange demo in Python,
# then the checks on XLA's own CPU plugin and a StableHLO program run on it,
# fed and drained through DLPack, from C and from Python; last, JAX driving
# the reference plugin's xpu, its arrays out through pjrt_dlpack.jax. (XLA's
# plugin logs to stderr; the check's own output is on stdout.) The Python
# parts run in the modern environment of scripts/python-env.sh (NumPy 2,
# PyTorch 2, JAX), which JAX needs anyway: the demo needs no Debian NumPy or
# PyTorch (the tests run Debian's too).
set -euo pipefail
build=${1:-build}
plugin="$build/lib/libpjrt_ref.so"
cli="$build/tools/pjrt-dlpack"
python=$(bash scripts/python-env.sh python)

for platform in cpu xpu; do
    echo "== pjrt-dlpack info, reference plugin, platform $platform"
    "$cli" info --option platform="$platform" "$plugin"
    echo
    echo "== pjrt-dlpack check, reference plugin, platform $platform"
    "$cli" check --option platform="$platform" "$plugin"
    echo
done

echo "== Python: NumPy -> PJRT buffer -> PyTorch and back, without a copy"
PYTHONPATH="$build/python" "$python" tests/python/example_quick.py "$plugin"

# XLA's own CPU plugin (installed by scripts/setup.sh; PJRT_XLA_CPU_PLUGIN
# overrides where it is).
xla_plugin=${PJRT_XLA_CPU_PLUGIN:-$(bash scripts/plugins.sh path xla-cpu)}
echo
echo "== pjrt-dlpack check, XLA's own CPU plugin (every check passes or names what it lacks)"
"$cli" check "$xla_plugin" 2>/dev/null
echo
echo "== C: a StableHLO program on XLA's CPU plugin, DLPack tensors in and out"
"$build/examples/xla-compute" "$xla_plugin"
echo
echo "== Python: the same with NumPy and PyTorch, in and out without a copy"
PYTHONPATH="$build/python" "$python" examples/xla_compute.py "$xla_plugin"

# JAX drives the reference plugin's xpu as a platform of its own; its arrays reach DLPack as kDLOneAPI
# tensors through pjrt_dlpack.jax.
echo
echo "== JAX: a NumPy array on the xpu platform in JAX, out as kDLOneAPI, back as a view"
PYTHONPATH="$build/python" "$python" examples/jax_xpu.py "$plugin" 2>&1 |
    grep -v -e '^I0000' -e '^W0000' -e 'absl::InitializeLog'
