// opCost per op family, forward and backward, against hand computation (docs/flops.md): every
// expected value is written out from the literal dimensions, never taken from the code under
// test. Also the shape parser, broadcasting and the dtype helpers the formulas rely on.
#include "core/costs/op_costs.h"

#include <cmath>
#include <gtest/gtest.h>
#include <string>

namespace {

using ls::DType;
using ls::OpFamily;
using ls::Shapes;

constexpr double kF16 = 2, kF32 = 4, kIdx = 8; // bytes per element; int64 indices

// Expects a formula for op with these FLOPs and bytes (exact: all values are integers < 2^53).
void expectCost(const std::string& op, const Shapes& s, DType d, OpFamily family, double flops,
                double bytes) {
    SCOPED_TRACE(op);
    const auto c = ls::opCost(op, s, d);
    ASSERT_TRUE(c.has_value()) << "no formula";
    EXPECT_EQ(c->family, family);
    EXPECT_DOUBLE_EQ(c->flops, flops);
    EXPECT_DOUBLE_EQ(c->bytes, bytes);
    EXPECT_FALSE(c->rule.empty());
}

// --- GEMM ------------------------------------------------------------------------------------

TEST(OpCostsGemm, MmForwardAndItsDgradWgrad) {
    // y[1024,3072] = x[1024,768] . W[768,3072]
    expectCost("aten::mm", {{1024, 768}, {768, 3072}}, DType::F16, OpFamily::Gemm,
               2.0 * 1024 * 3072 * 768, (1024.0 * 768 + 768.0 * 3072 + 1024.0 * 3072) * kF16);
    // MmBackward0: dgrad dx[1024,768] = dy[1024,3072] . W^T[3072,768]; wgrad dW[768,3072] =
    // x^T[768,1024] . dy[1024,3072]
    expectCost("aten::mm", {{1024, 3072}, {3072, 768}}, DType::F16, OpFamily::Gemm,
               2.0 * 1024 * 768 * 3072, (1024.0 * 3072 + 3072.0 * 768 + 1024.0 * 768) * kF16);
    expectCost("aten::mm", {{768, 1024}, {1024, 3072}}, DType::F16, OpFamily::Gemm,
               2.0 * 768 * 3072 * 1024, (768.0 * 1024 + 1024.0 * 3072 + 768.0 * 3072) * kF16);
}

TEST(OpCostsGemm, AddmmCountsTheBiasInBytesButNotInFlops) {
    // addmm(bias[3072], x[1024,768], W[768,3072], beta, alpha)
    expectCost("aten::addmm", {{3072}, {1024, 768}, {768, 3072}, {}, {}}, DType::F16,
               OpFamily::Gemm, 2.0 * 1024 * 3072 * 768,
               (1024.0 * 768 + 768.0 * 3072 + 1024.0 * 3072 + 3072) * kF16);
    // a full [M,N] input instead of a bias row
    expectCost("aten::addmm", {{64, 32}, {64, 128}, {128, 32}, {}, {}}, DType::F32, OpFamily::Gemm,
               2.0 * 64 * 32 * 128, (64.0 * 128 + 128.0 * 32 + 64.0 * 32 + 64.0 * 32) * kF32);
}

TEST(OpCostsGemm, BmmAndBaddbmmForwardAndBackward) {
    // scores[48,256,256] = q[48,256,64] . k^T[48,64,256]
    expectCost("aten::bmm", {{48, 256, 64}, {48, 64, 256}}, DType::F16, OpFamily::Gemm,
               2.0 * 48 * 256 * 256 * 64, 48.0 * (256 * 64 + 64 * 256 + 256 * 256) * kF16);
    // BmmBackward0: grad_q[48,256,64] = grad[48,256,256] . k[48,256,64]
    expectCost("aten::bmm", {{48, 256, 256}, {48, 256, 64}}, DType::F16, OpFamily::Gemm,
               2.0 * 48 * 256 * 64 * 256, 48.0 * (256 * 256 + 256 * 64 + 256 * 64) * kF16);
    // baddbmm(C[48,256,256], A[48,256,64], B[48,64,256], beta, alpha): C read as well
    expectCost("aten::baddbmm", {{48, 256, 256}, {48, 256, 64}, {48, 64, 256}, {}, {}}, DType::F16,
               OpFamily::Gemm, 2.0 * 48 * 256 * 256 * 64,
               (48.0 * (256 * 64 + 64 * 256 + 256 * 256) + 48.0 * 256 * 256) * kF16);
}

TEST(OpCostsGemm, MatmulWithOneDimensionalOperands) {
    // vector . matrix: [64] . [64,32] -> [32]
    expectCost("aten::matmul", {{64}, {64, 32}}, DType::F32, OpFamily::Gemm, 2.0 * 1 * 32 * 64,
               (64.0 + 64 * 32 + 32) * kF32);
    // matrix . vector: [128,64] . [64] -> [128]
    expectCost("aten::matmul", {{128, 64}, {64}}, DType::F32, OpFamily::Gemm, 2.0 * 128 * 1 * 64,
               (128.0 * 64 + 64 + 128) * kF32);
    // dot product: [64] . [64] -> scalar (one element written)
    expectCost("aten::matmul", {{64}, {64}}, DType::F32, OpFamily::Gemm, 2.0 * 64,
               (64.0 + 64 + 1) * kF32);
}

TEST(OpCostsGemm, MatmulBroadcastsBatchDimensionsAndReadsEachInputOnce) {
    // [2,1,128,64] . [3,64,32]: batch dims [2,1] and [3] broadcast to [2,3] -> out [2,3,128,32]
    // Bytes: each input read once plus the output (DESIGN.md: inputs read + outputs written).
    expectCost("aten::matmul", {{2, 1, 128, 64}, {3, 64, 32}}, DType::F32, OpFamily::Gemm,
               2.0 * (2 * 3) * 128 * 32 * 64,
               (2.0 * 1 * 128 * 64 + 3.0 * 64 * 32 + 2.0 * 3 * 128 * 32) * kF32);
    // batched matrix . vector: [8,128,64] . [64] -> [8,128]; the vector is read once, not 8 times
    expectCost("aten::matmul", {{8, 128, 64}, {64}}, DType::F32, OpFamily::Gemm, 2.0 * 8 * 128 * 64,
               (8.0 * 128 * 64 + 64 + 8.0 * 128) * kF32);
}

TEST(OpCostsGemm, LinearWithThreeDimensionalInput) {
    // linear(x[4,256,768], W[3072,768], b[3072]): M = 4*256 rows
    expectCost("aten::linear", {{4, 256, 768}, {3072, 768}, {3072}}, DType::F16, OpFamily::Gemm,
               2.0 * (4 * 256) * 3072 * 768,
               (4.0 * 256 * 768 + 3072.0 * 768 + 4.0 * 256 * 3072 + 3072) * kF16);
    expectCost("aten::linear", {{4, 256, 768}, {3072, 768}, {}}, DType::F16, OpFamily::Gemm,
               2.0 * (4 * 256) * 3072 * 768,
               (4.0 * 256 * 768 + 3072.0 * 768 + 4.0 * 256 * 3072) * kF16);
}

// --- attention -------------------------------------------------------------------------------

// B=4, H=12, L=128 queries, S=256 keys, E=64: L != S so a swapped axis shows.
TEST(OpCostsAttention, BhleForwardIsFourBHLSEAndBackwardEight) {
    const Shapes q = {{4, 12, 128, 64}}, kv = {{4, 12, 256, 64}};
    const Shapes fwd = {q[0], kv[0], kv[0], {}, {}};
    const double qkvOut = 4.0 * 12 * 128 * 64 + 2 * (4.0 * 12 * 256 * 64) + 4.0 * 12 * 128 * 64;
    for (const std::string op :
         {"aten::_scaled_dot_product_flash_attention", "aten::_cudnn_attention_forward",
          "aten::_scaled_dot_product_efficient_attention", "aten::scaled_dot_product_attention"})
        expectCost(op, fwd, DType::F16, OpFamily::Attention, 4.0 * 4 * 12 * 128 * 256 * 64,
                   qkvOut * kF16);
    // backward ops take grad_out [B,H,L,E] first, then q, k, v, out, logsumexp
    const Shapes bwd = {q[0], q[0], kv[0], kv[0], q[0], {4, 12, 128}, {}, {}};
    const double bwdElements =
        2 * (4.0 * 12 * 128 * 64 + 2 * 4.0 * 12 * 256 * 64) + 2 * (4.0 * 12 * 128 * 64);
    for (const std::string op :
         {"aten::_scaled_dot_product_flash_attention_backward", "aten::_cudnn_attention_backward",
          "aten::_scaled_dot_product_efficient_attention_backward"})
        expectCost(op, bwd, DType::F16, OpFamily::Attention, 8.0 * 4 * 12 * 128 * 256 * 64,
                   bwdElements * kF16);
}

TEST(OpCostsAttention, FlashAttentionForwardTakesBLHE) {
    // q [B=4, L=128, H=12, E=64], k/v [4, S=256, 12, 64]
    const double qkvOut = 4.0 * 128 * 12 * 64 + 2 * (4.0 * 256 * 12 * 64) + 4.0 * 128 * 12 * 64;
    expectCost("aten::_flash_attention_forward",
               {{4, 128, 12, 64}, {4, 256, 12, 64}, {4, 256, 12, 64}, {}, {}}, DType::BF16,
               OpFamily::Attention, 4.0 * 4 * 12 * 128 * 256 * 64, qkvOut * kF16);
    expectCost("aten::_flash_attention_backward",
               {{4, 128, 12, 64},
                {4, 128, 12, 64},
                {4, 256, 12, 64},
                {4, 256, 12, 64},
                {4, 128, 12, 64},
                {4, 12, 128}},
               DType::BF16, OpFamily::Attention, 8.0 * 4 * 12 * 128 * 256 * 64,
               (2 * (4.0 * 128 * 12 * 64 + 2 * 4.0 * 256 * 12 * 64) + 2 * 4.0 * 128 * 12 * 64) *
                   kF16);
}

// --- convolution -----------------------------------------------------------------------------

TEST(OpCostsConv, BackwardIsDgradPlusWgradWithGroupsAnd3x3Kernels) {
    // input [N=8, C=32, 16, 16], weight [K=64, C/g, R=3, S=3], stride 1, no padding -> P=Q=14
    // groups 4: C/g = 8. Each of dgrad and wgrad: 2*N*K*P*Q*(C/g)*R*S.
    expectCost("aten::convolution_backward",
               {{8, 64, 14, 14}, {8, 32, 16, 16}, {64, 8, 3, 3}, {}, {}, {}, {}, {}, {}, {}, {}},
               DType::F16, OpFamily::Conv, 2 * (2.0 * 8 * 64 * 14 * 14 * 8 * 3 * 3),
               2 * (8.0 * 64 * 14 * 14 + 8.0 * 32 * 16 * 16 + 64.0 * 8 * 3 * 3) * kF16);
    // groups 1: C/g = 32
    expectCost("aten::convolution_backward",
               {{8, 64, 14, 14}, {8, 32, 16, 16}, {64, 32, 3, 3}, {}, {}, {}, {}, {}, {}, {}, {}},
               DType::F32, OpFamily::Conv, 2 * (2.0 * 8 * 64 * 14 * 14 * 32 * 3 * 3),
               2 * (8.0 * 64 * 14 * 14 + 8.0 * 32 * 16 * 16 + 64.0 * 32 * 3 * 3) * kF32);
}

TEST(OpCostsConv, ForwardIsUnknownWithARuleSayingWhy) {
    for (const std::string op :
         {"aten::convolution", "aten::_convolution", "aten::cudnn_convolution", "aten::conv2d"}) {
        SCOPED_TRACE(op);
        const auto c = ls::opCost(
            op, {{8, 32, 16, 16}, {64, 8, 3, 3}, {64}, {}, {}, {}, {}, {}, {}}, DType::F16);
        ASSERT_TRUE(c.has_value()) << "a known op, not an unknown one";
        EXPECT_EQ(c->family, OpFamily::Conv);
        EXPECT_TRUE(std::isnan(c->flops)) << "never a guessed number";
        EXPECT_NE(c->rule.find("stride"), std::string_view::npos) << c->rule;
    }
}

// --- per-element families ---------------------------------------------------------------------

TEST(OpCostsPerElement, LayerNormForwardAndBackward) {
    const double x = 4.0 * 256 * 768;
    // native_layer_norm(x, normalized_shape, weight[768], bias[768], eps): 8 per element
    expectCost("aten::native_layer_norm", {{4, 256, 768}, {}, {768}, {768}, {}}, DType::F32,
               OpFamily::Norm, 8 * x, (x + 768 + 768 + x) * kF32);
    // backward(grad_out, input, normalized_shape, mean[4,256,1], rstd[4,256,1], weight, bias,
    // mask): 16 per element
    expectCost("aten::native_layer_norm_backward",
               {{4, 256, 768}, {4, 256, 768}, {}, {4, 256, 1}, {4, 256, 1}, {768}, {768}, {}},
               DType::F32, OpFamily::Norm, 16 * x, (x + x + 1024 + 1024 + 768 + 768 + x) * kF32);
}

TEST(OpCostsPerElement, SoftmaxAndLogSoftmaxForwardAndBackward) {
    const double n = 1024.0 * 50257;
    for (const std::string op : {"aten::_softmax", "aten::_log_softmax"})
        expectCost(op, {{1024, 50257}, {}, {}}, DType::F32, OpFamily::Softmax, 5 * n,
                   (n + n) * kF32);
    for (const std::string op :
         {"aten::_softmax_backward_data", "aten::_log_softmax_backward_data"})
        expectCost(op, {{1024, 50257}, {1024, 50257}, {}, {}}, DType::F32, OpFamily::Softmax, 4 * n,
                   (n + n + n) * kF32);
}

TEST(OpCostsPerElement, BinaryBroadcastFillGeluReductions) {
    // mul([4,1,768], [256,1]) -> [4,256,768]: both inputs read, the broadcast output written
    expectCost("aten::mul", {{4, 1, 768}, {256, 1}}, DType::F16, OpFamily::Elementwise,
               4.0 * 256 * 768, (4.0 * 768 + 256 + 4.0 * 256 * 768) * kF16);
    // add(x, scalar, alpha): the [] entries are no tensors
    expectCost("aten::add", {{4, 256, 768}, {}, {}}, DType::F32, OpFamily::Elementwise,
               4.0 * 256 * 768, 2 * (4.0 * 256 * 768) * kF32);
    // in-place fill_ only writes
    expectCost("aten::fill_", {{1024, 50257}, {}}, DType::F32, OpFamily::Elementwise, 0,
               1024.0 * 50257 * kF32);
    expectCost("aten::zero_", {{768, 3072}}, DType::F16, OpFamily::Elementwise, 0,
               768.0 * 3072 * kF16);
    // gelu: 8 per element; gelu_backward(grad, x): 12 per element
    const double h = 4.0 * 256 * 3072;
    expectCost("aten::gelu", {{4, 256, 3072}, {}}, DType::F16, OpFamily::Elementwise, 8 * h,
               (h + h) * kF16);
    expectCost("aten::gelu_backward", {{4, 256, 3072}, {4, 256, 3072}, {}}, DType::F16,
               OpFamily::Elementwise, 12 * h, (h + h + h) * kF16);
    // reductions: one op per input element (two for var), bytes count the input
    expectCost("aten::sum", {{256, 4, 2304}, {}, {}, {}}, DType::F16, OpFamily::Reduction,
               256.0 * 4 * 2304, 256.0 * 4 * 2304 * kF16);
    expectCost("aten::var", {{32, 1000}, {}, {}, {}}, DType::F32, OpFamily::Reduction,
               2 * 32.0 * 1000, 32.0 * 1000 * kF32);
    // a 2-norm: a square and an add per element and one square root (as PyProf counts it)
    expectCost("aten::linalg_vector_norm", {{600, 200}, {}, {}, {}, {}}, DType::F32,
               OpFamily::Reduction, 2 * 120000.0 + 1, 120000.0 * kF32);
    expectCost("norm", {{33278}}, DType::F32, OpFamily::Reduction, 2 * 33278.0 + 1, 33278.0 * kF32);
}

TEST(OpCostsPerElement, CopiesAndCasts) {
    // copy_(self, src): src read, self written
    expectCost("aten::copy_", {{256, 4, 768}, {256, 4, 768}, {}}, DType::F16, OpFamily::Copy, 0,
               2 * (256.0 * 4 * 768) * kF16);
    expectCost("aten::copy_", {{4, 256, 768}, {768}, {}}, DType::F32, OpFamily::Copy, 0,
               (768 + 4.0 * 256 * 768) * kF32);
    expectCost("aten::_to_copy", {{4, 256, 768}, {}, {}, {}, {}, {}, {}}, DType::F16,
               OpFamily::Copy, 0, 2 * (4.0 * 256 * 768) * kF16);
}

// --- embedding, losses, optimizers -----------------------------------------------------------

TEST(OpCostsSpecial, EmbeddingForwardAndBackward) {
    // embedding(weight[50257,768], indices[4,256]): 1024 rows of 768 read and written, plus the
    // indices
    expectCost("aten::embedding", {{50257, 768}, {4, 256}, {}, {}, {}}, DType::F16,
               OpFamily::Embedding, 0, 1024 * kIdx + 2 * (1024.0 * 768) * kF16);
    // embedding_dense_backward(grad[4,256,768], indices[4,256], num_weights, ...): one add per
    // gradient element
    expectCost("aten::embedding_dense_backward", {{4, 256, 768}, {4, 256}, {}, {}, {}}, DType::F32,
               OpFamily::Embedding, 4.0 * 256 * 768, 2 * (4.0 * 256 * 768) * kF32 + 1024 * kIdx);
}

// Dropout's one-byte mask: written forward, read backward. Both count two FLOPs per element
// (compare + scale forward, grad*mask*scale backward); the integer RNG work is not FLOPs.
TEST(OpCostsPerElement, DropoutCountsItsMask) {
    const double n = 4.0 * 256 * 768;
    expectCost("aten::native_dropout", {{4, 256, 768}, {}, {}}, DType::F16, OpFamily::Elementwise,
               2 * n, 2 * n * kF16 + n);
    expectCost("aten::native_dropout_backward", {{4, 256, 768}, {4, 256, 768}, {}}, DType::F16,
               OpFamily::Elementwise, 2 * n, 2 * n * kF16 + n);
    // PyTorch 1.x spellings
    expectCost("_fused_dropout", {{35, 20, 200}}, DType::F32, OpFamily::Elementwise, 2 * 140000.0,
               2 * 140000.0 * kF32 + 140000);
    expectCost("_masked_scale", {{35, 20, 200}, {35, 20, 200}}, DType::F32, OpFamily::Elementwise,
               2 * 140000.0, 2 * 140000.0 * kF32 + 140000);
}

TEST(OpCostsSpecial, NllLossForwardAndBackward) {
    // nll_loss_forward(log_probs[1024,50257], target[1024], weight, reduction, ignore_index)
    expectCost("aten::nll_loss_forward", {{1024, 50257}, {1024}, {}, {}, {}}, DType::F32,
               OpFamily::Loss, 1024, 1024 * (kF32 + kIdx));
    // nll_loss_backward(grad_out, log_probs, target, ...): its kernel writes one gradient per
    // sample; the zero fill of the [1024,50257] gradient is aten::zero_'s own kernel (the sample
    // trace has it nested), so counting it here would put 206 MB on a 10 us kernel.
    expectCost("aten::nll_loss_backward", {{}, {1024, 50257}, {1024}, {}, {}, {}, {}}, DType::F32,
               OpFamily::Loss, 1024, 1024 * (kF32 + kIdx));
}

// emit_nvtx flattens tensor lists: _foreach_add_(self[2], other[2], alpha) records four shapes
// (the sample's _foreach_lerp_ has 29 + 29 shapes and a scalar). T below is the number of
// elements of one list, the parameters updated.
TEST(OpCostsSpecial, ForeachOverOneListReadsItAndWritesOneList) {
    const double t = 768.0 * 768 + 768; // one list: [768,768] and [768]
    // unary, out of place: read T, write T
    expectCost("aten::_foreach_sqrt", {{768, 768}, {768}}, DType::F32, OpFamily::Optimizer, t,
               2 * t * kF32);
    // list * scalar, in place: read T, write T
    expectCost("aten::_foreach_mul_", {{768, 768}, {768}, {}}, DType::F32, OpFamily::Optimizer, t,
               2 * t * kF32);
}

TEST(OpCostsSpecial, ForeachAndFusedAdamCountEachParameterOnceAcrossLists) {
    const double t = 768.0 * 768 + 768; // one list: [768,768] and [768]
    // list + list: 1 FLOP per parameter, two lists read, one written
    expectCost("aten::_foreach_add_", {{768, 768}, {768}, {768, 768}, {768}, {}}, DType::F32,
               OpFamily::Optimizer, t, 3 * t * kF32);
    // addcmul_(self, t1, t2, value): 2 FLOPs per parameter, three lists read, one written
    expectCost("aten::_foreach_addcmul_",
               {{768, 768}, {768}, {768, 768}, {768}, {768, 768}, {768}, {}}, DType::F32,
               OpFamily::Optimizer, 2 * t, 4 * t * kF32);
    // _fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs = [], state_steps
    // (0-dim), lr, ...): 12 FLOPs per parameter; params, grads, exp_avg, exp_avg_sq read, three
    // written
    expectCost("aten::_fused_adamw_",
               {{768, 768},
                {768},
                {768, 768},
                {768},
                {768, 768},
                {768},
                {768, 768},
                {768},
                {},
                {},
                {},
                {},
                {},
                {},
                {},
                {}},
               DType::F32, OpFamily::Optimizer, 12 * t, 7 * t * kF32);
}

// --- names, dtypes, unknowns -----------------------------------------------------------------

TEST(OpCostsNames, UnknownOpHasNoFormulaAndUnknownDtypeOnlyLosesBytes) {
    for (const std::string op :
         {"aten::view", "aten::t", "aten::empty_strided", "MyModule.forward", ""})
        EXPECT_FALSE(ls::opCost(op, {{1024, 768}, {768, 3072}}, DType::F16).has_value()) << op;
    const auto c = ls::opCost("aten::mm", {{1024, 768}, {768, 3072}}, DType::Unknown);
    ASSERT_TRUE(c.has_value());
    EXPECT_DOUBLE_EQ(c->flops, 2.0 * 1024 * 3072 * 768);
    EXPECT_TRUE(std::isnan(c->bytes));
    const auto e = ls::opCost("aten::embedding", {{50257, 768}, {4, 256}}, DType::Unknown);
    ASSERT_TRUE(e.has_value());
    EXPECT_TRUE(std::isnan(e->bytes));
}

TEST(OpCostsNames, OlderMarkersAndApexDictNamesResolve) {
    expectCost("addmm", {{3072}, {1024, 768}, {768, 3072}}, DType::F16, OpFamily::Gemm,
               2.0 * 1024 * 3072 * 768,
               (1024.0 * 768 + 768.0 * 3072 + 1024.0 * 3072 + 3072) * kF16);
    expectCost("mm", {{1024, 768}, {768, 3072}}, DType::F16, OpFamily::Gemm,
               2.0 * 1024 * 3072 * 768, (1024.0 * 768 + 768.0 * 3072 + 1024.0 * 3072) * kF16);
    expectCost("torch.nn.functional.linear", {{4, 256, 768}, {3072, 768}, {3072}}, DType::F16,
               OpFamily::Gemm, 2.0 * (4 * 256) * 3072 * 768,
               (4.0 * 256 * 768 + 3072.0 * 768 + 4.0 * 256 * 3072 + 3072) * kF16);
    expectCost("torch.nn.functional.gelu", {{4, 256, 3072}}, DType::F16, OpFamily::Elementwise,
               8 * 4.0 * 256 * 3072, 2 * (4.0 * 256 * 3072) * kF16);
}

TEST(OpCostsDtype, NamesAndKernelNames) {
    EXPECT_EQ(ls::dtypeFromName("float16"), DType::F16);
    EXPECT_EQ(ls::dtypeFromName("torch.bfloat16"), DType::BF16);
    EXPECT_EQ(ls::dtypeFromName("Half"), DType::F16);
    EXPECT_EQ(ls::dtypeFromName("torch.float32"), DType::F32);
    EXPECT_EQ(ls::dtypeFromName("complex32"), DType::Unknown);
    EXPECT_EQ(ls::dtypeBytes(DType::F16), 2);
    EXPECT_EQ(ls::dtypeBytes(DType::BF16), 2);
    EXPECT_EQ(ls::dtypeBytes(DType::F32), 4);
    EXPECT_EQ(ls::dtypeBytes(DType::Unknown), 0);
    EXPECT_EQ(ls::dtypeFromKernelName("nvjet_sm90_hsh_144x128_64x6_1x2_h_bz_TNN"), DType::F16);
    EXPECT_EQ(ls::dtypeFromKernelName("nvjet_sm90_tst_144x128_64x6_1x2_h_bz_TNN"), DType::BF16);
    EXPECT_EQ(ls::dtypeFromKernelName("void "
                                      "cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_"
                                      "128x128_tn_align1>(T1::Params)"),
              DType::BF16);
    EXPECT_EQ(
        ls::dtypeFromKernelName("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3_"
                                "warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas"),
        DType::F32);
    EXPECT_EQ(ls::dtypeFromKernelName("sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_"
                                      "warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"),
              DType::F16);
    EXPECT_EQ(ls::dtypeFromKernelName("void at::native::vectorized_elementwise_kernel<(int)4, "
                                      "at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char "
                                      "*, (unsigned long)3>>(int, T2, T3)"),
              DType::BF16);
    EXPECT_EQ(ls::dtypeFromKernelName("volta_sgemm_128x64_nn"), DType::F32);
    EXPECT_EQ(ls::dtypeFromKernelName(
                  "ncclDevKernel_AllReduce_Sum_u8_RING_LL(ncclDevKernelArgsStorage<4096UL>)"),
              DType::Unknown);
}

// --- shapes ----------------------------------------------------------------------------------

TEST(Shapes, ParseEmptyNestedAndMalformed) {
    EXPECT_EQ(ls::parseShapes("[]"), Shapes{}) << "no arguments";
    EXPECT_EQ(ls::parseShapes("[[]]"), (Shapes{{}})) << "one scalar";
    EXPECT_EQ(ls::parseShapes("[[], [], []]"), (Shapes{{}, {}, {}}));
    EXPECT_EQ(ls::parseShapes("[[8, 768], [768, 3072], []]"), (Shapes{{8, 768}, {768, 3072}, {}}));
    EXPECT_EQ(ls::parseShapes("[[], [2, 3], []]"), (Shapes{{}, {2, 3}, {}}));
    EXPECT_EQ(ls::parseShapes(" [ [1,2] , [ 3 ] ] "), (Shapes{{1, 2}, {3}}));
    EXPECT_EQ(ls::parseShapes("[[0, 5]]"), (Shapes{{0, 5}}));
    for (const std::string bad :
         {"", "x", "[", "[[", "[[1, 2]", "[[1, 2],", "[1, 2]", "[[a]]", "[[-1, 2]]", "[[1,,2]]",
          "[[1.5]]", "[[1]], [2]]", "[[1]] trailing"})
        EXPECT_FALSE(ls::parseShapes(bad).has_value()) << "'" << bad << "'";
    EXPECT_EQ(ls::numel({}), 0);
    EXPECT_EQ(ls::numel({0, 5}), 0);
    EXPECT_EQ(ls::numel({4, 256, 768}), 4.0 * 256 * 768);
}

TEST(Shapes, BroadcastLikeNumpy) {
    EXPECT_EQ(ls::broadcastShape({{4, 1, 768}, {256, 1}}), (ls::Shape{4, 256, 768}));
    EXPECT_EQ(ls::broadcastShape({{}, {3}}), (ls::Shape{3})) << "[] is no tensor";
    EXPECT_EQ(ls::broadcastShape({{2, 1}, {1, 3}}), (ls::Shape{2, 3}));
    EXPECT_EQ(ls::broadcastShape({{1}, {5}}), (ls::Shape{5}));
    EXPECT_EQ(ls::broadcastShape({{5}, {1}}), (ls::Shape{5}));
    EXPECT_EQ(ls::broadcastShape({{1}, {0}}), (ls::Shape{0}));
    EXPECT_EQ(ls::broadcastShape({{8, 1, 6, 1}, {7, 1, 5}}), (ls::Shape{8, 7, 6, 5}));
    EXPECT_FALSE(ls::broadcastShape({{2, 3}, {4, 3}}).has_value());
    EXPECT_FALSE(ls::broadcastShape({{3}, {4}}).has_value());
}

} // namespace
