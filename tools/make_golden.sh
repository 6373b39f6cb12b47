#!/usr/bin/env bash
# make_golden.sh - produce golden CSVs from NVIDIA nsys 2022.4 `nsys stats`.
#
# Downloads Debian 12's non-free package `nsight-systems-target`
# (2022.4.2.1~11.8.0-5~deb12u1) with a PRIVATE apt configuration (the
# system's apt lists/cache/sources are not touched, nothing is installed),
# unpacks it with `dpkg -x`, and runs
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
PKG=nsight-systems-target
PKG_VER=2022.4.2.1~11.8.0-5~deb12u1
REPORTS=(gpukernsum nvtxkernsum cudaapisum gpukernsum:base)

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
NSYS="$NSYS_ROOT/usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64/nsys"
if [ ! -x "$NSYS" ]; then
  mkdir -p "$WORK/sources.list.d" "$WORK/lists/partial" "$WORK/cache/archives/partial"
  rm -f "$WORK"/sources.list.d/*
  # Copy the machine's Debian sources, adding contrib/non-free components.
  n=0
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    grep -qi 'debian' "$f" || continue
    sed -E 's/^(Components:).*/\1 main contrib non-free non-free-firmware/' "$f" \
      > "$WORK/sources.list.d/$(basename "$f")"
    n=$((n + 1))
  done
  if [ -s /etc/apt/sources.list ] && grep -qE '^deb .*debian' /etc/apt/sources.list; then
    grep -E '^deb .*debian' /etc/apt/sources.list |
      sed -E 's/[[:space:]]+main([[:space:]].*)?$/ main contrib non-free non-free-firmware/' \
      > "$WORK/sources.list.d/system.list"
    n=$((n + 1))
  fi
  if [ "$n" -eq 0 ]; then
    cat > "$WORK/sources.list.d/bookworm.list" <<'EOF'
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main contrib non-free non-free-firmware
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-updates main contrib non-free non-free-firmware
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bookworm-security main contrib non-free non-free-firmware
EOF
  fi
  APT_OPTS=(
    -o Dir::Etc::SourceList=/dev/null
    -o Dir::Etc::SourceParts="$WORK/sources.list.d"
    -o Dir::State::Lists="$WORK/lists"
    -o Dir::Cache="$WORK/cache"
    -o APT::Sandbox::User=root
  )
  apt_retry() {  # retry while another apt holds a lock
    local i
    for i in $(seq 1 30); do
      if "$@" 2> "$WORK/apt.err"; then cat "$WORK/apt.err" >&2; return 0; fi
      cat "$WORK/apt.err" >&2
      grep -qiE 'lock' "$WORK/apt.err" || return 1
      echo "apt lock busy, retrying in 10s ($i/30)" >&2; sleep 10
    done
    return 1
  }
  apt_retry apt-get "${APT_OPTS[@]}" -q update
  (cd "$WORK/cache/archives" &&
    { apt_retry apt-get "${APT_OPTS[@]}" -q download "$PKG=$PKG_VER" ||
      apt_retry apt-get "${APT_OPTS[@]}" -q download "$PKG"; })
  deb=$(ls -t "$WORK"/cache/archives/${PKG}_*.deb | head -n1)
  rm -rf "$NSYS_ROOT"; mkdir -p "$NSYS_ROOT"
  dpkg -x "$deb" "$NSYS_ROOT"
fi

# ---------------------------------------------------------------- 2. check
ver=$("$NSYS" --version)
echo "$ver"
case "$ver" in *" 2022.4."*) ;; *) echo "unexpected nsys version: $ver" >&2; exit 1 ;; esac

mkdir -p "$OUT/logs" "$OUT/help"
for r in gpukernsum nvtxkernsum cudaapisum cuda_gpu_kern_sum cuda_api_sum nvtx_kern_sum; do
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
