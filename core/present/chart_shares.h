#pragma once
// What the Summary tab's four charts plot, computed off the GUI thread (a million kernels take
// ~0.1 s): top kernels by GPU time, GPU time per layer, by direction and by Tensor Core state,
// each bar with the kernel filter that shows its kernels.
#include "core/model/trace.h"
#include "core/reports/summary.h"
#include "core/views/time_breakdown.h"

#include <cstddef>
#include <vector>

namespace ls {

// Bars a chart shows at most; the top kernels are the first this many rows of the summary.
inline constexpr size_t kChartBars = 8;

struct ChartShares {
    std::vector<TimeShare> topKernels, byLayer, byDirection, byTensorCores;
};
// summary: kernelSummary(t, KernelGrouping::Name, KernelNaming::Demangled).
ChartShares chartShares(const Trace& t, const std::vector<SummaryRow>& summary);

} // namespace ls
