#!/usr/bin/env bash
# bench_scaling.sh - how the load grows with the trace: `layerscope-cli info --no-cache` on each
# file as a whole process (warm page cache, no model cache), RUNS runs each, medians of the load
# time it reports, the process's wall time and its peak RSS (/usr/bin/time); then each per
# million kernels, which stays flat when the growth is linear. Prints CSV.
#
# Usage: tools/bench_scaling.sh BUILD_DIR FILE [FILE ...]    (files: scale_trace.py copies)
# Env:   RUNS (default 3)
set -euo pipefail

BUILD=${1:?usage: bench_scaling.sh BUILD_DIR FILE...}
shift
RUNS=${RUNS:-3}
CLI="$BUILD/bin/layerscope-cli"
SCRATCH=$(mktemp -d /tmp/bench-scaling.XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "file,kernels,load_s,wall_s,peak_rss_mb,load_s_per_1m_kernels,rss_mb_per_1m_kernels"
for file in "$@"; do
    cat "$file" > /dev/null # into the page cache, as for every run after the first
    : > "$SCRATCH/load"; : > "$SCRATCH/wall"; : > "$SCRATCH/rss"
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f "%e %M" -o "$SCRATCH/time" "$CLI" info --no-cache "$file" > "$SCRATCH/out"
        awk '/^load time:/ {print $3}' "$SCRATCH/out" >> "$SCRATCH/load"
        awk '{print $1}' "$SCRATCH/time" >> "$SCRATCH/wall"
        awk '{print $2 / 1024}' "$SCRATCH/time" >> "$SCRATCH/rss"
    done
    kernels=$(awk '/^kernels:/ {print $2; exit}' "$SCRATCH/out")
    load=$(median < "$SCRATCH/load"); wall=$(median < "$SCRATCH/wall"); rss=$(median < "$SCRATCH/rss")
    awk -v f="$(basename "$file")" -v k="$kernels" -v l="$load" -v w="$wall" -v r="$rss" \
        'BEGIN {printf "%s,%d,%.3f,%.3f,%.1f,%.3f,%.1f\n", f, k, l, w, r, l / (k / 1e6), r / (k / 1e6)}'
done
