#!/usr/bin/env bash
# The JAX matrix: one small virtual environment per JAX release, each with
# only NumPy, jax, jaxlib, ml_dtypes, what jax itself requires (SciPy,
# opt_einsum) and pytest, every package pinned exactly by one line of
# scripts/jax-matrix.txt. No PyTorch. The environments live in the cache
# outside the clone; a changed line makes a new environment (its folder is
# named by the release and the line's hash).
#
#   jax-env.sh install [RELEASE...|ci|all]  create them unless present
#                                           (default: ci, the releases that
#                                           `make test` runs)
#   jax-env.sh python RELEASE     print its interpreter's path (installed or not)
#   jax-env.sh releases [ci|all]  print the releases of the matrix
#   jax-env.sh resolve RELEASE    resolve the pins of a release afresh (from
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
base=/usr/bin/python3
pip_flags=(--quiet --disable-pip-version-check --no-input --no-cache-dir)

die() {
    echo "jax-env.sh: $*" >&2
    exit 2
}

# The line of jax-matrix.txt for a release: "RELEASE TAG PIN...".
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
    local release=$1 dir pins wheels start bytes
    dir=$(env_dir "$release") || exit 2
    [[ -f "$dir/.complete" ]] && return 0
    [[ -x "$base" ]] || die "no $base (Debian: apt-get install python3)"
    read -r -a pins <<<"$(env_line_pins "$release")"
    echo "jax-env: creating $dir (JAX $release: ${#pins[@]} pinned packages)"
    start=$(date +%s)
    rm -rf "$dir"
    mkdir -p "$cache"
    wheels=$(mktemp -d "$cache/jax-wheels.XXXXXX")
    # The folder's name is expanded now: the trap outlives this function's
    # locals (with `set -u`, a name expanded at exit would be unbound).
    trap "rm -rf '$wheels'" EXIT
    "$base" -m venv "$dir" || die "cannot create a virtual environment (apt-get install python3-venv)"
    "$dir/bin/python" -m pip download "${pip_flags[@]}" --no-deps --only-binary=:all: \
        -d "$wheels" "${pins[@]}" || die "downloading the pins of JAX $release failed"
    bytes=$(du -sb "$wheels" | cut -f1)
    "$dir/bin/python" -m pip install "${pip_flags[@]}" --no-deps --no-index --find-links "$wheels" \
        "${pins[@]}" || die "installing the pins of JAX $release failed"
    "$dir/bin/python" -m pip check --disable-pip-version-check >/dev/null ||
        die "the pins of JAX $release are inconsistent: $("$dir/bin/python" -m pip check)"
    touch "$dir/.complete"
    rm -rf "$wheels"
    trap - EXIT
    echo "jax-env: JAX $release ready: $((bytes / 1048576)) MiB downloaded, $(($(date +%s) - start)) s"
}

# Resolves with pip from the release alone (jaxlib: the newest not newer than
# jax, since some jax releases have no jaxlib of their own), NumPy and pytest
# pinned to the versions of the modern environment (scripts/python-env.txt).
resolve() {
    local release=$1 tmp numpy pytest
    numpy=$(grep -E '^numpy==' "$here/python-env.txt")
    pytest=$(grep -E '^pytest==' "$here/python-env.txt")
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    "$base" -m venv "$tmp/env"
    "$tmp/env/bin/python" -m pip install "${pip_flags[@]}" --only-binary=:all: --dry-run \
        --ignore-installed --report "$tmp/report.json" \
        "jax==$release" "jaxlib<=$release" "$numpy" "$pytest" >&2
    echo "$release -" $("$base" -c 'import json, sys
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
    [[ $# -eq 2 ]] || die "usage: jax-env.sh python RELEASE"
    dir=$(env_dir "$2") || exit 2
    echo "$dir/bin/python"
    ;;
releases) releases "${2:-all}" ;;
resolve)
    [[ $# -eq 2 ]] || die "usage: jax-env.sh resolve RELEASE"
    resolve "$2"
    ;;
*) die "usage: jax-env.sh install [RELEASE...|ci|all] | python RELEASE | releases [ci|all] | resolve RELEASE" ;;
esac
