#!/usr/bin/env bash
# The main job: drive the bundled reference plugin and show an exchange.
set -euo pipefail
build=${1:-build}
plugin="$build/plugin/libpjrt_ref.so"
for platform in cpu xpu; do
    echo "== pjrt-demo: the reference plugin, platform $platform, through the raw PJRT C API"
    "$build/examples/pjrt-demo" "$plugin" "$platform"
done
