#pragma once
// CUDA graph replay, for every input format: which kernels a graph launch call replayed, how each
// found its CPU context (Trace::kernelGraph, Trace::contextCall), the index from a capture-time
// launch call to the kernels its node ran, and the load-report entries that count them.
#include "core/model/trace.h"

#include <string>
#include <string_view>

namespace ls {

// True for the API calls that launch a whole graph (cudaGraphLaunch, cuGraphLaunch): used to
// label their kernels, never to join them (that is by correlation id, as for any launch).
bool isGraphLaunchCall(std::string_view apiName);

// Before correlation: kernels of a graph launch that the importer gave no capture call are
// attributed to the launch (GraphAttribution::AroundLaunch); builds t.captureKernels and counts
// graph launches, nodes and how their kernels were attributed in the load report.
void markGraphReplays(Trace& t);

// After correlation: counts the kernels of a trace with graph launches that have no op, layer or
// range, and their share of GPU time, in the load report.
void reportGraphAttribution(Trace& t);

// Kernel k's graph as the kernel table's Graph column and Details say it: "graph 2 node 17",
// "graph 2 node 17 (launch op)" where the capture is not in the trace, "graph launch (launch op)"
// without node ids, "graph 1 (whole launch)" for a graph-trace item; empty for other kernels.
std::string graphLabel(const Trace& t, size_t k);

} // namespace ls
