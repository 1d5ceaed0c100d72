#!/usr/bin/env bash
# The Python test suites (tests/python, as ctest's python_pytest and
# python_pytest_modern run them: Debian's Python with NumPy 1 and PyTorch 1,
# and the modern environment, scripts/python-env.sh; then tests/python/jax
# in each JAX environment of make test, as python_jax_<release>) on the module and the
# reference plugin built with AddressSanitizer + UndefinedBehaviorSanitizer,
# every file on its own, and with libFuzzer's coverage instrumentation, so
# that scripts/test.sh's short run of the Python fuzzer on the same module
# is guided by the C code's coverage as make fuzz's is (the runtime's weak
# hooks take the coverage calls when no fuzzer runs):
#   bash tests/python/asan.sh [BUILD_DIR]   (default build-asan-py)
# CPython, NumPy and PyTorch are not instrumented, so clang's runtime is
# preloaded (it holds UBSan's handlers too); leaks are not checked (the
# interpreter keeps much until exit). Left out: the three tests that run
# the pjrt-dlpack command in a child, which links a runtime of its own
# (two runtimes in one process abort). A report aborts the run, and the
# script fails. It found a use after free in from_dlpack that the plain
# suite hit once in about twenty runs (docs/reliability.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath -m "${1:-$root/build-asan-py}")
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang \
    -DPJDL_SANITIZE=address,undefined -DPJDL_UNITY=OFF -DBUILD_TESTING=OFF \
    -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link >/dev/null
cmake --build "$build" -j "$(nproc)" --target pjrt_dlpack_py_every pjrt_ref >/dev/null
runtime=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
[[ -f $runtime ]] || { echo "asan.sh: clang's ASan runtime not found ($runtime)" >&2; exit 1; }
xla=$(bash "$root/scripts/plugins.sh" path xla-cpu)
modern=$(bash "$root/scripts/python-env.sh" python)
[[ -x $modern ]] || { echo "asan.sh: no modern Python environment ($modern)" >&2; exit 1; }
package=tests/python/test_package.py
cd "$root"

# suite PYTHON ARGS...: the suite under PYTHON, its pytest arguments after.
suite() {
    local python=$1
    shift
    echo "asan.sh: $python"
    PYTHONPATH=$build/python PYTHONDONTWRITEBYTECODE=1 PJRT_REF_PLUGIN=$build/lib/libpjrt_ref.so \
        PJRT_XLA_CPU_PLUGIN=$xla LD_PRELOAD=$runtime \
        ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "$python" -m pytest -q -p no:cacheprovider --ignore=tests/python/jax \
        --deselect $package::test_python_m_help_names_the_command \
        --deselect $package::test_python_m_info_uses_the_bundled_plugin \
        --deselect $package::test_python_m_passes_the_exit_status_through \
        "$@" tests/python
}
suite /usr/bin/python3 --ignore=tests/python/modern
suite "$modern"

# The JAX suites (tests/python/jax), in the pinned environment of each JAX
# release that make test runs (scripts/jax-matrix.txt marks them "ci"):
# jaxlib is not instrumented either; its C++ runs with the runtime preloaded
# like NumPy's.
for release in $(bash "$root/scripts/jax-env.sh" releases ci); do
    python=$(bash "$root/scripts/jax-env.sh" python "$release")
    [[ -x $python ]] || { echo "asan.sh: no JAX $release environment ($python)" >&2; exit 1; }
    echo "asan.sh: JAX $release ($python)"
    PYTHONPATH=$build/python PYTHONDONTWRITEBYTECODE=1 PJRT_REF_PLUGIN=$build/lib/libpjrt_ref.so \
        PJRT_XLA_CPU_PLUGIN=$xla LD_PRELOAD=$runtime \
        ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "$python" -m pytest -q -p no:cacheprovider tests/python/jax
done
