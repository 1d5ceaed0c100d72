#!/usr/bin/env bash
# Fails when a C, C++ or header file of the repository drifts from
# .clang-format (`make format` fixes it). Run first by `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' 2>/dev/null || true)
if [[ ${#files[@]} -eq 0 ]]; then
    # Not a git checkout (a source archive): every source file of the tree.
    mapfile -t files < <(find include src plugin tools python tests bench fuzz examples \
        \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) -type f)
fi
if ! out=$(clang-format --dry-run -Werror "${files[@]}" 2>&1); then
    grep -E '^[^ ].*: error:' <<<"$out" | cut -d: -f1 | sort -u |
        sed 's/^/format: drifts from .clang-format: /' >&2
    echo "format: run 'make format' and commit the result" >&2
    exit 1
fi
echo "format: ${#files[@]} files match .clang-format"
