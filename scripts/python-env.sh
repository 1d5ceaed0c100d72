#!/usr/bin/env bash
# The modern Python environment for the tests: a virtual environment of
# Debian's /usr/bin/python3 (the interpreter the module is built for) with
# the pinned packages of scripts/python-env.txt, in the cache outside the
# clone so that CI on the same machine reuses it. A changed pin file makes a
# new environment (its folder is named by the file's hash).
#
#   python-env.sh install   create it unless present (quiet when present)
#   python-env.sh python    print its interpreter's path (installed or not)
#   python-env.sh freeze    print the pins of the installed environment
#
# The cache is $PJDL_CACHE_DIR, default ${XDG_CACHE_HOME:-$HOME/.cache}/pjrt-dlpack.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${PJDL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pjrt-dlpack}
pins="$here/python-env.txt"
base=/usr/bin/python3

die() {
    echo "python-env.sh: $*" >&2
    exit 2
}

env_dir() {
    local hash
    hash=$(sha256sum "$pins" | cut -c1-12)
    echo "$cache/python-env-$hash"
}

install() {
    local dir
    dir=$(env_dir)
    [[ -f "$dir/.complete" ]] && return 0
    [[ -x "$base" ]] || die "no $base (Debian: apt-get install python3)"
    echo "python-env: creating $dir (NumPy 2, PyTorch 2, JAX; about 3 GB to download)"
    rm -rf "$dir"
    mkdir -p "$cache"
    "$base" -m venv "$dir" || die "cannot create a virtual environment (apt-get install python3-venv)"
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        -r "$pins" || die "installing $pins failed"
    touch "$dir/.complete"
}

case "${1:-}" in
install) install ;;
python) echo "$(env_dir)/bin/python" ;;
freeze)
    dir=$(env_dir)
    [[ -f "$dir/.complete" ]] || die "not installed: run python-env.sh install"
    "$dir/bin/python" -m pip freeze --disable-pip-version-check
    ;;
*) die "usage: python-env.sh install|python|freeze" ;;
esac
