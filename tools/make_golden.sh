#!/usr/bin/env bash
# make_golden.sh - produce golden CSVs from NVIDIA nsys 2022.4 `nsys stats`.
#
# Gets Debian 12's non-free package `nsight-systems-target`
# (2022.4.2.1~11.8.0-5~deb12u1) through tools/get_nsys.sh (a PRIVATE apt
# configuration: the system's apt lists/cache/sources are not touched, nothing
# is installed; unpacked with `dpkg -x`), and runs
#   nsys stats -r <report> -f csv
# on COPIES of each trace (originals are never handed to nsys).
#
# Output: $OUT/<trace-basename-without-.sqlite>.<report>.csv
#         ($OUT/...gpukernsum_base.csv for `gpukernsum:base`)
#         $OUT/logs/<trace>.<report>.log  (nsys stdout+stderr, rc)
#         $OUT/help/<report>.txt          (nsys stats --help-reports <report>)
#         $OUT/sha256.txt                 (copy's sha256 before/after nsys)
#
# Usage: make_golden.sh [trace.sqlite ...]
# Env:   OUT (default /tmp/golden), WORK (default /tmp/nsys-apt),
#        NSYS_ROOT (default /tmp/nsys-2022.4), TRACES_DIR (default ../shared/traces beside the checkout)
#        Copy the CSVs into tests/data/golden/ to update the golden files.
# Requires: Debian 12 (bookworm), root or write access to WORK, apt-get, dpkg.
set -euo pipefail

OUT=${OUT:-/tmp/golden}
WORK=${WORK:-/tmp/nsys-apt}
NSYS_ROOT=${NSYS_ROOT:-/tmp/nsys-2022.4}
TRACES_DIR=${TRACES_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/shared/traces}
REPORTS=(gpukernsum nvtxkernsum cudaapisum gpukernsum:base gpumemtimesum gpumemsizesum gpusum kernexecsum nvtxgpuproj gputrace cudaapitrace)

if [ "$#" -gt 0 ]; then
  TRACES=("$@")
else
  TRACES=(
    "$TRACES_DIR/gpt2_2layer_fp16_h200.sqlite"
    "$TRACES_DIR/ddp_bf16_h200x2_rank0.sqlite"
    "$TRACES_DIR/ddp_bf16_h200x2_rank1.sqlite"
    "$TRACES_DIR/pair_gpt1layer_fp16_h200.nsys.sqlite"
    "$TRACES_DIR/third-party/saxpy_mpi_perlmutter.nsys.sqlite"
    "$TRACES_DIR/third-party/cloverleaf_perlmutter.nsys.sqlite"
  )
fi

# ---------------------------------------------------------------- 1. fetch
# tools/get_nsys.sh holds the private-apt download (shared with the .nsys-rep test data).
NSYS=$(WORK="$WORK" NSYS_ROOT="$NSYS_ROOT" "$(dirname "${BASH_SOURCE[0]}")/get_nsys.sh")

# ---------------------------------------------------------------- 2. check
ver=$("$NSYS" --version)
echo "$ver"
case "$ver" in *" 2022.4."*) ;; *) echo "unexpected nsys version: $ver" >&2; exit 1 ;; esac

mkdir -p "$OUT/logs" "$OUT/help"
for r in gpukernsum nvtxkernsum cudaapisum cuda_gpu_kern_sum cuda_api_sum nvtx_kern_sum nvtxgpuproj gputrace cudaapitrace; do
  "$NSYS" stats --help-reports "$r" > "$OUT/help/$r.txt" 2>&1 || true
done

# ---------------------------------------------------------------- 3/4. run
SCRATCH=$(mktemp -d /tmp/nsys-golden.XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT
: > "$OUT/sha256.txt"
for src in "${TRACES[@]}"; do
  base=$(basename "$src"); base=${base%.sqlite}
  mkdir -p "$SCRATCH/$base"
  copy="$SCRATCH/$base/$base.sqlite"
  cp "$src" "$copy"; chmod u+w "$copy"
  before=$(sha256sum < "$copy" | cut -d' ' -f1)
  for rep in "${REPORTS[@]}"; do
    tag=${rep//:/_}
    log="$OUT/logs/$base.$tag.log"
    rm -f "$SCRATCH/$base"/out_*.csv "$OUT/$base.$tag.csv"
    set +e
    (cd "$SCRATCH/$base" &&
      "$NSYS" stats --force-overwrite true -r "$rep" -f csv -o "$SCRATCH/$base/out" "$copy") > "$log" 2>&1
    rc=$?
    set -e
    echo "rc=$rc" >> "$log"
    produced=$(ls "$SCRATCH/$base"/out_*.csv 2>/dev/null | head -n1 || true)
    if [ -n "$produced" ]; then
      mv "$produced" "$OUT/$base.$tag.csv"
      echo "$base.$tag.csv: $(($(wc -l < "$OUT/$base.$tag.csv") - 1)) rows"
    else
      echo "$base.$tag: NO CSV -- $(grep -v '^$' "$log" | tr '\n' ' ')"
    fi
  done
  after=$(sha256sum < "$copy" | cut -d' ' -f1)
  extra=$(ls -A "$SCRATCH/$base" | grep -vx "$base.sqlite" || true)
  echo "$base before=$before after=$after $([ "$before" = "$after" ] && echo UNCHANGED || echo MODIFIED) extra_files=[${extra//$'\n'/ }]" >> "$OUT/sha256.txt"
done
cat "$OUT/sha256.txt"
