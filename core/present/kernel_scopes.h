#pragma once
// What a click in the window scopes the kernel table and the timeline to, computed without Qt:
// a layer's kernels (on the shown trace, or on every rank of the all-ranks table) and the GPU
// span a clicked NVTX range projects onto.
#include "core/model/trace.h"
#include "core/present/rank_analysis.h"

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace ls {

// The session rows of every kernel of the layer named `layer`, forward and backward, on every
// trace of the all-ranks table (a trace without such a layer adds none), in trace order.
std::vector<KernelId> layerRowsOnEveryRank(const AllRanksView& all, std::string_view layer);

// From the first kernel's start to the last one's end among `kernels` (ns on the trace's clock,
// wherever on the GPU they ran); nullopt for none.
std::optional<std::pair<double, double>> gpuSpanOf(const Trace& t,
                                                   const std::vector<KernelId>& kernels);

} // namespace ls
