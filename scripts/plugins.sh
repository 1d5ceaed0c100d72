#!/usr/bin/env bash
# Real PJRT plugins, installed from PyPI wheels into a cache outside the
# clone (so a CI run on the same machine reuses them). The pins, hashes and
# library paths are in scripts/plugins.txt.
#
#   plugins.sh path NAME      print the plugin library's path (installed or not)
#   plugins.sh install NAME   install it (and its runtime, if scripts/NAME-runtime.txt
#                             exists) unless present; print nothing if present
#   plugins.sh runtime NAME   print the folder of NAME's runtime libraries
#                             (installed or not); nothing if it has no runtime
#   plugins.sh env NAME [BUILD]
#                             install NAME if missing, then print the `export`
#                             lines that make it loadable: its runtime and, for
#                             oneapi, the build's ze_sim (BUILD, default build;
#                             built first if missing). eval "$(plugins.sh env oneapi)"
#   plugins.sh info BUILD [NAME...]
#                             install every plugin of the table (or the NAMEs)
#                             and run BUILD/tools/pjrt-dlpack info on each: one
#                             line per plugin, then "N passed, N failed"; exits 1
#                             if info crashed, hung or gave an undocumented
#                             code on any (make plugins)
#
# The cache is $PJDL_CACHE_DIR, default ${XDG_CACHE_HOME:-$HOME/.cache}/pjrt-dlpack.
# info: $PJDL_PLUGIN_STEP_S (default 60) is how long info lets a plugin spend
# in one step (initialize, create a client, ...) before it reports a hang.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${PJDL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pjrt-dlpack}
table="$here/plugins.txt"

die() {
    echo "plugins.sh: $*" >&2
    exit 2
}

# Reads NAME's line of the table into req, sha, lib.
lookup() {
    local name=$1 n r s l
    while read -r n r s l; do
        [[ -z "$n" || "$n" == \#* ]] && continue
        if [[ "$n" == "$name" ]]; then
            req=$r sha=$s lib=$l
            return 0
        fi
    done <"$table"
    die "no plugin named '$name' in $table"
}

# The plugin's folder: the requirement names the version, so a new pin
# installs beside the old one instead of mixing with it.
dir_of() { echo "$cache/plugins/${req/==/-}"; }

pip_cmd() {
    for py in /usr/bin/python3 python3; do
        if "$py" -m pip --version >/dev/null 2>&1; then
            echo "$py -m pip"
            return 0
        fi
    done
    die "no pip found (Debian: apt-get install python3-pip)"
}

install() {
    local name=$1
    lookup "$name"
    local dir
    dir=$(dir_of)
    install_runtime "$name"
    [[ -f "$dir/$lib" ]] && return 0
    echo "plugins: installing $req into $dir"
    local tmp
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    echo "$req --hash=sha256:$sha" >"$tmp/requirements.txt"
    # --no-deps: a plugin wheel's dependencies (often a jax pin) are not
    # needed to dlopen its library and would fight the project's own pins.
    $(pip_cmd) install --quiet --root-user-action=ignore --no-deps --only-binary=:all: --require-hashes \
        --target "$tmp/target" -r "$tmp/requirements.txt"
    [[ -f "$tmp/target/$lib" ]] || die "$req installed no $lib"
    mkdir -p "$(dirname "$dir")"
    rm -rf "$dir"
    mv "$tmp/target" "$dir"
}

# A plugin's runtime: scripts/NAME-runtime.txt, pip requirements pinned by
# version and hash, installed with --prefix (--target drops the wheels'
# lib/*.so files) into a folder named after the pins, so a new pin installs
# beside the old one. rt_file/rt_dir are empty when NAME has none.
runtime_of() {
    rt_file=$here/$1-runtime.txt rt_dir=""
    [[ -f "$rt_file" ]] || {
        rt_file=""
        return 0
    }
    local pins
    pins=$(grep -v '^#' "$rt_file" | sha256sum | cut -c1-12)
    rt_dir=$cache/runtimes/$1-$pins
}

# A subshell, so that its clean-up trap ends with it.
install_runtime() (
    local name=$1
    runtime_of "$name"
    [[ -n "$rt_file" && ! -f "$rt_dir/.complete" ]] || return 0
    echo "plugins: installing the runtime of $name ($(grep -vc '^#' "$rt_file") wheels) into $rt_dir"
    local tmp
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    $(pip_cmd) install --quiet --root-user-action=ignore --no-deps --only-binary=:all: --require-hashes \
        --no-warn-script-location --prefix "$tmp/prefix" -r "$rt_file"
    # Debian's pip puts a --prefix install under PREFIX/local.
    local root=$tmp/prefix
    [[ -d "$root/lib" || ! -d "$root/local/lib" ]] || root=$root/local
    [[ -d "$root/lib" ]] || die "the runtime of $name installed no lib folder"
    mkdir -p "$(dirname "$rt_dir")"
    rm -rf "$rt_dir"
    mv "$root" "$rt_dir"
    touch "$rt_dir/.complete"
)

# The export lines for NAME: its runtime's libraries, and for oneapi the
# build's ze_sim (the Level Zero loader it links) in front of them.
env_lines() {
    local name=$1 build=${2:-$here/../build}
    install "$name" >&2
    runtime_of "$name"
    [[ -n "$rt_dir" ]] || return 0
    local dirs=$rt_dir/lib
    if [[ "$name" == oneapi ]]; then
        local zesim=$build/zesim
        if [[ ! -f "$zesim/libze_loader.so.1" ]]; then
            [[ -f "$build/CMakeCache.txt" ]] || cmake -S "$here/.." -B "$build" >&2
            cmake --build "$build" --target ze_loader ze_tracing_layer >&2
        fi
        dirs=$(cd "$zesim" && pwd):$dirs
    fi
    # shellcheck disable=SC2016 # expanded by the caller's eval
    echo "export LD_LIBRARY_PATH=\"$dirs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
}

# Every plugin name of the table, in its order.
names() {
    local n r s l
    while read -r n r s l; do
        [[ -z "$n" || "$n" == \#* ]] && continue
        echo "$n"
    done <"$table"
}

# The first line of FILE that starts with PREFIX, without the prefix.
field() { sed -n "s/^$2//p" "$1" | head -n 1; }

# Runs `pjrt-dlpack info` on one plugin; prints its summary line and returns
# 1 when the command itself misbehaved (crash, hang, undocumented code).
info_one() {
    local cli=$1 logs=$2 name=$3 step_s=$4
    lookup "$name"
    # A subshell: install's clean-up trap must not outlive it.
    if ! (install "$name") >"$logs/$name.install" 2>&1; then
        printf '%-4s %-8s %-28s install failed (%s)\n' FAIL "$name" "$req" "$logs/$name.install"
        return 1
    fi
    local path out=$logs/$name.out err=$logs/$name.err rc=0
    path=$(dir_of)/$lib
    # A plugin with a runtime (oneapi) runs with it, and oneapi on the
    # build's ze_sim, as `plugins.sh env` sets them.
    local ldpath=${LD_LIBRARY_PATH:-}
    runtime_of "$name"
    if [[ -n "$rt_dir" ]]; then
        ldpath=$rt_dir/lib${ldpath:+:$ldpath}
        [[ "$name" != oneapi ]] || ldpath=$(dirname "$cli")/../zesim:$ldpath
    fi
    # info gives up on a step itself after step_s; the outer limit only
    # catches info itself hanging. TPU_SKIP_MDS_QUERY=1: without it libtpu's
    # PJRT_Plugin_Initialize asks the cloud metadata server for its
    # topology, over the network, for minutes; nothing here may send that.
    LD_LIBRARY_PATH=$ldpath TPU_SKIP_MDS_QUERY=1 timeout --kill-after=10 $((step_s * 8 + 60)) "$cli" info --timeout-ms $((step_s * 1000)) "$path" \
        >"$out" 2>"$err" </dev/null || rc=$?
    local verdict=PASS what
    case $rc in
    0) what="client created, platform $(field "$out" 'platform: *')" ;;
    1) what="plugin failed while probed: $(grep -m1 '^pjrt-dlpack: ' "$err" | cut -c14-)" ;;
    3)
        what=$(field "$out" 'client: *none: ')
        if [[ -z "$what" ]]; then
            # The library's words after the path (a missing library, or a
            # library for another system), without the code.
            local line
            line=$(grep -m1 '^pjrt-dlpack: cannot load' "$err" || true)
            line=${line#*"$path: "}
            what="not loadable: $(echo "${line% (*)}" |
                sed 's/.*: \([^:]*: cannot open shared object file\).*/\1/')"
        fi
        ;;
    124 | 137) verdict=FAIL what="info hung (killed by timeout)" ;;
    2 | 4) verdict=FAIL what="info failed with its own error (exit $rc): $(tail -n 1 "$err")" ;;
    *)
        verdict=FAIL
        if ((rc > 128)); then what="info crashed (signal $((rc - 128)))"; else what="undocumented exit code $rc"; fi
        ;;
    esac
    local abi
    abi=$(field "$out" 'PJRT ABI: *')
    abi=${abi%% *}
    printf '%-4s %-8s %-28s exit %d  ABI %-6s %s\n' "$verdict" "$name" "$req" "$rc" "${abi:--}" "$what"
    [[ $verdict == PASS ]]
}

info_all() {
    local build=$1
    shift
    local cli=$build/tools/pjrt-dlpack
    [[ -x "$cli" ]] || die "no $cli: build first (make build BUILD=$build)"
    local logs=$build/plugins-info step_s=${PJDL_PLUGIN_STEP_S:-60}
    mkdir -p "$logs"
    local list=("$@") pass=0 fail=0
    ((${#list[@]})) || mapfile -t list < <(names)
    for name in "${list[@]}"; do
        if info_one "$cli" "$logs" "$name" "$step_s"; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
        fi
    done
    echo "(each plugin's full output: $logs/NAME.out and NAME.err)"
    echo "$pass passed, $fail failed"
    ((fail == 0))
}

case "${1:-}" in
info)
    [[ $# -ge 2 ]] || die "usage: plugins.sh info BUILD_DIR [NAME...]"
    shift
    info_all "$@" || exit 1
    ;;
path)
    [[ $# -eq 2 ]] || die "usage: plugins.sh path NAME"
    lookup "$2"
    echo "$(dir_of)/$lib"
    ;;
install)
    [[ $# -eq 2 ]] || die "usage: plugins.sh install NAME"
    install "$2"
    ;;
runtime)
    [[ $# -eq 2 ]] || die "usage: plugins.sh runtime NAME"
    lookup "$2"
    runtime_of "$2"
    [[ -z "$rt_dir" ]] || echo "$rt_dir/lib"
    ;;
env)
    [[ $# -eq 2 || $# -eq 3 ]] || die "usage: plugins.sh env NAME [BUILD_DIR]"
    lookup "$2"
    env_lines "$2" "${3:-}"
    ;;
*)
    die "usage: plugins.sh path|install|runtime NAME, plugins.sh env NAME [BUILD_DIR], or plugins.sh info BUILD_DIR [NAME...]"
    ;;
esac
