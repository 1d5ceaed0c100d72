#!/usr/bin/env bash
# Runs every test. The main build's tests first (C tests, Python tests, the
# examples), then the C tests again in sanitizer builds, each in its own
# build directory:
#   build-asan  AddressSanitizer + UndefinedBehaviorSanitizer, no recovery
#   build-tsan  ThreadSanitizer: the plugin tests and every test labelled
#               "threads" or "stream"
# Each ctest run ends with its summary line; the script fails if any fails.
set -euo pipefail
build=${1:-build}
jobs=$(nproc)

echo "== tests: main build ($build)"
ctest --test-dir "$build" --output-on-failure -j "$jobs"

if [[ "${PJDL_SKIP_SANITIZERS:-0}" == "1" ]]; then
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
sanitized build-asan address,undefined -DPJDL_FUZZ=ON
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE "python|valgrind"

# Each libFuzzer target for a bounded time, starting from its checked-in seed
# corpus (copied, so that new inputs stay out of the source tree).
fuzz_seconds=${PJDL_FUZZ_SECONDS:-20}
for target in build-asan/fuzz/fuzz_*; do
    [[ -x "$target" ]] || continue
    name=$(basename "$target")
    corpus=$(mktemp -d)
    cp -r "fuzz/corpus/${name#fuzz_}/." "$corpus/"
    echo "== fuzz: $name for ${fuzz_seconds}s"
    status=0
    "$target" -max_total_time="$fuzz_seconds" -print_final_stats=1 "$corpus" \
        >"$corpus.log" 2>&1 || status=$?
    grep -E "^stat::(number_of_executed_units|new_units_added)" "$corpus.log" || true
    if [[ $status -ne 0 ]]; then
        tail -n 60 "$corpus.log"
        echo "fuzz: $name found a failure (exit $status)"
        exit 1
    fi
    rm -rf "$corpus" "$corpus.log"
done

echo "== tests: ThreadSanitizer (build-tsan)"
sanitized build-tsan thread
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    ctest --test-dir build-tsan --output-on-failure -j "$jobs" -L "threads|stream|plugin"
