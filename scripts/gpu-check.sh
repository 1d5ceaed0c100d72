#!/usr/bin/env bash
# gpu-check.sh — builds pjrt-dlpack without its tests (no cmocka, valgrind
# or libtorch needed) and checks it on a CUDA machine against XLA's CUDA
# PJRT plugin, with PyTorch and CuPy as the other side of the exchange
# (scripts/gpu_check.py; docs/gpu-check.md says what is checked).
#
#   scripts/gpu-check.sh [--python PY] [--build-dir DIR] [--builder auto|cmake|cc]
#                        [--plugin PATH] [--build-only | --no-build] [--verbose]
#
#   --python PY      the interpreter to build the module for and run the checks
#                    with (default: $PYTHON, else python3 on PATH)
#   --build-dir DIR  where to build (default: $PJDL_GPU_BUILD_DIR, else build-gpu/)
#   --builder B      cmake (needs CMake >= 3.25), cc (the C compiler alone, no
#                    CMake) or auto (default): cmake when a recent enough one is
#                    there, else cc; cc again if the CMake build fails
#   --plugin PATH    XLA's CUDA plugin (default: $PJDL_CUDA_PLUGIN, else the
#                    xla_cuda_plugin.so of the installed jax_plugins.xla_cuda13)
#   --build-only     build, check that everything was built, and stop
#   --no-build       use what an earlier run built in DIR
#   --verbose        build output and Python tracebacks in full
#
# Needs no network. Exit status: 0 when every check passed, 1 when a check
# or the build failed, 2 on a usage error. The last line is always
# "gpu-check: N passed, N failed".
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

python=${PYTHON:-python3}
build=${PJDL_GPU_BUILD_DIR:-$root/build-gpu}
builder=${PJDL_GPU_BUILDER:-auto}
plugin=${PJDL_CUDA_PLUGIN:-}
do_build=1
do_check=1
verbose=0
jobs=$(nproc 2>/dev/null || echo 2)

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}

usage_error() {
    echo "gpu-check: $*" >&2
    echo "gpu-check: try --help" >&2
    exit 2
}

# A failure before the Python checks: the message, the summary line, exit 1.
fail() {
    echo "FAIL build: $*"
    echo "gpu-check: 0 passed, 1 failed"
    exit 1
}

while [[ $# -gt 0 ]]; do
    case "$1" in
    --python) [[ $# -ge 2 ]] || usage_error "--python needs a value"; python=$2; shift 2 ;;
    --python=*) python=${1#*=}; shift ;;
    --build-dir) [[ $# -ge 2 ]] || usage_error "--build-dir needs a value"; build=$2; shift 2 ;;
    --build-dir=*) build=${1#*=}; shift ;;
    --builder) [[ $# -ge 2 ]] || usage_error "--builder needs a value"; builder=$2; shift 2 ;;
    --builder=*) builder=${1#*=}; shift ;;
    --plugin) [[ $# -ge 2 ]] || usage_error "--plugin needs a value"; plugin=$2; shift 2 ;;
    --plugin=*) plugin=${1#*=}; shift ;;
    --build-only) do_check=0; shift ;;
    --no-build) do_build=0; shift ;;
    --verbose | -v) verbose=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown argument '$1'" ;;
    esac
done
case "$builder" in
auto | cmake | cc) ;;
*) usage_error "--builder must be auto, cmake or cc, not '$builder'" ;;
esac
[[ $do_build -eq 1 || $do_check -eq 1 ]] || usage_error "--build-only and --no-build exclude each other"
mkdir -p "$build"
build=$(cd "$build" && pwd)

# The interpreter's real path (a pyenv or venv shim resolves to the
# executable the module must be built for).
command -v "$python" >/dev/null 2>&1 || fail "no Python interpreter '$python' (give one with --python)"
pyexe=$("$python" -c 'import sys; print(sys.executable)') ||
    fail "the Python interpreter '$python' does not run"
[[ -n "$pyexe" ]] || fail "the Python interpreter '$python' reports no sys.executable"

# Runs a build step with its output in the log (and on the terminal with
# --verbose); on failure shows the log's end.
log=$build/gpu-check-build.log
step() {
    if [[ $verbose -eq 1 ]]; then
        "$@" 2>&1 | tee -a "$log"
        return "${PIPESTATUS[0]}"
    fi
    if ! "$@" >>"$log" 2>&1; then
        echo "gpu-check: failed: $*" >&2
        tail -n 40 "$log" >&2
        return 1
    fi
}

# CMake when there is one the project accepts (cmake_minimum_required 3.25).
cmake_usable() {
    command -v cmake >/dev/null 2>&1 || return 1
    local version
    version=$(cmake --version 2>/dev/null | sed -n '1s/^cmake version \([0-9][0-9.]*\).*/\1/p')
    [[ -n "$version" ]] || return 1
    local major minor
    IFS=. read -r major minor _ <<<"$version"
    [[ "${major:-0}" -gt 3 || ("${major:-0}" -eq 3 && "${minor:-0}" -ge 25) ]]
}

# Where each builder leaves things; set by build_cmake / build_cc.
cli=
moddir=

build_cmake() {
    local dir=$1
    echo "gpu-check: building with CMake into $dir (PJDL_TESTS=OFF, Python $pyexe)"
    step cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DPJDL_TESTS=OFF \
        -DPJDL_PYTHON=ON -DPython3_EXECUTABLE="$pyexe" || return 1
    step cmake --build "$dir" -j "$jobs" || return 1
    cli=$dir/tools/pjrt-dlpack
    moddir=$dir/python
}

# The same outputs with the C compiler alone, laid out as CMake lays them:
# lib/ (the library next to the reference plugin, where the library finds
# it), tools/pjrt-dlpack, python/pjrt_dlpack/ (the package: its Python files
# and the extension module _pjrt_dlpack<EXT_SUFFIX>).
c_compiler() {
    local c
    for c in "${CC:-}" gcc cc clang; do
        if [[ -n "$c" ]] && command -v "$c" >/dev/null 2>&1; then
            echo "$c"
            return 0
        fi
    done
    return 1
}

build_cc() {
    local dir=$1 cc
    cc=$(c_compiler) || { echo "gpu-check: no C compiler (set CC)" >&2; return 1; }
    echo "gpu-check: building with $cc alone into $dir (no CMake; Python $pyexe)"
    local flags=(-std=c11 -O2 -g -fPIC -pthread -Wall -Wextra
        -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I"$root/include")
    mkdir -p "$dir/obj/src" "$dir/obj/plugin" "$dir/obj/tools" "$dir/obj/python" \
        "$dir/lib" "$dir/tools" "$dir/python"
    local f objs=()

    # libpjrt_dlpack: shared and static, from the same objects.
    for f in "$root"/src/*.c "$root"/common/*.c; do
        step "$cc" "${flags[@]}" -fvisibility=hidden -I"$root/src" -I"$root/common" \
            -c "$f" -o "$dir/obj/src/$(basename "${f%.c}").o" || return 1
        objs+=("$dir/obj/src/$(basename "${f%.c}").o")
    done
    step "$cc" -shared -pthread -Wl,-soname,libpjrt_dlpack.so -o "$dir/lib/libpjrt_dlpack.so" \
        "${objs[@]}" -ldl || return 1
    rm -f "$dir/lib/libpjrt_dlpack.a"
    step ar rcs "$dir/lib/libpjrt_dlpack.a" "${objs[@]}" || return 1

    # The reference plugin (the command's default plugin) with the strided
    # copy kernel compiled in, as plugin/CMakeLists.txt does.
    objs=()
    # The plugin's version string is the project's, from the public header.
    local version
    version=$(sed -n 's/^#define PJDL_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
        "$root/include/pjrt_dlpack.h" | paste -sd.)
    for f in "$root"/plugin/*.c "$root"/common/*.c; do
        step "$cc" "${flags[@]}" -fvisibility=hidden -I"$root/common" \
            "-DREF_VERSION=\"$version\"" \
            -c "$f" -o "$dir/obj/plugin/$(basename "${f%.c}").o" || return 1
        objs+=("$dir/obj/plugin/$(basename "${f%.c}").o")
    done
    step "$cc" -shared -pthread -o "$dir/lib/libpjrt_ref.so" "${objs[@]}" || return 1

    # The command, finding the library through $ORIGIN/../lib; its bench
    # measures with the benchmarks' timing core (bench/bench_util.c).
    objs=()
    for f in "$root"/tools/*.c "$root"/bench/bench_util.c; do
        step "$cc" "${flags[@]}" -I"$root/tools" -I"$root/plugin" -I"$root/bench" \
            -c "$f" -o "$dir/obj/tools/$(basename "${f%.c}").o" || return 1
        objs+=("$dir/obj/tools/$(basename "${f%.c}").o")
    done
    # shellcheck disable=SC2016 # $ORIGIN is for the dynamic linker
    step "$cc" -pthread -o "$dir/tools/pjrt-dlpack" "${objs[@]}" -L"$dir/lib" -lpjrt_dlpack \
        -Wl,-rpath,'$ORIGIN/../lib' -ldl -lm || return 1
    cli=$dir/tools/pjrt-dlpack
    moddir=$dir/python

    # The Python module, linked with the static library, for $pyexe.
    local pyinc ext
    pyinc=$("$pyexe" -c 'import sysconfig; print(sysconfig.get_paths()["include"])') || return 1
    ext=$("$pyexe" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX") or ".so")') ||
        return 1
    if [[ ! -f "$pyinc/Python.h" ]]; then
        echo "gpu-check: no Python.h in $pyinc: the pjrt_dlpack module is not built" \
            "(install the Python development headers for $pyexe)" >&2
        return 0
    fi
    objs=()
    for f in "$root"/python/*.c; do
        step "$cc" "${flags[@]}" -fvisibility=hidden -Wno-missing-field-initializers \
            -I"$root/python" -I"$pyinc" \
            -c "$f" -o "$dir/obj/python/$(basename "${f%.c}").o" || return 1
        objs+=("$dir/obj/python/$(basename "${f%.c}").o")
    done
    mkdir -p "$dir/python/pjrt_dlpack"
    cp "$root"/python/pjrt_dlpack/*.py "$dir/python/pjrt_dlpack/" || return 1
    step "$cc" -shared -pthread -o "$dir/python/pjrt_dlpack/_pjrt_dlpack$ext" "${objs[@]}" \
        "$dir/lib/libpjrt_dlpack.a" -Wl,--exclude-libs,ALL -ldl || return 1
}

# What a finished build must hold.
built_ok() {
    [[ -x "$cli" ]] || { echo "gpu-check: the build made no $cli" >&2; return 1; }
    local mods=("$moddir"/pjrt_dlpack/_pjrt_dlpack*.so)
    [[ -f "${mods[0]}" ]] || {
        echo "gpu-check: the build made no Python module in $moddir" >&2
        return 1
    }
    "$cli" --version >/dev/null || { echo "gpu-check: $cli --version fails" >&2; return 1; }
    PYTHONPATH="$moddir" "$pyexe" -c 'import pjrt_dlpack' ||
        { echo "gpu-check: the built pjrt_dlpack module does not import with $pyexe" >&2; return 1; }
}

# The layout of an earlier run (--no-build): a CMake tree or a cc tree.
find_built() {
    local dir
    for dir in "$build" "$build/cc"; do
        if [[ -x "$dir/tools/pjrt-dlpack" ]]; then
            cli=$dir/tools/pjrt-dlpack
            moddir=$dir/python
            return 0
        fi
    done
    return 1
}

if [[ $do_build -eq 1 ]]; then
    : >"$log"
    case "$builder" in
    cmake)
        cmake_usable || fail "no CMake >= 3.25 on PATH (use --builder cc)"
        if ! { build_cmake "$build" && built_ok; }; then
            fail "the CMake build failed (log: $log)"
        fi
        ;;
    cc)
        if ! { build_cc "$build/cc" && built_ok; }; then
            fail "the build with the C compiler failed (log: $log)"
        fi
        ;;
    auto)
        if cmake_usable && build_cmake "$build" && built_ok; then
            :
        else
            cmake_usable && echo "gpu-check: the CMake build failed; building with the C compiler alone"
            cmake_usable || echo "gpu-check: no CMake >= 3.25; building with the C compiler alone"
            if ! { build_cc "$build/cc" && built_ok; }; then
                fail "the build failed (log: $log)"
            fi
        fi
        ;;
    esac
    echo "gpu-check: built $cli and the Python module in $moddir"
else
    find_built || fail "nothing built in $build (run without --no-build first)"
    built_ok || fail "the build in $build is incomplete (run without --no-build)"
fi

if [[ $do_check -eq 0 ]]; then
    echo "gpu-check: --build-only: no checks run"
    exit 0
fi

args=(--cli "$cli")
[[ -n "$plugin" ]] && args+=(--plugin "$plugin")
[[ $verbose -eq 1 ]] && args+=(--verbose)
PYTHONPATH="$moddir${PYTHONPATH:+:$PYTHONPATH}" exec "$pyexe" "$here/gpu_check.py" "${args[@]}"
