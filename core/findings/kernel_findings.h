#pragma once
// Findings about how the GPU runs its kernels, per trace, over the kernels inside its iteration
// periods (docs/findings.md, "GPU work"):
//   fusion_candidates   chains of three or more element-wise kernels back to back on a stream
//                       between other work: one fused kernel would read and write once
//   occupancy_limited   top kernels held under half the SM's warps by their registers or
//                       shared memory (core/costs/occupancy.h), GEMM and attention kernels aside
//   far_below_roofline  GEMM kernels on Tensor Cores reaching under a quarter of the roof for
//                       their arithmetic intensity (core/reports/roofline.h)
// The three take disjoint kernels (a chain's kernels are not looked at for occupancy; GEMMs
// are not element-wise), and only GPU busy time: idle time is idle_findings.h's.
#include "core/findings/idle_findings.h"
#include "core/reports/roofline.h"

#include <vector>

namespace ls {

// fusion_candidates and occupancy_limited, over the scope's device and process.
std::vector<Finding> kernelFindings(const FindingScope& scope, const IterationWindows& windows);

// far_below_roofline, over the whole trace as the roofline report: `points` is
// roofline(t, RooflineGrouping::Kernel), computed once for every rule that needs it.
std::vector<Finding> farBelowRoofline(const FindingScope& scope, const IterationWindows& windows,
                                      const std::vector<RooflinePoint>& points);

// The kernels of the scope inside the iteration periods: on its device, of its process.
std::vector<uint8_t> kernelsInScope(const FindingScope& scope, const IterationWindows& windows);

// Per kernel of the trace, 1 when it is part of a fusion chain (fusion_candidates).
std::vector<uint8_t> fusionChainKernels(const Trace& t, const std::vector<uint8_t>& inScope);

} // namespace ls
