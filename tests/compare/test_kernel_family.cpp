// Kernel families: the folding rules on names from the real traces (fp16 and bf16 runs of one
// model on an H200) and the issue's own examples; docs/compare.md lists the same rules.
#include "core/compare/kernel_family.h"
#include "core/load/load.h"
#include "tests/support/test_support.h"

#include <set>

namespace ls::test {
namespace {

TEST(KernelFamily, LibraryGemmsFoldToOneFamily) {
    for (const char* name : {
             "void "
             "cutlass::Kernel2<cutlass_75_tensorop_f16_s1688gemm_f16_128x128_tn_align1>(T1::"
             "Params)",
             "void "
             "cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_256x128_nn_align1>(T1::"
             "Params)",
             "nvjet_sm90_hsh_192x96_64x5_1x2_h_bz_NTT",
             "nvjet_sm90_tst_96x128_64x6_2x1_v_bz_NNN",
             "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn",
             "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
             "execute_segment_k_off_kernel__5x_cublas",
             "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_"
             "aligna4_alignc4_execute_kernel__5x_cublas",
             "void splitKreduce_kernel<(int)32, (int)16, int, float, float, float, float, (bool)1, "
             "(bool)0, (bool)0>(cublasSplitKParams<T6>, const T4 *, const T5 *, T5 *, const T6 *, "
             "const T6 *, const T7 *, const T4 *, T7 *, void *, long, T6 *, int *)",
         })
        EXPECT_EQ(kernelFamily(name), "GEMM (cuBLAS/CUTLASS)") << name;
}

TEST(KernelFamily, AttentionAndCollectivesHaveTheirOwnFamilies) {
    EXPECT_EQ(kernelFamily("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_"
                           "64x128x64_4x1x1_cga1x1x1_kernel0_0"),
              "Attention (flash/SDPA)");
    EXPECT_EQ(kernelFamily("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, "
                           "128, 4, false, false, cutlass::bfloat16_t>>(Flash_fwd_params)"),
              "Attention (flash/SDPA)");
    EXPECT_EQ(kernelFamily("compute_dot_do_o_specialized"), "Attention (flash/SDPA)");
    EXPECT_EQ(kernelFamily("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<("
                           "unsigned long)4096>)"),
              "NCCL all_reduce");
    EXPECT_EQ(kernelFamily("ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclWorkElem)"),
              "NCCL all_gather");
}

TEST(KernelFamily, ElementTypesTemplateIntegersAndLambdaInstancesFold) {
    // The same add at fp16 and bf16.
    EXPECT_EQ(kernelFamily("void at::native::vectorized_elementwise_kernel<(int)8, "
                           "at::native::CUDAFunctor_add<c10::Half>, std::array<char *, (unsigned "
                           "long)3>>(int, T2, T3)"),
              "vectorized_elementwise_kernel<N, CUDAFunctor_add<T>, array<char*, N>>");
    EXPECT_EQ(kernelFamily("void at::native::vectorized_elementwise_kernel<(int)8, "
                           "at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char *, "
                           "(unsigned long)3>>(int, T2, T3)"),
              "vectorized_elementwise_kernel<N, CUDAFunctor_add<T>, array<char*, N>>");
    // Lambda instance 3 at fp16, 4 at bf16; the element type in the lambda's parameter.
    EXPECT_EQ(
        kernelFamily("void at::native::vectorized_elementwise_kernel<(int)8, "
                     "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase &, "
                     "at::native::GeluType)::[lambda() (instance 2)]::operator ()() "
                     "const::[lambda() (instance 3)]::operator ()() const::[lambda(c10::Half) "
                     "(instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)"),
        "vectorized_elementwise_kernel<N, GeluCUDAKernelImpl::[lambda], array<char*, N>>");
    // An element type inside an identifier.
    EXPECT_EQ(kernelFamily(
                  "void at::native::vectorized_elementwise_kernel<(int)8, "
                  "at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda(float) "
                  "(instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)"),
              "vectorized_elementwise_kernel<N, T_copy_kernel_cuda::[lambda], array<char*, N>>");
    // Different work stays apart.
    EXPECT_NE(
        kernelFamily(
            "void at::native::vectorized_elementwise_kernel<(int)4, "
            "at::native::FillFunctor<float>, std::array<char *, (unsigned long)1>>(int, T2, T3)"),
        kernelFamily("void at::native::vectorized_elementwise_kernel<(int)4, "
                     "at::native::CUDAFunctor_add<float>, std::array<char *, (unsigned "
                     "long)3>>(int, T2, T3)"));
    EXPECT_EQ(
        kernelFamily("void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<float, "
                     "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
                     "float>::operator ()(at::TensorIterator &)::[lambda(float, float) (instance "
                     "1)]>, unsigned int, float, (int)4, (int)4>>(T3)"),
        "reduce_kernel<N, N, ReduceOp<T, func_wrapper_t<T, sum_functor<T, T, T>::[lambda]>, "
        "unsigned int, T, N, N>>");
    // A plain C name is its own family.
    EXPECT_EQ(kernelFamily("amp_update_scale_cuda_kernel"), "amp_update_scale_cuda_kernel");
}

// Every kernel of the fp16 sample whose name says fp16 finds its bf16 twin in the bf16 run's
// families, for the pairs named here (the same layer's work at the other precision).
TEST(KernelFamily, Fp16AndBf16RunsShareTheirFamilies) {
    const fs::path bf16 = sourceDir() / "tests/data/compare/gpt2_2layer_bf16_b8_h200.sqlite";
    const LoadResult a = loadTrace(sampleTrace().string()), b = loadTrace(bf16.string());
    ASSERT_TRUE(a.ok() && b.ok());
    auto familiesOf = [](const Trace& t, std::string_view needle) {
        std::set<std::string> out;
        for (size_t k = 0; k < t.kernels.size(); ++k)
            if (t.str(t.kernels.name[k]).find(needle) != std::string_view::npos)
                out.insert(kernelFamily(t.str(t.kernels.name[k])));
        return out;
    };
    const std::pair<const char*, const char*> pairs[] = {
        {"cutlass_75_tensorop_f16_s1688gemm_f16_128x128_tn_align1",
         "cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1"},
        {"nvjet_sm90_hsh_192x96_64x5_1x2_h_bz_NTT", "nvjet_sm90_tst_192x96_64x5_1x2_h_bz_NTT"},
        {"sdpa_sm90_flash_fprop", "sdpa_sm90_flash_fprop"},
        {"sdpa_sm90_flash_bprop", "sdpa_sm90_flash_bprop"},
        {"CUDAFunctor_add<c10::Half>", "CUDAFunctor_add<c10::BFloat16>"},
        {"GeluCUDAKernelImpl", "GeluCUDAKernelImpl"},
        {"GeluBackwardCUDAKernelImpl", "GeluBackwardCUDAKernelImpl"},
        {"float16_copy_kernel_cuda", "bfloat16_copy_kernel_cuda"},
        {"vectorized_layer_norm_kernel", "vectorized_layer_norm_kernel"},
        {"cunn_SoftMaxForward", "cunn_SoftMaxForward"},
    };
    for (const auto& [fp16, bf16name] : pairs) {
        const auto fa = familiesOf(*a.trace, fp16), fb = familiesOf(*b.trace, bf16name);
        ASSERT_FALSE(fa.empty()) << fp16;
        ASSERT_FALSE(fb.empty()) << bf16name;
        EXPECT_EQ(fa, fb) << fp16 << " vs " << bf16name;
    }
    // The fp16 and bf16 GEMMs are different kernels by name, one family.
    EXPECT_NE(familiesOf(*a.trace, "nvjet_sm90_hsh"), std::set<std::string>{});
    EXPECT_EQ(familiesOf(*a.trace, "nvjet_sm90_hsh"),
              std::set<std::string>{"GEMM (cuBLAS/CUTLASS)"});
}

} // namespace
} // namespace ls::test
