#pragma once
// FLOPs and bytes of a PyTorch op from its name and input shapes (docs/flops.md lists every
// formula). An FMA counts 2 FLOPs; bytes are the algorithmic minimum: inputs read once plus
// outputs written once.
#include "core/model/dtype.h"
#include "core/model/shapes.h"

#include <cmath>
#include <string_view>

namespace ls {

enum class OpFamily : uint8_t {
    Gemm,
    Conv,
    Attention,
    Norm,
    Softmax,
    Elementwise,
    Reduction,
    Embedding,
    Loss,
    Optimizer,
    Copy
};

struct OpCost {
    double flops = NAN; // NAN: not known (the op is known but its shapes do not tell)
    double bytes = NAN; // NAN also when the dtype is unknown
    OpFamily family = OpFamily::Elementwise;
    std::string_view rule; // the formula, as docs/flops.md names it
};

// "aten::addmm", "addmm" (older markers) or "torch.nn.functional.linear" (apex dict markers).
// nullopt for ops without a formula.
std::optional<OpCost> opCost(std::string_view opName, const Shapes& shapes, DType dtype);

// The op families whose math could run on Tensor Cores; their FLOPs go to the math kernels.
inline bool isMathFamily(OpFamily f) {
    return f == OpFamily::Gemm || f == OpFamily::Conv || f == OpFamily::Attention;
}
// Kernels that do GEMM, convolution or attention math, by name.
bool isMathKernelName(std::string_view kernel);

} // namespace ls
