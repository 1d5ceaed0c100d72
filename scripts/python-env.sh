#!/usr/bin/env bash
# The pinned Python environments: virtual environments of Debian's
# /usr/bin/python3 (the interpreter the module is built for) with the pinned
# packages of scripts/<NAME>.txt, in the cache outside the clone so that CI
# on the same machine reuses them. A changed pin file makes a new
# environment (its folder, <NAME>-<hash>, is named by the file's hash).
#   python-env  the modern environment for the tests (NumPy 2, PyTorch 2,
#               JAX; about 3 GB)
#   fuzz-env    the Python fuzzer's (atheris; fuzz/python/, about 35 MB)
#   dpnp-env    Intel's dpctl and dpnp with their 2026 SYCL runtime, and JAX
#               (tests/oneapi/dpnp: the exchange with Intel's oneAPI plugin)
#
#   python-env.sh install [NAME]   create it unless present (quiet when present)
#   python-env.sh python [NAME]    print its interpreter's path (installed or not)
#   python-env.sh freeze [NAME]    print the pins of the installed environment
# NAME defaults to python-env.
#
# The cache is $PJDL_CACHE_DIR, default ${XDG_CACHE_HOME:-$HOME/.cache}/pjrt-dlpack.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${PJDL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pjrt-dlpack}
name=${2:-python-env}
pins="$here/$name.txt"
base=/usr/bin/python3

die() {
    echo "python-env.sh: $*" >&2
    exit 2
}
[[ -f "$pins" ]] || die "no pin file $pins (NAME is python-env, fuzz-env or dpnp-env)"

env_dir() {
    local hash
    hash=$(sha256sum "$pins" | cut -c1-12)
    echo "$cache/$name-$hash"
}

install() {
    local dir
    dir=$(env_dir)
    [[ -f "$dir/.complete" ]] && return 0
    [[ -x "$base" ]] || die "no $base (Debian: apt-get install python3)"
    local what="the pins of scripts/$name.txt"
    [[ "$name" == python-env ]] && what="NumPy 2, PyTorch 2, JAX; about 3 GB to download"
    [[ "$name" == dpnp-env ]] && what="dpctl, dpnp, Intel's 2026 runtime, JAX; about 960 MB to download"
    echo "$name: creating $dir ($what)"
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
*) die "usage: python-env.sh install|python|freeze [NAME]" ;;
esac
