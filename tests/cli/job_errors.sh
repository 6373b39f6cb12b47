#!/usr/bin/env bash
# The job_errors test: `layerscope-cli job` refuses what it cannot do with one `error:` line,
# a non-zero exit status, and without writing anything.
#   tests/cli/job_errors.sh LAYERSCOPE_CLI
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
cli=${1:?usage: tests/cli/job_errors.sh LAYERSCOPE_CLI}

work=$(mktemp -d "${TMPDIR:-/tmp}/layerscope-job-errors.XXXXXX")
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache" LAYERSCOPE_NO_CACHE=1
# Not under a launcher, whatever started this test.
unset OMPI_COMM_WORLD_SIZE PMI_SIZE PMIX_SIZE MV2_COMM_WORLD_SIZE SLURM_STEP_NUM_TASKS
mkdir -p "$work/ranks" "$work/empty" "$work/log"
cp resources/sample_gpt2_2layer_fp16_h200.sqlite "$work/ranks/rank0.sqlite"
failed=0

# expect NAME STATUS PATTERN -- ARGS...: exit status STATUS, exactly one stderr line, an
# `error:` line matching PATTERN, nothing on stdout, and the folders unchanged.
expect() {
    local name=$1 status=$2 pattern=$3
    shift 4
    local before after
    before=$(cd "$work" && find . \( -path ./cache -o -path ./log \) -prune -o -print | sort)
    "$cli" job "$@" > "$work/log/out" 2> "$work/log/err"
    local rc=$?
    after=$(cd "$work" && find . \( -path ./cache -o -path ./log \) -prune -o -print | sort)
    local lines
    lines=$(wc -l < "$work/log/err")
    if [ "$rc" -ne "$status" ] || [ "$lines" -ne 1 ] || ! grep -qE "^error: .*$pattern" "$work/log/err" \
            || [ -s "$work/log/out" ] || [ "$before" != "$after" ]; then
        echo "FAIL: $name: exit $rc (want $status), $lines stderr lines, stderr:"
        sed 's/^/  /' "$work/log/err"
        [ "$before" != "$after" ] && echo "  and the folders changed: $(diff <(echo "$before") <(echo "$after") | tr '\n' ' ')"
        failed=1
    else
        echo "ok: $name: $(cat "$work/log/err")"
    fi
}

expect "missing -o" 2 "needs -o" -- "$work/ranks"
expect "-o is an input" 2 "is one of the traces" -- "$work/ranks" -o "$work/ranks/rank0.sqlite"
expect "-o is an input, by another name" 2 "is one of the traces" -- \
    "$work/ranks/rank0.sqlite" -o "$work/ranks/../ranks/rank0.sqlite"
expect "-o is a folder" 2 "is a folder" -- "$work/ranks" -o "$work/ranks"
expect "no trace in the folder" 3 "holds no trace files" -- "$work/empty" -o "$work/job.lsjob"
expect "a folder that does not exist" 3 "does not exist" -- "$work/ranks" -o "$work/nowhere/job.lsjob"
expect "bad --threads" 2 "--threads" -- "$work/ranks" -o "$work/job.lsjob" --threads many
if [ "$(id -u)" -ne 0 ]; then
    mkdir "$work/readonly" && chmod a-w "$work/readonly"
    expect "unwritable folder" 3 "cannot write" -- "$work/ranks" -o "$work/readonly/job.lsjob"
elif [ -d /proc/self ]; then # root writes anywhere but in /proc
    expect "unwritable folder" 3 "cannot write" -- "$work/ranks" -o /proc/layerscope-job.lsjob
fi

# The inputs are read, never written: the trace is unchanged and nothing appeared beside it.
cmp -s resources/sample_gpt2_2layer_fp16_h200.sqlite "$work/ranks/rank0.sqlite" \
    || { echo "FAIL: the input trace changed"; failed=1; }
[ "$failed" -eq 0 ] && echo "job errors: all refused with one line"
exit "$failed"
