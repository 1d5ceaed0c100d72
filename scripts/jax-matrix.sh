#!/usr/bin/env bash
# `make jax-matrix`: for every JAX release of scripts/jax-matrix.txt (or the
# releases given), install its pinned environment unless present
# (scripts/jax-env.sh), run the suite of tests/python/jax in it, and write
# the support table of python/README.md, one row per release from the same
# kind of run (tests/python/jax/jax_child.py --row), to BUILD/jax-matrix.md.
# Then, per release, bench/bench_jax.py --summary: the cost of
# pjrt_dlpack.jax.export(x) into numpy.from_dlpack against JAX's own export
# (per-round medians, 16x16 f32 on JAX's cpu; the target is <= 1.5x on
# every release, bench/README.md), printed as a table, not judged: timings
# are no test. Prints "N passed, N failed"; fails if any release failed.
#
#   jax-matrix.sh BUILD [RELEASE...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=$(cd "${1:?usage: jax-matrix.sh BUILD [RELEASE...]}" && pwd)
shift
releases=("$@")
[[ ${#releases[@]} -ne 0 ]] || mapfile -t releases < <(bash "$here/jax-env.sh" releases all)
plugin="$build/lib/libpjrt_ref.so"
[[ -f "$plugin" && -d "$build/python/pjrt_dlpack" ]] || {
    echo "jax-matrix.sh: build $build first (the reference plugin and the module)" >&2
    exit 2
}
export PYTHONPATH="$build/python" PJRT_REF_PLUGIN="$plugin" PYTHONDONTWRITEBYTECODE=1
table="$build/jax-matrix.md"
ratios="$build/jax-matrix-bench.tsv"
passed=0
failed=()
: >"$table"
: >"$ratios"
for release in "${releases[@]}"; do
    bash "$here/jax-env.sh" install "$release"
    python=$(bash "$here/jax-env.sh" python "$release")
    echo "== JAX $release"
    if (cd "$root/tests/python/jax" && "$python" -m pytest -q -p no:cacheprovider .); then
        passed=$((passed + 1))
    else
        failed+=("$release")
    fi
    header=""
    [[ -s "$table" ]] || header=1
    PJDL_TABLE_HEADER=$header "$python" "$root/tests/python/jax/jax_child.py" "$plugin" --row \
        >>"$table" 2>/dev/null || echo "| $release | the child failed |" >>"$table"
    "$python" "$root/bench/bench_jax.py" --plugin "$plugin" --summary --rounds 11 \
        >>"$ratios" 2>/dev/null || echo -e "jax\t$release\tthe benchmark failed\t" >>"$ratios"
done
cat "$table"
echo "pjrt_dlpack.jax.export(x) into numpy.from_dlpack / JAX's own (target <= 1.5x):"
awk -F'\t' '$1 == "jax" { printf "  JAX %-26s %sx\n", $2, $3 }' "$ratios"
summary="jax-matrix: $passed passed, ${#failed[@]} failed"
[[ ${#failed[@]} -eq 0 ]] || summary+=" (${failed[*]})"
echo "$summary; table in $table"
[[ ${#failed[@]} -eq 0 ]]
