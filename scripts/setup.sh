#!/usr/bin/env bash
# Installs what the project needs, only what is missing: the Debian packages,
# then from PyPI XLA's CPU PJRT plugin (scripts/plugins.sh) and the modern
# Python environment (scripts/python-env.sh), both into a cache outside the
# clone. Idempotent: when everything is present it only asks dpkg and looks
# for two files, which takes well under a second.
set -euo pipefail

packages=(
    build-essential cmake pkg-config
    libcmocka-dev
    clang libclang-rt-14-dev clang-format
    valgrind
    python3-dev python3-numpy python3-pytest python3-torch python3-pip python3-venv
    libtorch-dev gnuplot-nox
)

missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

install_debian() {
    echo "setup: installing ${missing[*]}"
    sudo=""
    if [[ $(id -u) -ne 0 ]]; then
        sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -q
    $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

if [[ ${#missing[@]} -ne 0 ]]; then
    install_debian
fi

# The tests run against XLA's own CPU plugin too, and the Python tests in a
# second, modern environment (NumPy 2, PyTorch 2, JAX) as well as Debian's.
bash "$(dirname "$0")/plugins.sh" install xla-cpu
bash "$(dirname "$0")/python-env.sh" install
# The JAX matrix environments that `make test` runs (scripts/jax-matrix.txt).
bash "$(dirname "$0")/jax-env.sh" install ci
