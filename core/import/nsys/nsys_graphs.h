#pragma once
// CUDA graphs in an Nsight Systems export. With --cuda-graph-trace=graph each graph launch is one
// CUPTI_ACTIVITY_KIND_GRAPH_TRACE row, read here and added as one GPU item in the kernel columns;
// with --cuda-graph-trace=node each replayed kernel carries its graphNodeId, and
// CUDA_GRAPH_NODE_EVENTS says which node each one was cloned from at instantiation and when
// (and on which thread) the original node was created: inside the launch call made during stream
// capture, which gives the replayed kernel its op and ranges (core/pytorch/graph_replay.h).
#include "core/model/trace.h"

#include <cstdint>
#include <vector>

namespace ls {

class SqliteSource;

// One CUPTI_ACTIVITY_KIND_GRAPH_TRACE row.
struct NsysGraphLaunchRow {
    int64_t start = 0, end = 0;
    uint32_t device = 0, context = 0, stream = 0, correlation = 0;
    int64_t globalPid = 0;
    uint32_t graph = 0, exec = 0;
};

// The graph-trace rows, by start; empty when the export has none.
std::vector<NsysGraphLaunchRow> readNsysGraphLaunches(const SqliteSource& db, LoadReport& report);

// The name a graph launch's GPU item takes in the kernel columns.
std::string graphLaunchItemName(uint32_t graph);

// After assembly: marks the graph-launch items and gives each replayed kernel with a node id its
// node, original node and the capture-time launch call that created the original node. Leaves
// t.kernelGraph empty when the export has neither.
void linkNsysGraphNodes(const SqliteSource& db, const std::vector<NsysGraphLaunchRow>& launches,
                        Trace& t);

} // namespace ls
