// Collective communication kernels told by name: every NCCL kernel spelling of the shared traces
// (2.28 ncclDevKernel_*, 2.x ncclKernel_*, 2.4-era mangled ncclAllReduceTreeLLKernel_*) and
// the compute kernels beside them.
#include "core/costs/collective.h"

#include <gtest/gtest.h>

namespace ls {
namespace {

TEST(Collective, KernelNames) {
    struct Case {
        const char* name;
        Collective c;
    } cases[] = {
        {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
         Collective::AllReduce},
        {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
         Collective::AllGather},
        {"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
         Collective::ReduceScatter},
        {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", Collective::AllReduce},
        {"ncclBroadcastRingLLKernel_copy_i8(ncclColl)", Collective::Broadcast},
        {"_Z33ncclAllReduceTreeLLKernel_sum_i328ncclColl", Collective::AllReduce},
        {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", Collective::SendRecv},
        {"ncclKernel_Reduce_RING_LL_Sum_half", Collective::Reduce},
        {"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", Collective::Other},
        {"nvshmemi_alltoall_kernel", Collective::AllToAll},
        {"void at::native::vectorized_elementwise_kernel<4, "
         "at::native::CUDAFunctor_add<float>>(int, float, at::detail::Array<char*, 3>)",
         Collective::None},
        {"nvjet_sm90_hsh_128x256_64x4_1x2_h_bz_coopA_NNT", Collective::None},
        {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
         "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
         "float>::operator()>>>",
         Collective::None},
        {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
         "segment_k_off_kernel__5x_cublas",
         Collective::None},
    };
    for (const auto& c : cases) EXPECT_EQ(collectiveOfKernel(c.name), c.c) << c.name;
}

TEST(Collective, OpNames) {
    EXPECT_EQ(collectiveOfOp("c10d::allreduce_"), Collective::AllReduce);
    EXPECT_EQ(collectiveOfOp("nccl:all_reduce"), Collective::AllReduce);
    EXPECT_EQ(collectiveOfOp("nccl:_all_gather_base"), Collective::AllGather);
    EXPECT_EQ(collectiveOfOp("c10d::_reduce_scatter_base_"), Collective::ReduceScatter);
    EXPECT_EQ(collectiveOfOp("ncclAllReduce"), Collective::AllReduce);
    EXPECT_EQ(collectiveOfOp("ncclGroupEnd"), Collective::None);
    EXPECT_EQ(collectiveOfOp("record_param_comms"), Collective::None);
    EXPECT_EQ(collectiveOfOp("aten::add_"), Collective::None);
    EXPECT_EQ(collectiveName(Collective::ReduceScatter), "reduce_scatter");
}

} // namespace
} // namespace ls
