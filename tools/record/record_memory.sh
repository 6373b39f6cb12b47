#!/bin/bash
# Records train.py with GPU memory on the GPU machine, in both profilers:
#   bash record_memory.sh NAME [train.py arguments...]
# gives $OUT/NAME.sqlite (Nsight Systems, --cuda-memory-usage=true: the CUDA allocations the
# caching allocator makes), $OUT/NAME.kineto.json.gz (the PyTorch profiler, profile_memory=True:
# every allocation and free of the caching allocator with its totals) and $OUT/NAME.peaks.txt (what
# each run printed of torch.cuda's peaks over its recorded window).
set -u
cd "$(dirname "$0")"
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
export LD_LIBRARY_PATH=$PWD/lib:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1
OUT=${OUT:-$PWD}
n=$1; shift
timeout 280 $NSYS profile -t cuda,nvtx,osrt --cuda-memory-usage=true --capture-range=cudaProfilerApi \
    --capture-range-end=stop -f true -o /tmp/$n python3 train.py --mode nvtx --memory "$@" > /tmp/$n.log 2>&1
tail -2 /tmp/$n.log
[ -f /tmp/$n.nsys-rep ] && timeout 120 $NSYS export --type sqlite -f true -o $OUT/$n.sqlite /tmp/$n.nsys-rep > /dev/null 2>&1
timeout 200 python3 train.py --mode kineto --memory --out /tmp/$n.kineto.json "$@" > /tmp/k_$n.log 2>&1
tail -2 /tmp/k_$n.log
[ -f /tmp/$n.kineto.json ] && gzip -c /tmp/$n.kineto.json > $OUT/$n.kineto.json.gz
{ echo "nsys run:"; grep '^memory' /tmp/$n.log; echo "kineto run:"; grep '^memory' /tmp/k_$n.log; } > $OUT/$n.peaks.txt
cat $OUT/$n.peaks.txt
ls -la $OUT
