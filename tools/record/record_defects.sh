#!/bin/bash
# Records defects.py on the GPU machine, each defect under Nsight Systems and the PyTorch profiler:
#   bash record_defects.sh DEFECT...   -> $OUT/defect_D.sqlite, $OUT/defect_D.kineto.json.gz
#   bash record_defects.sh straggler ddp   (2 GPUs) -> defect_D_rank{0,1}.{sqlite,kineto.json.gz}
# No synchronisation after each step: the iterations run back to back as in real training.
set -u
cd "$(dirname "$0")"
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
export LD_LIBRARY_PATH=$PWD/lib:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
OUT=${OUT:-$PWD}
prof() { # name, command...
    local n=$1; shift
    timeout 240 $NSYS profile -t cuda,nvtx,osrt --capture-range=cudaProfilerApi --capture-range-end=stop \
        -f true -o /tmp/$n "$@" > /tmp/$n.log 2>&1
    tail -1 /tmp/$n.log
    [ -f /tmp/$n.nsys-rep ] && timeout 120 $NSYS export --type sqlite -f true -o $OUT/$n.sqlite /tmp/$n.nsys-rep > /dev/null 2>&1
}
for d in "$@"; do
    if [ "$d" = straggler ] || [ "$d" = ddp ]; then
        timeout 240 torchrun --nproc_per_node 2 --no-python bash -c \
            "$NSYS profile -t cuda,nvtx,osrt --capture-range=cudaProfilerApi --capture-range-end=stop -f true -o /tmp/defect_${d}_rank\$RANK python3 defects.py --defect $d" > /tmp/$d.log 2>&1
        tail -2 /tmp/$d.log
        for r in 0 1; do
            [ -f /tmp/defect_${d}_rank$r.nsys-rep ] && timeout 120 $NSYS export --type sqlite -f true \
                -o $OUT/defect_${d}_rank$r.sqlite /tmp/defect_${d}_rank$r.nsys-rep > /dev/null 2>&1
        done
        timeout 200 torchrun --nproc_per_node 2 --no-python bash -c \
            "python3 defects.py --defect $d --mode kineto --out /tmp/defect_${d}_rank\$RANK.kineto.json" > /tmp/${d}_k.log 2>&1
        tail -1 /tmp/${d}_k.log
        for r in 0 1; do gzip -c /tmp/defect_${d}_rank$r.kineto.json > $OUT/defect_${d}_rank$r.kineto.json.gz; done
        continue
    fi
    prof defect_$d python3 defects.py --defect $d
    timeout 200 python3 defects.py --defect $d --mode kineto --out /tmp/defect_$d.kineto.json > /tmp/k_$d.log 2>&1
    tail -1 /tmp/k_$d.log
    [ -f /tmp/defect_$d.kineto.json ] && gzip -c /tmp/defect_$d.kineto.json > $OUT/defect_$d.kineto.json.gz
done
ls -la $OUT
