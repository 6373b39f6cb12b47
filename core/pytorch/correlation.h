#pragma once
// Links built once at load (DESIGN.md, correlation and PyTorch semantics): kernel -> innermost
// NVTX range of its launch call and that range's stack; PyTorch op instances, forward ops paired
// with backward nodes by seq; each kernel's direction and layer. Queries both ways below.
#include "core/model/trace.h"

#include <string_view>
#include <vector>

namespace ls {

// Fills t.ops, t.kernelLinks, t.threadStartEnd. Needs the indexes of the loader.
void correlate(Trace& t, unsigned threads = 2);

// Kernels whose launch call lies within r on r's thread (its GPU work), by start.
std::vector<KernelId> kernelsUnder(const Trace& t, RangeId r);
// Kernels whose innermost op instance is op (a nested op instance keeps its own kernels).
std::vector<KernelId> kernelsOfOp(const Trace& t, OpId op);
// Kernels of a layer in both directions (backward kernels inherit their forward op's layer);
// an invalid id gives the kernels without a layer.
std::vector<KernelId> kernelsOfLayer(const Trace& t, StringId layer);
// Kernels under any range whose normalized name is `name`.
std::vector<KernelId> kernelsUnderRangesNamed(const Trace& t, std::string_view name);
// Every range of the call's thread that contains it (push/pop stack and start/end ranges),
// innermost (latest start) first: the stack nsys nvtxkernsum counts a kernel under.
std::vector<RangeId> rangesContaining(const Trace& t, ApiCallId call);
// rangesContaining for the kernel's context call (Trace::contextCall: a replayed graph node's
// capture-time launch).
std::vector<RangeId> rangeStack(const Trace& t, KernelId k);

} // namespace ls
