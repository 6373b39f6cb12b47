#!/usr/bin/env bash
# Runs clang-tidy with the project's .clang-tidy over core/, widgets/ and app/:
#   tools/tidy.sh [BUILD_DIR] [PATH_REGEX]
# BUILD_DIR must be configured (it needs compile_commands.json; default build/dev). Exits 1 when
# clang-tidy reports anything. Needs Debian's clang-tidy (apt-get install clang-tidy).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${1:-build/dev}
filter=${2:-'/(core|widgets|app)/.*\.cpp$'}
[ -f "$build/compile_commands.json" ] || { echo "error: $build/compile_commands.json not found: configure first" >&2; exit 2; }
command -v run-clang-tidy >/dev/null || { echo "error: run-clang-tidy not found (apt-get install clang-tidy)" >&2; exit 2; }
# Generated moc/rcc files are not ours; -quiet keeps the summary lines out.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
run-clang-tidy -quiet -p "$build" -j "$(nproc)" "$filter" > "$out" 2>&1 || true
# clang-tidy 14 colours its output even into a pipe: strip the escapes before matching.
sed 's/\x1b\[[0-9;]*m//g' "$out" | grep -E '^/.*: (warning|error):' | grep -v '_autogen/' | sort -u > "$out.found" || true
count=$(wc -l < "$out.found")
cat "$out.found"
rm -f "$out.found"
echo "clang-tidy: $count finding(s)"
[ "$count" -eq 0 ]
