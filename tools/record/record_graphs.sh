#!/bin/bash
# Records the CUDA Graph and torch.compile traces of graphs.py on the GPU machine:
#   bash record_graphs.sh RUN...   (RUN: eager, graph, compile; default all three)
# Each RUN gives $OUT/graphs_RUN_nodes.sqlite and graphs_RUN_graph.sqlite (Nsight Systems with
# --cuda-graph-trace=node and =graph; eager only the first) and graphs_RUN.kineto.json.gz (the
# PyTorch profiler). The Nsight Systems CLI is the one of the Nsight Compute bundle (README.md).
set -u
cd "$(dirname "$0")"
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
export LD_LIBRARY_PATH=$PWD/lib:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1
OUT=${OUT:-$PWD}
runs=("$@"); [ ${#runs[@]} -gt 0 ] || runs=(eager graph compile)
for run in "${runs[@]}"; do
    modes=(node graph); [ "$run" = eager ] && modes=(node)
    for m in "${modes[@]}"; do
        n=graphs_${run}_$( [ $m = node ] && echo nodes || echo graph )
        timeout 280 $NSYS profile -t cuda,nvtx,osrt --cuda-graph-trace=$m --capture-range=cudaProfilerApi \
            --capture-range-end=stop -f true -o /tmp/$n python3 graphs.py --run $run --mode nvtx > /tmp/$n.log 2>&1
        tail -2 /tmp/$n.log
        [ -f /tmp/$n.nsys-rep ] && timeout 120 $NSYS export --type sqlite -f true -o $OUT/$n.sqlite /tmp/$n.nsys-rep > /dev/null 2>&1
    done
    timeout 200 python3 graphs.py --run $run --mode kineto --out /tmp/graphs_$run.kineto.json > /tmp/k_$run.log 2>&1
    tail -2 /tmp/k_$run.log
    [ -f /tmp/graphs_$run.kineto.json ] && gzip -c /tmp/graphs_$run.kineto.json > $OUT/graphs_$run.kineto.json.gz
done
ls -la $OUT
