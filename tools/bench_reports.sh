#!/usr/bin/env bash
# bench_reports.sh - `layerscope-cli summary --report X` against NVIDIA's `nsys stats -r Y`
# (2022.4) on the same file: whole processes, cold (no Layerscope cache), alternating, RUNS runs
# each, medians of wall time and peak RSS (/usr/bin/time), and their ratios. With FROM_CACHE=1
# Layerscope's side reads the model cache instead (made first by `info` in a scratch
# XDG_CACHE_HOME; a report reads only the columns it needs from it).
#
# Usage: tools/bench_reports.sh BUILD_DIR FILE.sqlite [FILE.sqlite ...]
# Env:   RUNS (default 3), FROM_CACHE (default 0), NSYS (default: the one tools/get_nsys.sh unpacks under /tmp),
#        PAIRS (default "gpukernsum:gpukernsum api_sum:cudaapisum nvtx_kern_sum:nvtxkernsum")
# nsys may add tables to a file it reads: it gets a copy under /tmp, never the given file.
set -euo pipefail

BUILD=${1:?usage: bench_reports.sh BUILD_DIR FILE...}
shift
RUNS=${RUNS:-3}
FROM_CACHE=${FROM_CACHE:-0}
PAIRS=${PAIRS:-"gpukernsum:gpukernsum api_sum:cudaapisum nvtx_kern_sum:nvtxkernsum"}
NSYS=${NSYS:-$("$(dirname "${BASH_SOURCE[0]}")/get_nsys.sh")}
CLI="$BUILD/bin/layerscope-cli"
SCRATCH=$(mktemp -d /tmp/bench-reports.XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT
export XDG_CACHE_HOME="$SCRATCH/xdg"
unset LAYERSCOPE_NO_CACHE
CACHE_FLAG=--no-cache
[ "$FROM_CACHE" = 1 ] && CACHE_FLAG=

# "seconds kilobytes" of one command, its output discarded.
measure() {
    /usr/bin/time -f "%e %M" -o "$SCRATCH/time" "$@" > /dev/null 2> "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; exit 1; }
    cat "$SCRATCH/time"
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

printf '%-28s %-14s %9s %9s %9s %9s %7s %7s\n' file report ls_s nsys_s ls_mb nsys_mb t_ratio m_ratio
for file in "$@"; do
    copy="$SCRATCH/$(basename "$file")"
    cp "$file" "$copy"
    [ "$FROM_CACHE" = 1 ] && "$CLI" info "$file" > /dev/null
    for pair in $PAIRS; do
        ours=${pair%%:*} theirs=${pair##*:}
        : > "$SCRATCH/ls" && : > "$SCRATCH/nsys"
        for ((r = 0; r < RUNS; r++)); do
            measure "$CLI" summary "$file" --report "$ours" $CACHE_FLAG >> "$SCRATCH/ls"
            measure "$NSYS" stats --force-overwrite true -r "$theirs" -f csv -o "$SCRATCH/out" "$copy" >> "$SCRATCH/nsys"
        done
        ls_s=$(cut -d' ' -f1 "$SCRATCH/ls" | median) ns_s=$(cut -d' ' -f1 "$SCRATCH/nsys" | median)
        ls_kb=$(cut -d' ' -f2 "$SCRATCH/ls" | median) ns_kb=$(cut -d' ' -f2 "$SCRATCH/nsys" | median)
        awk -v f="$(basename "$file")" -v r="$ours" -v a="$ls_s" -v b="$ns_s" -v c="$ls_kb" -v d="$ns_kb" \
            'BEGIN {printf "%-28s %-14s %9.2f %9.2f %9.1f %9.1f %7.2f %7.2f\n", f, r, a, b, c / 1024, d / 1024, a / b, c / d}'
    done
    rm -f "$copy"
done
