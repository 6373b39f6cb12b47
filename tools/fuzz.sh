#!/usr/bin/env bash
# The long fuzz run of one target (fuzz/README.md): builds the `fuzz` preset (clang, libFuzzer,
# ASan + UBSan) when needed, then runs libFuzzer on a copy of the target's corpus in /tmp, so the
# corpus in the repository only ever gets the inputs you choose to add.
#
#   tools/fuzz.sh TARGET [SECONDS] [-- LIBFUZZER_OPTION...]
#
# TARGET: pytorch_marker, dict_marker, ncu_csv, kernel_filter, nvprof_names or kineto_json (fuzz_ prefix
# optional). SECONDS: default 600. LAYERSCOPE_BUILD_WRAPPER, if set, is put before each cmake
# command (e.g. "flock /tmp/build.lock" on a machine shared with other builds).
# Exit status: libFuzzer's (0: nothing found in the time given).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

targets=(pytorch_marker dict_marker ncu_csv kernel_filter nvprof_names kineto_json)
usage() {
    echo "usage: tools/fuzz.sh TARGET [SECONDS] [-- LIBFUZZER_OPTION...]; targets: ${targets[*]}" >&2
    exit 2
}
[ $# -ge 1 ] || usage
target=${1#fuzz_}
shift
seconds=600
if [ $# -ge 1 ] && [ "$1" != "--" ]; then
    seconds=$1
    shift
fi
[ $# -ge 1 ] && [ "$1" = "--" ] && shift
[[ " ${targets[*]} " == *" $target "* ]] || usage
[[ "$seconds" =~ ^[0-9]+$ ]] || usage

# clang and its libFuzzer runtime (Debian 12: clang, libclang-rt-14-dev).
if ! command -v clang++ >/dev/null; then
    echo "error: clang++ not found; install it: apt-get install --no-install-recommends clang libclang-rt-14-dev" >&2
    exit 3
fi
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
        clang++ -x c++ -fsanitize=fuzzer -o /dev/null - 2>/dev/null; then
    echo "error: clang++ cannot link -fsanitize=fuzzer; install libclang-rt-14-dev (or your clang's compiler-rt)" >&2
    exit 3
fi

read -r -a wrap <<< "${LAYERSCOPE_BUILD_WRAPPER:-}"
[ -f build/fuzz/build.ninja ] || "${wrap[@]}" cmake --preset fuzz
"${wrap[@]}" cmake --build --preset fuzz --target "fuzz_$target"

work=$(mktemp -d "/tmp/layerscope-fuzz-$target.XXXXXX")
mkdir -p "$work/corpus" "$work/artifacts"
cp -R "fuzz/corpus/$target/." "$work/corpus/"
echo "fuzz_$target: ${seconds}s on $work/corpus; findings go to $work/artifacts/"
status=0
"build/fuzz/bin/fuzz_$target" "$work/corpus" \
    -dict="fuzz/dict/$target.dict" -artifact_prefix="$work/artifacts/" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$@" || status=$?
echo
if [ -n "$(ls -A "$work/artifacts")" ]; then
    echo "findings (reproduce: build/fuzz/bin/fuzz_$target FILE; then fix, and add the file as"
    echo "fuzz/corpus/$target/regress-NAME plus a GoogleTest case):"
    ls -l "$work/artifacts"
else
    echo "no findings; the grown corpus is in $work/corpus"
fi
exit "$status"
