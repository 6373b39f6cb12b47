#pragma once
// CUDA graph replay, for every input format: which kernels a graph launch call replayed, how each
// found its CPU context (Trace::kernelGraph, Trace::contextCall), the index from a capture-time
// launch call to the kernels its node ran, and the load-report entries that count them.
#include "core/model/trace.h"

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

} // namespace ls
