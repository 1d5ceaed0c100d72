#!/usr/bin/env bash
# Runs every test. The format check first (scripts/check-format.sh), then
# the main build's tests (C tests, Python tests, the examples), then the C
# tests again in sanitizer builds, each in its own build directory:
#   build-asan  AddressSanitizer + UndefinedBehaviorSanitizer, no recovery;
#               every file compiled on its own (PJDL_UNITY=OFF)
#   build-asan-py  the same for the Python module and the reference plugin,
#               under the Python test suites (tests/python/asan.sh), then
#               the Python fuzzer for PJDL_PYFUZZ_SECONDS (default 25;
#               fuzz/python/run.sh)
#   build-tsan  ThreadSanitizer: the plugin tests, the library suite (label
#               "lib": on the reference plugin and on XLA's CPU plugin, the
#               latter with ignore_noninstrumented_modules, see
#               tests/CMakeLists.txt) and every test labelled "threads" or
#               "stream"
# Each ctest run ends with its summary line; the script fails if any fails.
set -euo pipefail
build=${1:-build}
jobs=$(nproc)

echo "== format"
bash "$(dirname "$0")/check-format.sh"

echo "== tests: main build ($build)"
ctest --test-dir "$build" --output-on-failure -j "$jobs"

if [[ "${PJDL_SKIP_SANITIZERS:-0}" == "1" ]]; then
    # The Python fuzzer (atheris) on the main build's module, for a bounded
    # time: without the sanitizers it sees crashes and broken oracles only.
    bash fuzz/python/run.sh "$build" "${PJDL_PYFUZZ_SECONDS:-25}"
    echo "== sanitizer builds skipped (PJDL_SKIP_SANITIZERS=1)"
    exit 0
fi

sanitized() {
    local dir=$1 sanitize=$2
    shift 2
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang \
        -DPJDL_SANITIZE="$sanitize" -DPJDL_PYTHON=OFF "$@" >/dev/null
    cmake --build "$dir" -j "$jobs" >/dev/null
}

echo "== tests: AddressSanitizer + UndefinedBehaviorSanitizer (build-asan)"
sanitized build-asan address,undefined -DPJDL_FUZZ=ON -DPJDL_UNITY=OFF
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE "python|valgrind"

# Each libFuzzer target for a bounded time, from its checked-in seed corpus.
bash fuzz/run.sh build-asan/fuzz "${PJDL_FUZZ_SECONDS:-20}"

echo "== tests: the Python module with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan-py)"
bash tests/python/asan.sh build-asan-py

# The Python fuzzer (atheris) for a bounded time, on that module: undefined
# behaviour in the C code it reaches (a pointer formed past the end of the
# address space) aborts the run, which a plain build would not show.
bash fuzz/python/run.sh build-asan-py "${PJDL_PYFUZZ_SECONDS:-25}"

echo "== tests: ThreadSanitizer (build-tsan)"
sanitized build-tsan thread
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    ctest --test-dir build-tsan --output-on-failure -j "$jobs" -L "threads|stream|plugin|lib"
