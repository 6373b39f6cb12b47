#!/usr/bin/env bash
# bench_session.sh BUILD_DIR DIR: a session of every trace in DIR against its files loaded alone.
#   - memory: peak RSS of `layerscope-cli info DIR` against the sum of `layerscope-cli info FILE`
#     over the files (each its own process; also with the CLI's own baseline RSS taken off each);
#   - time: `layerscope-bench --session DIR` (session load against the sum of the single-thread
#     floors divided by the cores, medians of 3, and the Ranks timeline's frame times).
# Make a large job with tools/make_rank_copies.py under /tmp first.
set -euo pipefail
build=$1 dir=$2
cli=$build/bin/layerscope-cli bench=$build/bin/layerscope-bench
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
base=$(rss "$cli" --version)
sum=0 files=0
for f in "$dir"/*; do
    case "$f" in *.sqlite|*.nvvp|*.json|*.json.gz) ;; *) continue ;; esac
    sum=$((sum + $(rss "$cli" info "$f"))); files=$((files + 1))
done
session=$(rss "$cli" info "$dir")
awk -v s="$session" -v sum="$sum" -v n="$files" -v b="$base" 'BEGIN {
    printf "files %d\nsession peak RSS %.1f MB; single files %.1f MB in all: ratio %.3f\n", n, s/1024, sum/1024, s/sum;
    printf "without the CLI baseline (%.1f MB a process): %.1f MB vs %.1f MB: ratio %.3f\n", b/1024, (s-b)/1024, (sum-n*b)/1024, (s-b)/(sum-n*b) }'
"$bench" --session "$dir" --runs 3
