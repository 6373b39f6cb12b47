#pragma once
// Tensor Core use per kernel, from its name, by one table of rules (tensor_core.cpp): the first
// rule whose patterns all occur in the (lower-cased) name decides. Measured truth for H200 kernels
// is in ../shared/traces/tensor_core_truth_fp16_bf16_h200.tsv and checked in the tests.
#include "core/model/tensor_core_state.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace ls {

struct TcRule {
    std::vector<std::string_view>
        all; // every pattern must occur (lower-case; names are matched case-insensitively)
    std::vector<std::string_view> none; // and none of these
    TcState state;
    std::string_view reason;
    bool needsMathOp =
        false; // a weak name pattern: only for the math kernel of a GEMM/conv/attention op
};

const std::vector<TcRule>& tensorCoreRules();

struct TcVerdict {
    TcState state = TcState::NotApplicable;
    uint8_t rule = 0xFF; // index into tensorCoreRules(); 0xFF: no rule fired
};

// mathOp: the kernel's op is a GEMM, convolution or attention (could use Tensor Cores) even if
// the name does not say so.
TcVerdict classifyTensorCore(std::string_view kernelName, bool mathOp);
std::string_view tcReason(const TcVerdict& v);

} // namespace ls
