#include "core/costs/kernel_class.h"

#include <algorithm>
#include <array>
#include <string>
#include <unordered_map>

namespace ls {
namespace {

struct ClassRule {
    std::string_view pattern; // lower-case substring of the kernel name
    KernelClass cls;
};

// First match wins: communication and attention before GEMM (flash kernels use wgmma), GEMM
// names before elementwise words that GEMM epilogues mention.
constexpr std::array kRules = {
    ClassRule{"nccl", KernelClass::Communication},
    ClassRule{"allreduce", KernelClass::Communication},
    ClassRule{"flash", KernelClass::Attention},
    ClassRule{"fmha", KernelClass::Attention},
    ClassRule{"attention", KernelClass::Attention},
    ClassRule{"sdpa", KernelClass::Attention},
    ClassRule{"gemm", KernelClass::GemmTensorCore},
    ClassRule{"cutlass", KernelClass::GemmTensorCore},
    ClassRule{"nvjet", KernelClass::GemmTensorCore},
    ClassRule{"cublas", KernelClass::GemmTensorCore},
    ClassRule{"conv", KernelClass::GemmTensorCore},
    ClassRule{"wgrad", KernelClass::GemmTensorCore},
    ClassRule{"dgrad", KernelClass::GemmTensorCore},
    ClassRule{"reduce", KernelClass::Reduction},
    ClassRule{"norm", KernelClass::Reduction},
    ClassRule{"softmax", KernelClass::Reduction},
    ClassRule{"elementwise", KernelClass::Elementwise},
    ClassRule{"vectorized", KernelClass::Elementwise},
    ClassRule{"multi_tensor_apply", KernelClass::Elementwise},
    ClassRule{"foreach", KernelClass::Elementwise},
    ClassRule{"fill", KernelClass::Elementwise},
    ClassRule{"copy", KernelClass::Elementwise},
};

} // namespace

std::string_view kernelClassName(KernelClass c) {
    switch (c) {
    case KernelClass::GemmTensorCore:
        return "GEMM/conv on Tensor Cores";
    case KernelClass::GemmNoTensorCore:
        return "GEMM/conv without Tensor Cores";
    case KernelClass::Attention:
        return "attention";
    case KernelClass::Elementwise:
        return "elementwise";
    case KernelClass::Reduction:
        return "reduction/norm";
    case KernelClass::Communication:
        return "communication";
    case KernelClass::Triton:
        return "Triton (torch.compile)";
    case KernelClass::GraphLaunch:
        return "CUDA graph launch";
    case KernelClass::Other:
        return "other";
    }
    return "other";
}

KernelClass classifyKernel(std::string_view name, TcState tc) {
    // Inductor's generated kernels first: their names name the fused ops ("..._layer_norm_0"),
    // which the rules below would take for hand-written kernels of that kind.
    if (name.starts_with("triton_")) return KernelClass::Triton;
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const auto& r : kRules) {
        if (lower.find(r.pattern) == std::string::npos) continue;
        if (r.cls == KernelClass::GemmTensorCore && tc == TcState::NotUsed)
            return KernelClass::GemmNoTensorCore;
        return r.cls;
    }
    // The Tensor Core verdict knows math kernels whose names say nothing (wgmma, hmma, xmma).
    if (tc == TcState::Used) return KernelClass::GemmTensorCore;
    if (tc == TcState::NotUsed) return KernelClass::GemmNoTensorCore;
    return KernelClass::Other;
}

std::vector<KernelClass> classifyKernels(const Trace& t) {
    std::vector<KernelClass> out(t.kernels.size());
    std::unordered_map<uint64_t, KernelClass> cache; // (name id, tc state)
    for (size_t k = 0; k < out.size(); ++k) {
        const uint64_t key = (static_cast<uint64_t>(t.kernels.name[k].value) << 2) |
                             static_cast<uint64_t>(t.metrics.tc[k]);
        auto it = cache.find(key);
        if (it == cache.end())
            it =
                cache.emplace(key, classifyKernel(t.str(t.kernels.name[k]), t.metrics.tc[k])).first;
        out[k] = it->second;
    }
    const auto& g = t.kernelGraph;
    if (!g.empty())
        for (size_t k = 0; k < out.size(); ++k)
            if (g.how[k] == GraphAttribution::LaunchItem) out[k] = KernelClass::GraphLaunch;
    return out;
}

} // namespace ls
