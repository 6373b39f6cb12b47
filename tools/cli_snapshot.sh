#!/usr/bin/env bash
# Writes every layerscope-cli output over the bundled sample and the shared traces into a folder,
# one file per command, so two builds can be compared byte for byte (a refactor must not move
# a single byte):
#   tools/cli_snapshot.sh build/release/bin/layerscope-cli OUT_DIR
#   diff -r OUT_BEFORE OUT_AFTER
# Load timings are the only varying text; `info` lines with "load" times are dropped.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cli=$(readlink -f "${1:?usage: tools/cli_snapshot.sh CLI OUT_DIR}")
out=${2:?usage: tools/cli_snapshot.sh CLI OUT_DIR}
mkdir -p "$out"
shared=../shared/traces
traces=(resources/sample_gpt2_2layer_fp16_h200.sqlite)
for f in "$shared"/*.sqlite "$shared"/third-party/*.sqlite "$shared"/third-party/*.nvvp "$shared"/third-party/*.sql; do
    [ -f "$f" ] && traces+=("$f")
done
# Every trace of the test suite too (Nsight exports, Kineto and Paddle JSON, the corpus).
while IFS= read -r f; do traces+=("$f"); done < <(find tests/data tests/corpus/data -type f \
    \( -name '*.sqlite' -o -name '*.json' -o -name '*.json.gz' \) 2> /dev/null | sort)
reports=(kern_sum gpukernsum api_sum nvtx_kern_sum nvtx_sum layer_sum op_sum tc_sum layer_tree iter_sum)

run() { # name, args...
    local name=$1
    shift
    "$cli" "$@" > "$out/$name.out" 2> "$out/$name.err"
    echo "exit $?" >> "$out/$name.err"
}

for f in "${traces[@]}"; do
    base=$(basename "$f")
    case "$f" in tests/*) base=$(echo "${f#tests/}" | tr / _) ;; esac
    run "$base.info" info "$f"
    sed -i '/[Ll]oad\(ed\)\? \(in\|time\)\|seconds/d' "$out/$base.info.out"
    run "$base.kernels" kernels "$f"
    run "$base.ops" ops "$f"
    for r in "${reports[@]}"; do run "$base.summary.$r" summary "$f" --report "$r"; done
done
for f in "$shared"/third-party/*.nvvp "$shared"/third-party/*.sql; do
    [ -f "$f" ] && run "$(basename "$f").pyprof" kernels "$f" --pyprof
done
pair=$shared/pair_gpt1layer_fp16_h200
if [ -f "$pair.nsys.sqlite" ]; then
    run pair.ncu.kernels kernels "$pair.nsys.sqlite" --ncu "$pair.ncu.csv"
    run pair.ncu.match summary "$pair.nsys.sqlite" --report ncu_match --ncu "$pair.ncu.csv"
fi
# Sessions: each multi-rank pair and the whole folder, the reports over a session.
for set in ddp_bf16_h200x2_rank fsdp_rank; do
    files=("$shared"/"$set"[0-9]*)
    [ -f "${files[0]}" ] || continue
    for r in rank_sum collective_sum rank_iter_sum kern_sum; do
        run "session.$set.$r" summary "${files[@]}" --report "$r"
    done
done
if [ -d "$shared" ]; then
    for r in rank_sum collective_sum rank_iter_sum kern_sum; do
        run "session.all.$r" summary "$shared" --report "$r"
    done
fi
run sample.layer0 kernels resources/sample_gpt2_2layer_fp16_h200.sqlite --layer layer0 --format table
run sample.filter kernels resources/sample_gpt2_2layer_fp16_h200.sqlite --filter 'duration > 50us and tc = not used' --sort duration --desc
run missing info /nonexistent.sqlite
echo "$(ls "$out" | wc -l) files in $out"
