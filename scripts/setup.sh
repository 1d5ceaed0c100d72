#!/usr/bin/env bash
# Installs what a make target needs, only what is missing: the Debian
# packages, CPython 3.13 and 3.14 unpacked from Debian 13's and Debian
# unstable's packages (scripts/debian_python.py), then from PyPI into a
# cache outside the clone XLA's CPU PJRT plugin (scripts/plugins.sh), the
# modern Python environments (scripts/python-env.sh) and the release tools
# (scripts/release-env.sh).
# Idempotent: when everything is present it only asks dpkg and looks for a
# few files, which takes well under a second.
#
#   setup.sh [demo|intel|test|bench|release]   (default: demo)
#
#   demo     build the project (the build compiles the tests too: cmocka) and
#            run make demo: XLA's CPU plugin (pip installs it), the modern
#            environment (the demo's Python runs there)
#   intel    build the project and run make demo-intel: Intel's oneAPI plugin
#            and its runtime, and the dpnp environment (dpctl, dpnp, their
#            2026 runtime, JAX); not the modern environment
#   test     demo's, and what only the tests use: Debian's NumPy and PyTorch
#            (the legacy Python tests), clang and its sanitizer runtime,
#            clang-format, valgrind, pkg-config, pytest, the release tools
#            (the package tests), Intel's oneAPI plugin and its runtime
#            (tests/oneapi runs it on ze_sim, the simulated Level Zero GPU),
#            the dpnp environment (tests/oneapi/dpnp), Python 3.13 and 3.14
#            with their modern environments (NumPy 2.5, PyTorch 2, JAX 0.12.1)
#            and the JAX matrix's entries marked ci (on 3.11, 3.13 and 3.14)
#   bench    demo's, Debian's NumPy and PyTorch (bench_python.py), and what
#            only the benchmarks use: libtorch-dev (PyTorch's C++ DLPack, a
#            baseline) and gnuplot (the plot)
#   release  make wheel and make sdist: a compiler, CMake, Python's headers,
#            Python 3.13 and 3.14 (a wheel for each), the release tools on
#            each interpreter
set -euo pipefail
here=$(dirname "$0")
mode=${1:-demo}

# Every mode: what builds the library, the plugin and the Python module.
packages=(build-essential cmake python3-dev python3-venv)
demo_packages=(libcmocka-dev python3-pip)
debian_python=(python3-numpy python3-torch)
# patchelf makes the newer interpreters (test, release) run on their own glibc.
test_packages=("${debian_python[@]}" clang libclang-rt-14-dev clang-format valgrind pkg-config python3-pytest
    patchelf)
bench_packages=("${debian_python[@]}" libtorch-dev gnuplot-nox)

case "$mode" in
demo | intel) packages+=("${demo_packages[@]}") ;;
test) packages+=("${demo_packages[@]}" "${test_packages[@]}") ;;
bench) packages+=("${demo_packages[@]}" "${bench_packages[@]}") ;;
release) packages+=(patchelf) ;;
*)
    echo "usage: setup.sh [demo|intel|test|bench|release]" >&2
    exit 2
    ;;
esac

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

# One folder for the wheels the environments below download (PyTorch's CUDA
# libraries, ~2.5 GB, are the same in the modern environment of every
# interpreter): each file is downloaded once per set-up.
cache=${PJDL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pjrt-dlpack}
mkdir -p "$cache"
export PJDL_WHEEL_POOL
PJDL_WHEEL_POOL=$(mktemp -d "$cache/wheel-pool.XXXXXX")
trap 'rm -rf "$PJDL_WHEEL_POOL"' EXIT

# CPython 3.13 and 3.14 (about 22 MB of .debs each, 50 MB unpacked): the
# build makes the module for them too, the tests run the modern suite and
# the newest JAX on them, make wheel makes their wheels.
if [[ "$mode" == test || "$mode" == release ]]; then
    /usr/bin/python3 "$here/debian_python.py" install
fi

# The demo, the tests and the benchmarks run against XLA's own CPU plugin
# too, and in a second, modern Python environment (NumPy 2, PyTorch 2, JAX)
# as well as Debian's.
if [[ "$mode" != release && "$mode" != intel ]]; then
    bash "$here/plugins.sh" install xla-cpu
fi
# Two older builds of it (ABI 0.106 and 0.81): make test runs the library,
# check and Python on them too.
if [[ "$mode" == test ]]; then
    bash "$here/plugins.sh" install xla-cpu-106
    bash "$here/plugins.sh" install xla-cpu-81
fi
if [[ "$mode" != release ]]; then
    bash "$here/python-env.sh" install
fi
# The wheel and the sdist are built, repaired and checked with these; the
# package tests install them offline from its wheelhouse.
if [[ "$mode" == test || "$mode" == release ]]; then
    bash "$here/release-env.sh" install
fi
# Intel's oneAPI plugin and its pinned runtime (about 845 MB of wheels, 2.7 GB
# installed, once): the tests run it on ze_sim, the simulated Level Zero GPU
# the build makes (tests/oneapi).
if [[ "$mode" == test || "$mode" == intel ]]; then
    bash "$here/plugins.sh" install oneapi
fi
# Intel's own Python stack, dpctl and dpnp with their 2026 runtime, and JAX
# (about 960 MB of wheels, 3.4 GB installed, once): the seed's exchange with
# Intel's plugin on ze_sim (tests/oneapi/dpnp, make demo-intel).
if [[ "$mode" == test || "$mode" == intel ]]; then
    bash "$here/python-env.sh" install dpnp-env
fi
# The Python fuzzer's own small environment (atheris; fuzz/python/): make
# test runs it briefly, make fuzz at length.
if [[ "$mode" == test ]]; then
    bash "$here/python-env.sh" install fuzz-env
fi
# The JAX matrix environments that make test runs (scripts/jax-matrix.txt
# marks them "ci"; make jax-matrix installs the others on demand).
if [[ "$mode" == test ]]; then
    bash "$here/jax-env.sh" install ci
fi
# The modern environment on 3.13 and 3.14 (python-env-next.txt; about 6 GB
# each, of which PyTorch's CUDA libraries, 3 GB, are hard links to the same
# files of the environment made before it, scripts/seed_env.py): the modern
# suite runs on each.
if [[ "$mode" == test ]]; then
    for version in $(/usr/bin/python3 "$here/debian_python.py" versions | tail -n +2); do
        bash "$here/python-env.sh" install python-env-next "$version"
    done
fi
