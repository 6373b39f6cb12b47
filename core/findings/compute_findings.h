#pragma once
// Findings about the GPU work itself, per trace: math that could run on Tensor Cores and does not
// (no_tensor_cores, from the roofline report's points), and iterations far slower than the rest
// (slow_iteration, from the iter_sum report's outliers, with the kernels that take the extra time
// against a typical iteration, or its longest GPU gap and what the host was doing).
#include "core/findings/idle_findings.h"
#include "core/reports/roofline.h"

namespace ls {

// `points`: roofline(t, RooflineGrouping::Kernel), computed once for every rule that needs it.
// `idle`: the trace's gaps, for what the host did in an outlier that idles more.
std::vector<Finding> computeFindings(const FindingScope& scope, const IterationWindows& windows,
                                     const GpuIdle& idle, const std::vector<RooflinePoint>& points);

} // namespace ls
