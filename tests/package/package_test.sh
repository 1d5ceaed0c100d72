#!/usr/bin/env bash
# The Python package as a user installs it, offline: build the wheel from
# the source tree with the modern environment's pip (scikit-build-core, no
# build isolation, no index), install it into a fresh virtual environment of
# Debian's interpreter, and use it there (check_installed.py).
#
#   wheel_test.sh SOURCE_DIR WORK_DIR BUILD_PYTHON BASE_PYTHON
#
# WORK_DIR/skbuild is scikit-build-core's build folder and is kept, so that
# a rerun rebuilds only what changed; WORK_DIR/dist and WORK_DIR/venv are
# made anew each run.
set -euo pipefail
[[ $# -eq 4 ]] || { echo "usage: wheel_test.sh SOURCE_DIR WORK_DIR BUILD_PYTHON BASE_PYTHON" >&2; exit 2; }
src=$1 work=$2 build_python=$3 base_python=$4
here=$(cd "$(dirname "$0")" && pwd)

[[ -x "$build_python" ]] || { echo "no modern Python environment at $build_python (scripts/python-env.sh install)" >&2; exit 1; }

# Nothing from the caller's environment may pick the plugin, the package or
# the libraries; pip stays offline and quiet.
unset PYTHONPATH PYTHONHOME PJRT_DLPACK_PLUGIN PJRT_NAMES_AND_LIBRARY_PATHS LD_LIBRARY_PATH
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1

mkdir -p "$work"
rm -rf "$work/dist" "$work/venv"

echo "== building the wheel"
"$build_python" -m pip wheel --no-build-isolation --no-deps --no-index -w "$work/dist" \
    --config-settings=build-dir="$work/skbuild" "$src"
wheels=("$work"/dist/pjrt_dlpack-*.whl)
[[ ${#wheels[@]} -eq 1 && -f ${wheels[0]} ]] || { echo "expected one wheel in $work/dist" >&2; exit 1; }
wheel=${wheels[0]}

echo "== installing $(basename "$wheel") into a fresh venv of $base_python"
"$base_python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --no-index --no-deps "$wheel"

echo "== using it"
# Run from the work folder: the source tree's python/ must not be importable.
cd "$work"
"$work/venv/bin/python" "$here/check_installed.py" "$wheel" "$src" "$work/skbuild"
echo "== python -m pjrt_dlpack check"
"$work/venv/bin/python" -m pjrt_dlpack check
echo "wheel test OK"
