#pragma once
// FLOPs, bytes, dtype and Tensor Core use per kernel, from the op its launch call sits in
// (kernelLinks.op) and its name. An op's FLOPs go to the kernels that do its math (the GEMM
// kernel of addmm, not its copies), split by duration when there are several.
#include "core/costs/tensor_core.h"
#include "core/model/trace.h"

namespace ls {

// Fills t.metrics, theoretical occupancy included (core/costs/occupancy.h). Needs correlate()
// first. With threads > 1 the occupancy of a big trace is computed beside the rest and the ops'
// kernels sorted on them.
void computeKernelMetrics(Trace& t, unsigned threads = 1);

struct TcVerdict;
// The verdict stored for kernel k, for reasons and display.
TcVerdict tensorCoreVerdict(const Trace& t, KernelId k);

} // namespace ls
