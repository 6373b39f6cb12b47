#pragma once
// Findings about the GPU work itself, per trace: math that could run on Tensor Cores and does not
// (no_tensor_cores, from the roofline report's points), and iterations far slower than the rest
// (slow_iteration, from the iter_sum report's outliers).
#include "core/findings/idle_findings.h"

namespace ls {

std::vector<Finding> computeFindings(const FindingScope& scope, const IterationWindows& windows);

} // namespace ls
