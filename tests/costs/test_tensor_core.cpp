// Tensor Core classification by kernel name: every name of the H200 ground truth measured with
// Nsight Compute (../shared/traces/tensor_core_truth_fp16_bf16_h200.tsv), as ncu prints it and
// as nsys writes it; the traps DESIGN.md lists; Volta to Hopper names; the rule table itself.
#include "core/costs/op_costs.h"
#include "core/costs/tensor_core.h"
#include "tests/support/test_support.h"

#include <cctype>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

namespace {

using ls::TcState;
using namespace ls::test;

struct TruthRow {
    std::string name;
    bool used = false;
    std::string run;
};

std::vector<TruthRow> readTruth(const fs::path& file) {
    std::vector<TruthRow> rows;
    for (const auto& line : splitLines(readFile(file))) {
        if (line.empty() || line[0] == '#') continue;
        const size_t a = line.find('\t'), b = line.find('\t', a + 1);
        EXPECT_NE(b, std::string::npos) << line;
        if (b == std::string::npos) continue;
        const std::string flag = line.substr(a + 1, b - a - 1);
        EXPECT_TRUE(flag == "0" || flag == "1") << line;
        rows.push_back({line.substr(0, a), flag == "1", line.substr(b + 1)});
    }
    return rows;
}

void replaceAll(std::string& s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

// ncu's spelling to nsys's: `at::` -> `at::native::`, a bare integer template argument `<4,` ->
// `<(int)4,`, `(anonymous namespace)` -> `<unnamed>`.
std::string toNsysStyle(std::string s) {
    replaceAll(s, "(anonymous namespace)", "<unnamed>");
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        const bool wordStart = i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) ||
                                           s[i - 1] == '_' || s[i - 1] == ':');
        if (wordStart && s.compare(i, 4, "at::") == 0 && s.compare(i + 4, 8, "native::") != 0) {
            out += "at::native::";
            i += 3;
            continue;
        }
        out += s[i];
        // an integer right after '<' or ", " that ends at ',' or '>' is a non-type template
        // argument
        const bool argStart = s[i] == '<' || (s[i] == ' ' && i > 0 && s[i - 1] == ',');
        if (argStart && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
            size_t j = i + 1;
            while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
            if (j < s.size() && (s[j] == ',' || s[j] == '>')) out += "(int)";
        }
    }
    return out;
}

TEST(TensorCoreTruth, NormalizerWritesNsysSpelling) {
    EXPECT_EQ(toNsysStyle("void at::vectorized_elementwise_kernel<4, at::FillFunctor<float>, "
                          "std::array<char *, 1>>(int, T2, T3)"),
              "void at::native::vectorized_elementwise_kernel<(int)4, "
              "at::native::FillFunctor<float>, std::array<char *, (int)1>>(int, T2, T3)");
    EXPECT_EQ(toNsysStyle("void at::native::(anonymous namespace)::k<float, 4>()"),
              "void at::native::<unnamed>::k<float, (int)4>()");
    EXPECT_EQ(toNsysStyle("nvjet_sm90_hsh_144x128_64x6_1x2_h_bz_TNN"),
              "nvjet_sm90_hsh_144x128_64x6_1x2_h_bz_TNN");
}

TEST(TensorCoreTruth, EveryMeasuredKernelIsClassifiedAsMeasured) {
    const fs::path file = sharedDir() / "traces" / "tensor_core_truth_fp16_bf16_h200.tsv";
    LS_REQUIRE_FILE(file);
    const auto rows = readTruth(file);
    ASSERT_GE(rows.size(), 70u);
    size_t used = 0, runs = 0;
    std::set<std::string> runNames;
    for (const auto& row : rows) {
        runNames.insert(row.run);
        used += row.used;
        const std::string nsys = toNsysStyle(row.name);
        for (const std::string& name : {row.name, nsys}) {
            SCOPED_TRACE(row.run + " " + name);
            // A measured Tensor Core kernel is used whatever its op; a measured non-TC kernel is
            // never called used, whether or not the caller treats it as its op's math kernel.
            for (const bool mathOp : {false, true}) {
                const auto v = ls::classifyTensorCore(name, mathOp);
                if (row.used)
                    EXPECT_EQ(v.state, TcState::Used)
                        << "mathOp " << mathOp << ": " << ls::tcReason(v);
                else
                    EXPECT_NE(v.state, TcState::Used)
                        << "mathOp " << mathOp << ": " << ls::tcReason(v);
                EXPECT_FALSE(ls::tcReason(v).empty());
            }
        }
    }
    runs = runNames.size();
    EXPECT_EQ(runs, 2u) << "fp16 and bf16 runs";
    EXPECT_GE(used, 20u);
    EXPECT_GE(rows.size() - used, 40u);
}

struct Case {
    const char* name;
    bool mathOp;
    TcState state;
};

TEST(TensorCoreNames, TrapsAndVoltaToHopperNames) {
    const Case cases[] = {
        // DESIGN.md traps: says xmma, runs FP32 FFMA
        {"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_"
         "aligna4_alignc4_execute_kernel__5x_cublas",
         true, TcState::NotUsed},
        {"nvjet_sm90_tst_128x128_64x6_2x4_h_bz_NTT", true, TcState::Used},
        {"nvjet_sm90_hsh_96x64_64x10_1x2_h_bz_bias_TNN", true, TcState::Used},
        // Volta, Turing, Ampere, Hopper
        {"volta_h884gemm_64x64_ldg8_nn", true, TcState::Used},
        {"volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn", true, TcState::Used},
        {"turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn", true, TcState::Used},
        {"turing_h1688gemm_256x128_ldg8_nn", true, TcState::Used},
        {"ampere_fp16_s16816gemm_fp16_128x64_ldg8_f2f_stages_64x4_tn", true, TcState::Used},
        {"ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_nn", true, TcState::Used},
        {"void "
         "cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>(T1::"
         "Params)",
         true, TcState::Used},
        {"sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_"
         "tensor16x8x16_execute_kernel__5x_cublas",
         true, TcState::Used},
        {"sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
         "segment_k_off_kernel__5x_cublas",
         true, TcState::Used},
        {"sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_"
         "warpgroupsize1x1x1_g1_execute_kernel__5x_cudnn",
         true, TcState::Used},
        {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_"
         "cga1x1x1_kernel0_0",
         true, TcState::Used},
        {"void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
         "cutlass::half_t, Flash_kernel_traits<64, 128, 128, 4, cutlass::half_t>>, false, true, "
         "false, false, true, true, false, false>(Flash_fwd_params)",
         true, TcState::Used},
        {"fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::"
         "half_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
         true, TcState::Used},
        // CUDA-core GEMMs
        {"cutlass_80_simt_sgemm_128x128_8x4_nn_align1", true, TcState::NotUsed},
        {"volta_sgemm_128x64_nn", true, TcState::NotUsed},
        {"void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, "
         "false, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const float>, "
         "cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<float>, "
         "float>>(T13, T6, T6)",
         true, TcState::NotUsed},
        // not GEMM/conv/attention
        {"void at::native::vectorized_elementwise_kernel<(int)8, "
         "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase &, "
         "at::native::GeluType)::[lambda() (instance 2)]::operator ()() const::[lambda() (instance "
         "3)]::operator ()() const::[lambda(c10::Half) (instance 1)], std::array<char *, (unsigned "
         "long)2>>(int, T2, T3)",
         false, TcState::NotApplicable},
        {"void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<float>, "
         "std::array<char *, (unsigned long)1>>(int, T2, T3)",
         false, TcState::NotApplicable},
        {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)",
         false, TcState::NotApplicable},
    };
    for (const auto& c : cases) {
        const auto v = ls::classifyTensorCore(c.name, c.mathOp);
        EXPECT_EQ(v.state, c.state) << c.name << "\nreason: " << ls::tcReason(v);
        EXPECT_FALSE(ls::tcReason(v).empty()) << c.name;
    }
}

TEST(TensorCoreNames, GemmLikeNameIsNotUsedByARuleEvenWithoutAMathOp) {
    // A GEMM-ish name with no Tensor Core tile: not used because a rule says so, not because the
    // caller passed mathOp.
    for (const char* name :
         {"void gemmSN_NN_kernel<float, 256, 4, 2, 8, 4, 4, false>(cublasGemmSmallNParams<float, "
          "float, float>)",
          "volta_sgemm_64x32_sliced1x4_nn",
          "void gemv2N_kernel<int, int, float, float, float, float, 128, 32, 4, 4, false>()",
          "void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, false, "
          "true>()"}) {
        const auto v = ls::classifyTensorCore(name, false);
        EXPECT_EQ(v.state, TcState::NotUsed) << name;
        ASSERT_NE(v.rule, 0xFF) << name;
        EXPECT_EQ(ls::tcReason(v), ls::tensorCoreRules()[v.rule].reason);
    }
    // A name no rule knows: n/a unless it is its op's math kernel, then not used by the fallback.
    const char* plain = "volta_scudnn_128x64_relu_interior_nn_v1";
    const auto other = ls::classifyTensorCore(plain, false);
    EXPECT_EQ(other.state, TcState::NotApplicable);
    EXPECT_EQ(other.rule, 0xFF);
    EXPECT_FALSE(ls::tcReason(other).empty());
    const auto math = ls::classifyTensorCore(plain, true);
    EXPECT_EQ(math.state, TcState::NotUsed);
    EXPECT_EQ(math.rule, 0xFF);
    EXPECT_FALSE(ls::tcReason(math).empty());
    EXPECT_NE(ls::tcReason(math), ls::tcReason(other));
}

TEST(TensorCoreNames, StateNames) {
    EXPECT_EQ(ls::tcStateName(TcState::Used), "used");
    EXPECT_EQ(ls::tcStateName(TcState::NotUsed), "not used");
    EXPECT_EQ(ls::tcStateName(TcState::NotApplicable), "n/a");
}

TEST(TensorCoreNames, MathKernelNames) {
    for (const char* name :
         {"nvjet_sm90_hsh_144x128_64x6_1x2_h_bz_TNN",
          "void "
          "cutlass::Kernel2<cutlass_75_tensorop_f16_s1688gemm_f16_128x128_tn_align1>(T1::Params)",
          "cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x64_1x4x1_"
          "cga1x1x1_kernel0_0",
          "volta_sgemm_128x64_nn",
          "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
          "segment_k_off_kernel__5x_cublas"})
        EXPECT_TRUE(ls::isMathKernelName(name)) << name;
    for (const char* name :
         {"void cublasLt::splitKreduce_kernel<(int)32, (int)16, int, __half, __half, float, "
          "__half, (bool)0>()",
          "void cudnn::fusion::compute_dot_do_o_specialized<(bool)0, (int)64>(const void *)",
          "void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<float>, "
          "std::array<char *, (unsigned long)1>>(int, T2, T3)"})
        EXPECT_FALSE(ls::isMathKernelName(name)) << name;
}

TEST(TensorCoreRules, ReasonsNonEmptyPatternSetsUniqueAndEveryRuleReachable) {
    const auto& rules = ls::tensorCoreRules();
    ASSERT_FALSE(rules.empty());
    ASSERT_LT(rules.size(), 0xFFu) << "rule indexes are bytes; 0xFF means none";
    std::set<std::pair<std::vector<std::string_view>, std::vector<std::string_view>>> patternSets;
    for (size_t i = 0; i < rules.size(); ++i) {
        const auto& r = rules[i];
        SCOPED_TRACE("rule " + std::to_string(i) + ": " + std::string(r.reason));
        EXPECT_FALSE(r.reason.empty());
        ASSERT_FALSE(r.all.empty()) << "a rule without patterns would match every name";
        for (auto p : r.all) EXPECT_FALSE(p.empty());
        EXPECT_TRUE(patternSets.insert({r.all, r.none}).second) << "the same patterns twice";
        // The rule's own patterns, joined, must reach it: no earlier rule shadows it.
        std::string name;
        for (auto p : r.all) name += "_" + std::string(p) + "_";
        const auto v =
            ls::classifyTensorCore(name, r.needsMathOp); // weak patterns fire for math kernels only
        EXPECT_EQ(static_cast<size_t>(v.rule), i)
            << "'" << name << "' decided by rule " << int(v.rule);
        EXPECT_EQ(v.state, r.state);
    }
}

} // namespace
