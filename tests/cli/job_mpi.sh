#!/usr/bin/env bash
# The job_mpi test: `layerscope-cli job` under `mpirun --oversubscribe -np 3` writes the same job
# file as one process, and a damaged trace among the inputs becomes a rank holding its error.
#   tests/cli/job_mpi.sh LAYERSCOPE_CLI
# Exit 0 when both agree, 1 otherwise, 77 (skipped) when mpirun is absent or the CLI was built
# without MPI (tools/setup.sh installs Open MPI, so CI runs it).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
cli=${1:?usage: tests/cli/job_mpi.sh LAYERSCOPE_CLI}
command -v mpirun >/dev/null || { echo "skipped: mpirun not found (apt-get install openmpi-bin)"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/layerscope-job-mpi.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache" LAYERSCOPE_NO_CACHE=1
# Open MPI in a container: no cross-memory attach between processes, shared memory and self only.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
# Open MPI keeps some allocations until exit: LeakSanitizer (dev preset) would fail every process.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
mpirun=(mpirun --oversubscribe --bind-to none -np 3)
[ "$(id -u)" -eq 0 ] && mpirun+=(--allow-run-as-root)

# Without MPI built in, the CLI refuses to run under mpirun: nothing to compare.
if "${mpirun[@]}" "$cli" job resources/sample_gpt2_2layer_fp16_h200.sqlite -o "$work/probe.lsjob" \
        2>&1 | grep -q "built without MPI"; then
    echo "skipped: $cli was built without MPI (no MPI found at configure time)"
    exit 77
fi

failed=0
fail() { echo "FAIL: $*"; failed=1; }

# check NAME STATUS INPUT...: one process and three MPI processes over the same inputs exit with
# STATUS and write the same job file, whose reports are those of the session of the traces.
check() {
    local name=$1 status=$2
    shift 2
    local single="$work/$name.single.lsjob" mpi="$work/$name.mpi.lsjob"
    "$cli" job "$@" -o "$single" 2> "$work/$name.single.err"
    local rc1=$?
    "${mpirun[@]}" "$cli" job "$@" -o "$mpi" > "$work/$name.mpi.out" 2> "$work/$name.mpi.err"
    local rc2=$?
    echo "$name: single process exit $rc1, mpirun -np 3 exit $rc2"
    if [ "$rc1" -ne "$status" ] || [ "$rc2" -ne "$status" ] || [ ! -f "$single" ] || [ ! -f "$mpi" ]; then
        fail "$name: job exited $rc1 (one process) and $rc2 (mpirun), want $status and a job file"
        tail -5 "$work/$name.single.err" "$work/$name.mpi.err"
        return
    fi
    grep -q "over 3 MPI processes" "$work/$name.mpi.err" || fail "$name: the MPI run did not use 3 processes"
    if cmp -s "$single" "$mpi"; then
        echo "$name: job files byte-identical ($(wc -c < "$mpi") bytes)"
    else
        fail "$name: the job files differ"
    fi
    for report in rank_sum collective_sum rank_iter_sum kern_sum; do
        "$cli" summary "$single" --report "$report" > "$work/$name.$report.single" 2>&1
        "$cli" summary "$mpi" --report "$report" > "$work/$name.$report.mpi" 2>&1
        "$cli" summary "$@" --report "$report" > "$work/$name.$report.session" 2>&1
        if ! diff -u "$work/$name.$report.single" "$work/$name.$report.mpi" > "$work/$name.$report.diff"; then
            fail "$name: summary --report $report differs between the two job files"
            head -20 "$work/$name.$report.diff"
        elif ! diff -u "$work/$name.$report.session" "$work/$name.$report.mpi" > "$work/$name.$report.diff"; then
            fail "$name: summary --report $report of the job file differs from the session's"
            head -20 "$work/$name.$report.diff"
        fi
    done
}

# Five ranks of one sample, and one damaged (truncated) trace among them.
ranks="$work/ranks"
mkdir -p "$ranks"
for r in 0 1 2 3 4; do cp resources/sample_gpt2_2layer_fp16_h200.sqlite "$ranks/rank$r.sqlite"; done
head -c 200000 resources/sample_gpt2_2layer_fp16_h200.sqlite > "$ranks/rank5.sqlite"
check ranks 3 "$ranks"
grep -q "^error: .*rank5.sqlite: truncated" "$work/ranks.mpi.err" \
    || fail "ranks: job did not report the damaged rank5.sqlite"
grep -q "^error: .*rank5.sqlite: truncated" "$work/ranks.rank_sum.mpi" \
    || fail "ranks: summary of the job file does not report the damaged rank5.sqlite"
[ "$(grep -c '^[0-9]' "$work/ranks.rank_sum.mpi")" -eq 5 ] \
    || fail "ranks: rank_sum of the job file should have the 5 readable ranks"

# The real two-rank DDP recording, when the shared traces are here (one process gets no file).
ddp=../shared/traces
if [ -f "$ddp/ddp_bf16_h200x2_rank0.sqlite" ] && [ -f "$ddp/ddp_bf16_h200x2_rank1.sqlite" ]; then
    check ddp 0 "$ddp/ddp_bf16_h200x2_rank0.sqlite" "$ddp/ddp_bf16_h200x2_rank1.sqlite"
else
    echo "ddp: skipped, ../shared/traces has no ddp_bf16_h200x2_rank*.sqlite"
fi

[ "$failed" -eq 0 ] && echo "job under mpirun -np 3 equals the single-process job"
exit "$failed"
