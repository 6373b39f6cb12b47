#!/usr/bin/env bash
# Checks that every C++ source git tracks is formatted as .clang-format says (the `format` ctest).
#   tools/check_format.sh          list the files clang-format would change; exit 1 if any
#   tools/check_format.sh --fix    reformat them in place
#   tools/check_format.sh --self-test   proves the check fails on a file clang-format would change
# Exit 77 (skipped) when clang-format is not installed: formatting is checked where it is.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fmt=$(command -v clang-format-14 || command -v clang-format) || { echo "clang-format not installed: not checked"; exit 77; }
if [ "${1:-}" = "--self-test" ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    cp .clang-format "$work/"
    printf 'int  f( int x ){return x;}\n' > "$work/bad.cpp"
    if "$fmt" --dry-run --Werror "$work/bad.cpp" >/dev/null 2>&1; then
        echo "self-test failed: an unformatted file passed"
        exit 1
    fi
    echo "self-test passed: an unformatted file is reported"
    exit 0
fi
mapfile -t files < <(git ls-files '*.cpp' '*.h' 2>/dev/null)
[ ${#files[@]} -gt 0 ] || { echo "no tracked sources (not a git checkout?): not checked"; exit 77; }
if [ "${1:-}" = "--fix" ]; then
    "$fmt" -i "${files[@]}"
    exit 0
fi
# One run over all files; each difference is reported as "FILE:LINE:COL: error: ...".
mapfile -t bad < <("$fmt" --dry-run --Werror "${files[@]}" 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
if [ ${#bad[@]} -gt 0 ]; then
    printf 'not formatted (%s: tools/check_format.sh --fix):\n' "$($fmt --version | head -1)"
    printf '  %s\n' "${bad[@]}"
    exit 1
fi
echo "${#files[@]} files formatted as .clang-format says"
