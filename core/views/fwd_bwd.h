#pragma once
// Forward ops side by side with the backward nodes they caused (PyTorch seq pairing, built at
// load by core/pytorch/correlation.cpp), with each side's kernels, GPU time, FLOPs and Tensor Core
// share; unpaired ops carry the reason. Plus backward/forward time ratios per layer and per op
// type, to find layers whose backward is unusually slow.
#include "core/model/trace.h"

#include <string>
#include <vector>

namespace ls {

struct OpSideRow {
    OpId op;
    uint64_t kernels = 0, gpuTimeNs = 0;
    double flops = 0;         // NaN when no kernel of the op has known FLOPs
    uint64_t flopsTimeNs = 0; // time of the kernels with known FLOPs (for TFLOP/s)
    uint64_t tcTimeNs = 0;    // time of kernels that used Tensor Cores
    DType dtype = DType::Unknown;
    std::vector<uint32_t> partners; // rows on the other side
    std::string unpairedReason;     // empty when paired
};

struct FwdBwdPairs {
    std::vector<OpSideRow>
        forward; // forward ops, and other ops a backward node pairs with, by start
    std::vector<OpSideRow> backward;                       // backward nodes, by start
    std::vector<uint32_t> forwardRowOfOp, backwardRowOfOp; // per op instance, UINT32_MAX if none
};

FwdBwdPairs buildFwdBwdPairs(const Trace& t);

struct FwdBwdRatioRow {
    std::string key; // a layer, or a forward op's name
    uint64_t forwardNs = 0, backwardNs = 0;
    uint64_t forwardKernels = 0, backwardKernels = 0;
    double forwardFlops = 0, backwardFlops = 0; // NaN when unknown
    double ratio = 0;                           // backward / forward time; NaN without forward time
};
// By layer: kernels of direction forward / backward with that layer (layer_sum's rows); layers
// without forward kernels have no ratio and no row.
std::vector<FwdBwdRatioRow> fwdBwdByLayer(const Trace& t);
// By op type: forward ops of one name, and the backward nodes paired with them.
std::vector<FwdBwdRatioRow> fwdBwdByOpType(const Trace& t, const FwdBwdPairs& pairs);

} // namespace ls
