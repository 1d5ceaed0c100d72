#!/usr/bin/env bash
# The JAX matrix: one small virtual environment per entry, each with only
# NumPy, jax, jaxlib, ml_dtypes, what jax itself requires (SciPy,
# opt_einsum) and pytest, every package pinned exactly by one line of
# scripts/jax-matrix.txt. No PyTorch. An entry is a JAX release on Debian
# 12's Python 3.11 ("0.10.2") or on a newer interpreter of
# scripts/debian_python.py ("0.12.1-py3.14"). The environments live in the
# cache outside the clone; a changed line makes a new environment (its
# folder is named by the entry and the line's hash).
#
#   jax-env.sh install [ENTRY...|ci|all]  create them unless present
#                                         (default: ci, the entries that
#                                         `make test` runs)
#   jax-env.sh python ENTRY       print its interpreter's path (installed or not)
#   jax-env.sh releases [ci|all]  print the entries of the matrix
#   jax-env.sh resolve ENTRY      resolve the pins of an entry afresh (from
#                                 PyPI) and print its line for jax-matrix.txt
#
# Each environment is made from wheels downloaded into a temporary folder,
# then installed offline with --no-deps, so nothing but the pinned packages
# ends up in it; install prints the download size and the time it took.
# The cache is $PJDL_CACHE_DIR, default ${XDG_CACHE_HOME:-$HOME/.cache}/pjrt-dlpack.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${PJDL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pjrt-dlpack}
matrix="$here/jax-matrix.txt"
pip_flags=(--quiet --disable-pip-version-check --no-input --no-cache-dir)

die() {
    echo "jax-env.sh: $*" >&2
    exit 2
}

interpreters() { /usr/bin/python3 "$here/debian_python.py" "$@"; }

# The interpreter X.Y of an entry: its -pyX.Y suffix, else Debian 12's.
python_of() {
    if [[ "$1" == *-py* ]]; then echo "${1##*-py}"; else interpreters host; fi
}

# The line of jax-matrix.txt for an entry: "ENTRY TAG PIN...".
line_of() {
    local l
    l=$(grep -E "^$(printf '%s' "$1" | sed 's/\./\\./g') " "$matrix" || true)
    [[ -n "$l" ]] || die "JAX $1 is not in $matrix (releases: $(releases all | tr '\n' ' '))"
    echo "$l"
}

env_line_pins() {
    local line
    line=$(line_of "$1") || exit 2
    echo "$line" | cut -d' ' -f3-
}

releases() {
    local which=${1:-all}
    grep -vE '^(#|$)' "$matrix" | while read -r release tag _; do
        if [[ "$which" == all || "$tag" == ci ]]; then echo "$release"; fi
    done
}

env_dir() {
    local line
    line=$(line_of "$1") || exit 2
    echo "$cache/jax-env-$1-$(echo "$line" | sha256sum | cut -c1-12)"
}

install_one() {
    local release=$1 dir pins wheels start bytes version
    dir=$(env_dir "$release") || exit 2
    [[ -f "$dir/.complete" ]] && return 0
    version=$(python_of "$release")
    read -r -a pins <<<"$(env_line_pins "$release")"
    echo "jax-env: creating $dir (JAX $release: ${#pins[@]} pinned packages)"
    start=$(date +%s)
    rm -rf "$dir"
    mkdir -p "$cache"
    # Into scripts/setup.sh's shared folder when there is one (a wheel that
    # several entries pin is downloaded once), else a temporary one.
    if [[ -n "${PJDL_WHEEL_POOL:-}" ]]; then
        wheels=$PJDL_WHEEL_POOL
    else
        wheels=$(mktemp -d "$cache/jax-wheels.XXXXXX")
        # The folder's name is expanded now: the trap outlives this function's
        # locals (with `set -u`, a name expanded at exit would be unbound).
        trap "rm -rf '$wheels'" EXIT
    fi
    interpreters install "$version"
    interpreters venv "$version" "$dir" || die "cannot create a virtual environment of Python $version"
    bytes=$(du -sb "$wheels" | cut -f1)
    "$dir/bin/python" -m pip download "${pip_flags[@]}" --no-deps --only-binary=:all: \
        -d "$wheels" "${pins[@]}" || die "downloading the pins of JAX $release failed"
    bytes=$(($(du -sb "$wheels" | cut -f1) - bytes))
    "$dir/bin/python" -m pip install "${pip_flags[@]}" --no-deps --no-index --find-links "$wheels" \
        "${pins[@]}" || die "installing the pins of JAX $release failed"
    "$dir/bin/python" -m pip check --disable-pip-version-check >/dev/null ||
        die "the pins of JAX $release are inconsistent: $("$dir/bin/python" -m pip check)"
    touch "$dir/.complete"
    if [[ -z "${PJDL_WHEEL_POOL:-}" ]]; then
        rm -rf "$wheels"
        trap - EXIT
    fi
    echo "jax-env: JAX $release ready: $((bytes / 1048576)) MiB downloaded, $(($(date +%s) - start)) s"
}

# Resolves with pip from the release alone (jaxlib: the newest not newer than
# jax, since some jax releases have no jaxlib of their own), on the entry's
# interpreter, NumPy and pytest pinned to the versions of the modern
# environment of that interpreter (scripts/python-env.txt on 3.11,
# python-env-next.txt on the newer ones).
resolve() {
    local entry=$1 release=${1%%-py*} version tmp numpy pytest modern=python-env-next.txt
    version=$(python_of "$entry")
    [[ "$version" != "$(interpreters host)" ]] || modern=python-env.txt
    numpy=$(grep -E '^numpy==' "$here/$modern")
    pytest=$(grep -E '^pytest==' "$here/$modern")
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    interpreters install "$version" >&2
    interpreters venv "$version" "$tmp/env" >&2
    "$tmp/env/bin/python" -m pip install "${pip_flags[@]}" --only-binary=:all: --dry-run \
        --ignore-installed --report "$tmp/report.json" \
        "jax==$release" "jaxlib<=$release" "$numpy" "$pytest" >&2
    echo "$entry -" $(/usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["install"]
print(" ".join(sorted((i["metadata"]["name"] + "==" + i["metadata"]["version"] for i in r), key=str.lower)))' "$tmp/report.json")
}

case "${1:-}" in
install)
    shift
    targets=("$@")
    [[ ${#targets[@]} -ne 0 ]] || targets=(ci)
    for t in "${targets[@]}"; do
        if [[ "$t" == ci || "$t" == all ]]; then
            for r in $(releases "$t"); do install_one "$r"; done
        else
            install_one "$t"
        fi
    done
    ;;
python)
    [[ $# -eq 2 ]] || die "usage: jax-env.sh python ENTRY"
    dir=$(env_dir "$2") || exit 2
    echo "$dir/bin/python"
    ;;
releases) releases "${2:-all}" ;;
resolve)
    [[ $# -eq 2 ]] || die "usage: jax-env.sh resolve ENTRY"
    resolve "$2"
    ;;
*) die "usage: jax-env.sh install [ENTRY...|ci|all] | python ENTRY | releases [ci|all] | resolve ENTRY" ;;
esac
