#!/usr/bin/env bash
# The pinned Python environments: virtual environments of one of the
# interpreters the module is built for (scripts/debian_python.py: Debian
# 12's /usr/bin/python3, 3.11, by default) with the pinned packages of
# scripts/<NAME>.txt, in the cache outside the clone so that CI on the same
# machine reuses them. A changed pin file makes a new environment (its
# folder, <NAME>-<hash> on 3.11, <NAME>-py<X.Y>-<hash> on another
# interpreter, is named by the file's hash).
#   python-env       the modern environment for the tests on 3.11 (NumPy 2,
#                    PyTorch 2, JAX; about 3 GB)
#   python-env-next  the same on 3.13 and 3.14 (NumPy 2.5, JAX 0.12)
#   fuzz-env         the Python fuzzer's (atheris; fuzz/python/, about 35 MB)
#   dpnp-env         Intel's dpctl and dpnp with their 2026 SYCL runtime, and
#                    JAX (tests/oneapi/dpnp: the exchange with Intel's oneAPI
#                    plugin)
#
#   python-env.sh install [NAME [X.Y]]   create it unless present (quiet when present)
#   python-env.sh python [NAME [X.Y]]    print its interpreter's path (installed or not)
#   python-env.sh freeze [NAME [X.Y]]    print the pins of the installed environment
# NAME defaults to python-env, X.Y to Debian 12's 3.11.
#
# The cache is $PJDL_CACHE_DIR, default ${XDG_CACHE_HOME:-$HOME/.cache}/pjrt-dlpack.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${PJDL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pjrt-dlpack}
name=${2:-python-env}
version=${3:-}
pins="$here/$name.txt"
interpreters() { /usr/bin/python3 "$here/debian_python.py" "$@"; }

die() {
    echo "python-env.sh: $*" >&2
    exit 2
}
[[ -f "$pins" ]] || die "no pin file $pins (NAME is python-env, python-env-next, fuzz-env or dpnp-env)"
[[ -x /usr/bin/python3 ]] || die "no /usr/bin/python3 (Debian: apt-get install python3)"
host=$(interpreters host)
[[ -n "$version" ]] || version=$host
[[ "$version" == "$host" ]] || interpreters python "$version" >/dev/null || exit 2

env_dir() {
    local hash tag=""
    hash=$(sha256sum "$pins" | cut -c1-12)
    [[ "$version" == "$host" ]] || tag="-py$version"
    echo "$cache/$name$tag-$hash"
}

install() {
    local dir
    dir=$(env_dir)
    [[ -f "$dir/.complete" ]] && return 0
    local what="the pins of scripts/$name.txt"
    [[ "$name" == python-env* ]] && what="NumPy 2, PyTorch 2, JAX; about 3 GB to download"
    [[ "$name" == dpnp-env ]] && what="dpctl, dpnp, Intel's 2026 runtime, JAX; about 960 MB to download"
    echo "$name: creating $dir (Python $version: $what)"
    local start
    start=$(date +%s)
    rm -rf "$dir"
    mkdir -p "$cache"
    interpreters install "$version"
    interpreters venv "$version" "$dir" || die "cannot create a virtual environment of Python $version"
    local pip=("$dir/bin/python" -m pip --quiet --disable-pip-version-check --no-input)
    # What the complete modern environments already hold and is the same on
    # every interpreter (PyTorch's CUDA libraries): hard links, not written
    # again (scripts/seed_env.py); pip installs the rest.
    local sources=() other
    for other in "$cache"/python-env*/; do
        [[ -f "$other/.complete" && "${other%/}" != "$dir" ]] && sources+=("$other"lib/python3*/site-packages)
    done
    /usr/bin/python3 "$here/seed_env.py" "$pins" \
        "$("$dir/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" "${sources[@]}"
    # Wheels from PJDL_WHEEL_POOL when it is set: scripts/setup.sh shares one
    # folder among the environments it makes, so that a wheel several of them
    # pin (PyTorch's CUDA libraries, ~2.5 GB) is downloaded once.
    if [[ -n "${PJDL_WHEEL_POOL:-}" ]]; then
        "${pip[@]}" download -d "$PJDL_WHEEL_POOL" -r "$pins" || die "downloading $pins failed"
        "${pip[@]}" install --no-index --find-links "$PJDL_WHEEL_POOL" -r "$pins" ||
            die "installing $pins failed"
    else
        "${pip[@]}" install -r "$pins" || die "installing $pins failed"
    fi
    touch "$dir/.complete"
    echo "$name: Python $version ready: $(du -sm "$dir" | cut -f1) MB, $(($(date +%s) - start)) s"
}

case "${1:-}" in
install) install ;;
python) echo "$(env_dir)/bin/python" ;;
freeze)
    dir=$(env_dir)
    [[ -f "$dir/.complete" ]] || die "not installed: run python-env.sh install"
    "$dir/bin/python" -m pip freeze --disable-pip-version-check
    ;;
*) die "usage: python-env.sh install|python|freeze [NAME [X.Y]]" ;;
esac
