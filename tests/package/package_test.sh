#!/usr/bin/env bash
# The Python package as a user installs it, offline, in a fresh virtual
# environment of one of the interpreters (scripts/debian_python.py; Debian
# 12's by default) that has no pip, no setuptools and no build backend (pip
# runs from outside it, with --python: the release tools' pip of the same
# interpreter):
#
#   package_test.sh wheel SOURCE_DIR WORK_DIR MODERN_PYTHON [X.Y]
#     make wheel's manylinux wheel for Python X.Y (scripts/release.sh; its
#     scikit-build-core build folder under WORK_DIR/skbuild is kept, so a
#     rerun is incremental),
#     checked (check_dist.py), installed without its extras and used with
#     the standard library alone (check_installed.py, python -m pjrt_dlpack
#     check); then the extras [numpy,jax], which pip must find already
#     satisfied by the modern environment of scripts/python-env.sh of the same
#     interpreter (MODERN_PYTHON) that the venv then sees (a .pth file: nothing is downloaded or copied), and the
#     README's Python example and examples/jax_xpu.py, run there
#   package_test.sh sdist SOURCE_DIR WORK_DIR
#     make sdist's source distribution, checked, installed by pip (it builds
#     in isolation with pyproject.toml's pinned build requirement from the
#     release tools' wheelhouse, no index), and used
#
# The release tools are scripts/release-env.sh's; missing ones fail the test.
set -euo pipefail
[[ $# -ge 3 ]] || { echo "usage: package_test.sh wheel|sdist SOURCE_DIR WORK_DIR [MODERN_PYTHON [X.Y]]" >&2; exit 2; }
kind=$1 src=$2 work=$3 modern_python=${4:-}
version=${5:-$(/usr/bin/python3 "$src/scripts/debian_python.py" host)}
here=$(cd "$(dirname "$0")" && pwd)
tools=$(bash "$src/scripts/release-env.sh" dir)
[[ -f "$tools/.complete" ]] || { echo "no release tools in $tools (scripts/release-env.sh install)" >&2; exit 1; }
base=$(/usr/bin/python3 "$src/scripts/debian_python.py" python "$version")
tools_python=$(bash "$src/scripts/release-env.sh" python "$version")
[[ -x "$base" && -x "$tools_python" ]] || { echo "no Python $version ($base) or its release tools ($tools_python): scripts/setup.sh test" >&2; exit 1; }

# Nothing from the caller's environment may pick the plugin, the package or
# the libraries; pip stays offline and quiet.
unset PYTHONPATH PYTHONHOME PJRT_DLPACK_PLUGIN PJRT_REF_PLUGIN PJRT_NAMES_AND_LIBRARY_PATHS LD_LIBRARY_PATH
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
venv="$work/venv"
python="$venv/bin/python"
pip=("$tools_python" -m pip --python "$python" install --quiet)

mkdir -p "$work"
rm -rf "$work/dist" "$venv"
"$base" -m venv --without-pip "$venv"

if [[ $kind == wheel ]]; then
    [[ -x "$modern_python" ]] || { echo "no modern Python environment at $modern_python (scripts/python-env.sh install)" >&2; exit 1; }
    echo "== make wheel (Python $version)"
    dist=$(bash "$src/scripts/release.sh" wheel "$work/dist" "$work/skbuild" "$version" | tail -n 1)
    "$tools/venv/bin/python" "$here/check_dist.py" wheel "$dist" "$src"
    echo "== installing $(basename "$dist") into a fresh venv"
    "${pip[@]}" --no-deps --only-binary=:all: "$dist"
else
    echo "== make sdist"
    dist=$(bash "$src/scripts/release.sh" sdist "$work/dist" | tail -n 1)
    "$tools/venv/bin/python" "$here/check_dist.py" sdist "$dist" "$src"
    echo "== installing $(basename "$dist") into a fresh venv (built offline in isolation)"
    "${pip[@]}" --find-links "$tools/wheelhouse" "$dist"
fi

echo "== using it, standard library only"
# Run from the work folder: the source tree's python/ must not be importable.
cd "$work"
"$python" "$here/check_installed.py" "$kind" "$dist" "$src" "$work/skbuild"
echo "== python -m pjrt_dlpack check"
"$python" -m pjrt_dlpack check
[[ $kind == wheel ]] || { echo "sdist test OK"; exit 0; }

echo "== the extras [numpy,jax], satisfied by the modern environment"
site=$("$python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
"$modern_python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))' >"$site/modern-env.pth"
"${pip[@]}" --only-binary=:all: "$dist[numpy,jax]"
echo "== the README's Python example (tests/python/example_quick.py), the bundled plugin"
"$python" "$src/tests/python/example_quick.py"
echo "== examples/jax_xpu.py, the bundled plugin"
"$python" "$src/examples/jax_xpu.py" 2>&1 | grep -v -e '^I0000' -e '^W0000' -e 'absl::InitializeLog'
echo "wheel test OK"
