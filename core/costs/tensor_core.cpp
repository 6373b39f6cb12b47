#include "core/costs/tensor_core.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace ls {

const std::vector<TcRule>& tensorCoreRules() {
    using S = TcState;
    // Order matters: traps first. Sources: cuBLAS/CUTLASS/cuDNN kernel naming (Volta h884/s884,
    // Turing h1688/s1688, Ampere h16816/s16816/i16832, Hopper gmma/wgmma and cuBLAS nvjet), and
    // the H200 Nsight Compute measurements in ../shared/traces.
    static const std::vector<TcRule> rules = {
        {{"_ffma"}, {}, S::NotUsed, "FP32 FFMA variant (xmma/cutlass name but CUDA-core math)"},
        {{"simt"}, {}, S::NotUsed, "CUTLASS SIMT kernel: CUDA-core math"},
        {{"nvjet_"}, {}, S::Used, "cuBLAS nvjet kernel (Hopper GEMM on Tensor Cores)"},
        {{"gmma"}, {}, S::Used, "Hopper (w)gmma instructions"},
        {{"sdpa", "flash"}, {}, S::Used, "cuDNN flash attention (sdpa) kernel"},
        {{"flash_fwd"}, {"combine"}, S::Used, "FlashAttention kernel"},
        {{"flash_bwd"}, {"dot_do_o", "convert_dq"}, S::Used, "FlashAttention kernel"},
        {{"fmha"}, {}, S::Used, "fused multi-head attention kernel (Tensor Cores)"},
        {{"tensorop"}, {}, S::Used, "CUTLASS tensorop kernel"},
        {{"hmma"}, {}, S::Used, "HMMA instructions"},
        {{"imma"}, {}, S::Used, "IMMA (integer Tensor Core) instructions"},
        {{"h884"}, {}, S::Used, "Volta 884 half-precision MMA tile"},
        {{"s884"}, {}, S::Used, "Volta 884 MMA tile (fp16 in, fp32 accumulate)"},
        {{"h1688"}, {}, S::Used, "Turing 1688 MMA tile"},
        {{"s1688"}, {}, S::Used, "Turing 1688 MMA tile"},
        {{"16816"}, {}, S::Used, "Ampere 16816 MMA tile"},
        {{"16832"}, {}, S::Used, "Ampere 16832 integer MMA tile"},
        {{"1688"}, {"sgemm"}, S::Used, "1688 MMA tile"},
        {{"xmma"}, {}, S::Used, "cuDNN/cuBLAS xmma kernel (HMMA)"},
        {{"sgemm"}, {"fbgemm"}, S::NotUsed, "FP32 SGEMM kernel: CUDA-core math"},
        {{"dgemm"}, {}, S::NotUsed, "FP64 DGEMM kernel"},
        {{"gemv"}, {}, S::NotUsed, "GEMV kernel: CUDA-core math"},
        {{"winograd"}, {}, S::NotUsed, "Winograd convolution kernel (CUDA-core math)"},
        // Weak patterns (helper kernels carry them too): only for an op's math kernel.
        {{"gemm"},
         {"fbgemm", "computeoffsets"},
         S::NotUsed,
         "GEMM kernel without a Tensor Core tile in its name",
         true},
        {{"convolve"},
         {},
         S::NotUsed,
         "convolution kernel without a Tensor Core tile in its name",
         true},
        {{"dgrad"},
         {},
         S::NotUsed,
         "convolution dgrad kernel without a Tensor Core tile in its name",
         true},
        {{"wgrad"},
         {},
         S::NotUsed,
         "convolution wgrad kernel without a Tensor Core tile in its name",
         true},
        {{"fprop"},
         {},
         S::NotUsed,
         "convolution fprop kernel without a Tensor Core tile in its name",
         true},
        {{"attention"},
         {"elementwise"},
         S::NotUsed,
         "attention kernel without a Tensor Core tile in its name",
         true},
    };
    return rules;
}

TcVerdict classifyTensorCore(std::string_view kernelName, bool mathOp) {
    // CUTLASS 3 writes "TmaGmmaWarpSpecialized", CUTLASS 2 "OpClassTensorOp": match
    // case-insensitively.
    std::string lowered(kernelName);
    std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const std::string_view name = lowered;
    const auto& rules = tensorCoreRules();
    for (size_t i = 0; i < rules.size(); ++i) {
        const auto& r = rules[i];
        if (r.needsMathOp && !mathOp) continue;
        const auto has = [&](std::string_view p) { return name.find(p) != std::string_view::npos; };
        if (std::all_of(r.all.begin(), r.all.end(), has) &&
            std::none_of(r.none.begin(), r.none.end(), has))
            return {r.state, static_cast<uint8_t>(i)};
    }
    // A GEMM/conv/attention op whose kernel matched nothing above did its math elsewhere than on
    // Tensor Cores only when the kernel is the op's math kernel; callers pass mathOp for those.
    return {mathOp ? TcState::NotUsed : TcState::NotApplicable, 0xFF};
}

std::string_view tcReason(const TcVerdict& v) {
    if (v.rule != 0xFF) return tensorCoreRules()[v.rule].reason;
    return v.state == TcState::NotUsed
               ? "math kernel of a GEMM/conv/attention op with no Tensor Core marker in its name"
               : "not a GEMM, convolution or attention kernel";
}

} // namespace ls
