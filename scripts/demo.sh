#!/usr/bin/env bash
# The main job: the pjrt-dlpack checks on the bundled reference plugin, both
# platforms, then the NumPy -> plugin -> PyTorch exchange demo in Python.
set -euo pipefail
build=${1:-build}
plugin="$build/lib/libpjrt_ref.so"
cli="$build/tools/pjrt-dlpack"

for platform in cpu xpu; do
    echo "== pjrt-dlpack info, reference plugin, platform $platform"
    "$cli" info --option platform="$platform" "$plugin"
    echo
    echo "== pjrt-dlpack check, reference plugin, platform $platform"
    "$cli" check --option platform="$platform" "$plugin"
    echo
done

echo "== Python: NumPy -> PJRT buffer -> PyTorch and back, without a copy"
PYTHONPATH="$build/python" /usr/bin/python3 tests/python/example_quick.py "$plugin"
