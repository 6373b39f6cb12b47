// Shapes of the inner aten op from an apex/pyprof dict marker's arguments (core/dict_op_shapes),
// on marker texts in the form apex.pyprof.nvtx writes them.
#include "core/pytorch/dict_op_shapes.h"

#include <gtest/gtest.h>
#include <stdexcept>

namespace {

using ls::DType;
using ls::InnerSite;
using ls::Shapes;

std::string tensor(const std::string& shape, const std::string& dtype = "float32") {
    return "{'name': '', 'type': 'tensor', 'shape': " + shape + ", 'dtype': '" + dtype + "'}";
}
std::string scalar(const std::string& type, const std::string& value) {
    return "{'name': '', 'type': '" + type + "', 'value': " + value + "}";
}
ls::DictMarker dict(const std::string& mod, const std::string& op,
                    const std::vector<std::string>& args) {
    std::string text = "{'mod': '" + mod + "', 'op': '" + op + "', 'args': [";
    for (size_t i = 0; i < args.size(); ++i) text += (i ? ", " : "") + args[i];
    const auto d = ls::parseDictMarker(text + "]}");
    EXPECT_TRUE(d);
    return d ? *d : ls::DictMarker{};
}

// Fails the test (not only this helper) when the mapping gives nothing.
#define EXPECT_OP(got, expectedName, ...)                                                          \
    do {                                                                                           \
        const auto op_ = (got);                                                                    \
        ASSERT_TRUE(op_) << (expectedName);                                                        \
        EXPECT_EQ(op_->name, (expectedName));                                                      \
        EXPECT_EQ(op_->shapes, (Shapes __VA_ARGS__)) << (expectedName);                            \
    } while (0)

// The mapping's result, or a fatal failure.
ls::InferredOp must(const std::optional<ls::InferredOp>& got) {
    if (!got) throw std::runtime_error("no mapping");
    return *got;
}

TEST(DictOpShapes, LinearGivesTheGemmTheBiasAddAndTheBiasGradient) {
    const auto linear = dict("torch.nn.functional", "linear",
                             {tensor("(35, 20, 200)"), tensor("(33278, 200)"), tensor("(33278,)")});
    // x [35, 20, 200] is M = 700 rows of K = 200; the weight is N x K.
    EXPECT_OP(ls::inferInnerOp(linear, "mm"), "mm", {{700, 200}, {200, 33278}});
    EXPECT_OP(ls::inferInnerOp(linear, "aten::matmul"), "mm", {{700, 200}, {200, 33278}});
    EXPECT_OP(ls::inferInnerOp(linear, "addmm"), "addmm", {{33278}, {700, 200}, {200, 33278}});
    EXPECT_OP(ls::inferInnerOp(linear, "add_"), "add_", {{35, 20, 33278}, {33278}});
    EXPECT_OP(ls::inferInnerOp(linear, "sum"), "sum", {{35, 20, 33278}});
    EXPECT_EQ(must(ls::inferInnerOp(linear, "mm")).dtype, DType::F32);
    EXPECT_FALSE(ls::inferInnerOp(linear, "_softmax"));
}

TEST(DictOpShapes, ElementwiseCallsPassTheirTensorsAndAlphaCountsTwice) {
    const auto sgd =
        dict("Tensor", "add_", {tensor("(600, 200)"), scalar("int", "-20"), tensor("(600, 200)")});
    EXPECT_OP(ls::inferInnerOp(sgd, "add_"), "add_", {{600, 200}, {600, 200}});
    EXPECT_TRUE(must(ls::inferInnerOp(sgd, "add_")).alpha)
        << "p.add_(-lr, grad) is a multiply and an add";
    const auto plain = dict("Tensor", "__add__", {tensor("(35, 20, 200)"), tensor("(35, 1, 200)")});
    EXPECT_OP(ls::inferInnerOp(plain, "add"), "add", {{35, 20, 200}, {35, 1, 200}});
    EXPECT_FALSE(must(ls::inferInnerOp(plain, "add")).alpha);
    EXPECT_FALSE(
        must(ls::inferInnerOp(dict("Tensor", "__add__", {tensor("(3,)"), scalar("float", "2.0")}),
                              "add"))
            .alpha)
        << "one tensor and a number: the number is the other operand";
    EXPECT_FALSE(must(ls::inferInnerOp(dict("Tensor", "add_",
                                            {tensor("(3,)"), scalar("int", "1"), tensor("(3,)")}),
                                       "add_"))
                     .alpha);
    // Spellings: __iadd__ runs add_, __mul__ runs mul (also in MulBackward0), relu's backward is
    // threshold_backward.
    EXPECT_OP(
        ls::inferInnerOp(dict("Tensor", "__iadd__", {tensor("(4, 8)"), tensor("(8,)")}), "add_"),
        "add_", {{4, 8}, {8}});
    EXPECT_OP(ls::inferInnerOp(
                  dict("Tensor", "__mul__", {tensor("(4, 8)"), scalar("float", "0.5")}), "mul"),
              "mul", {{4, 8}});
    EXPECT_OP(ls::inferInnerOp(dict("torch.nn.functional", "relu", {tensor("(4, 8)")}),
                               "threshold_backward"),
              "threshold_backward", {{4, 8}, {4, 8}});
    EXPECT_FALSE(ls::inferInnerOp(dict("Tensor", "__mul__", {tensor("(4, 8)")}), "add"))
        << "a different op under the call";
}

TEST(DictOpShapes, DropoutNormsSoftmaxLossesAndEmbedding) {
    const auto drop =
        dict("torch.nn.functional", "dropout",
             {tensor("(35, 20, 200)"), scalar("float", "0.2"), scalar("bool", "True")});
    EXPECT_OP(ls::inferInnerOp(drop, "_fused_dropout"), "native_dropout", {{35, 20, 200}});
    EXPECT_OP(ls::inferInnerOp(drop, "_masked_scale"), "native_dropout_backward",
              {{35, 20, 200}, {35, 20, 200}});
    const auto ln = dict("torch.nn.functional", "layer_norm",
                         {tensor("(35, 20, 200)"), scalar("tuple", "(200,)"), tensor("(200,)"),
                          tensor("(200,)"), scalar("float", "1e-05")});
    EXPECT_OP(ls::inferInnerOp(ln, "layer_norm"), "native_layer_norm",
              {{35, 20, 200}, {200}, {200}});
    EXPECT_OP(ls::inferInnerOp(ln, "native_layer_norm_backward"), "native_layer_norm_backward",
              {{35, 20, 200}, {35, 20, 200}});
    const auto ce = dict("torch.nn.functional", "cross_entropy",
                         {tensor("(700, 33278)"), tensor("(700,)", "int64")});
    EXPECT_OP(ls::inferInnerOp(ce, "_log_softmax"), "_log_softmax", {{700, 33278}});
    EXPECT_OP(ls::inferInnerOp(ce, "nll_loss"), "nll_loss_forward", {{700, 33278}, {700}});
    EXPECT_OP(ls::inferInnerOp(ce, "nll_loss_backward"), "nll_loss_backward",
              {{}, {700, 33278}, {700}});
    EXPECT_OP(ls::inferInnerOp(ce, "_log_softmax_backward_data"), "_log_softmax_backward_data",
              {{700, 33278}, {700, 33278}});
    // F.embedding(indices, weight) and torch.embedding(weight, indices): told apart by dtype.
    const auto fe = dict("torch.nn.functional", "embedding",
                         {tensor("(35, 20)", "int64"), tensor("(33278, 200)")});
    const auto te =
        dict("torch", "embedding", {tensor("(33278, 200)"), tensor("(35, 20)", "int64")});
    EXPECT_OP(ls::inferInnerOp(fe, "embedding"), "embedding", {{33278, 200}, {35, 20}});
    EXPECT_OP(ls::inferInnerOp(te, "embedding"), "embedding", {{33278, 200}, {35, 20}});
    EXPECT_OP(ls::inferInnerOp(fe, "embedding_dense_backward"), "embedding_dense_backward",
              {{35, 20, 200}, {35, 20}});
    EXPECT_EQ(must(ls::inferInnerOp(fe, "embedding")).dtype, DType::F32)
        << "the weight's dtype, not the indices'";
    // Absurd or negative dims are no shape at all, not a wrong one.
    EXPECT_FALSE(ls::inferInnerOp(dict("Tensor", "mul_", {tensor("(-3, 4)")}), "mul_"));
    EXPECT_FALSE(ls::inferInnerOp(dict("torch.nn.functional", "linear",
                                       {tensor("(4294967296, 4294967296, 8)"), tensor("(8, 8)")}),
                                  "mm"));
}

TEST(DictOpShapes, MultiHeadAttentionOpsByTheirPlaceInTheCall) {
    // query = key = value [L 10, N 2, E 8], 4 heads of 2, in_proj [24, 8], out_proj [8, 8], a mask.
    std::vector<std::string> args = {
        tensor("(10, 2, 8)"),    tensor("(10, 2, 8)"),       tensor("(10, 2, 8)"),
        scalar("int", "8"),      scalar("int", "4"),         tensor("(24, 8)"),
        tensor("(24,)"),         scalar("NoneType", "None"), scalar("NoneType", "None"),
        scalar("bool", "False"), scalar("float", "0.1"),     tensor("(8, 8)"),
        tensor("(8,)"),          scalar("bool", "True"),     scalar("NoneType", "None"),
        scalar("bool", "True"),  tensor("(10, 10)")};
    const auto mha = dict("torch.nn.functional", "multi_head_attention_forward", args);
    auto at = [&](std::string_view name, uint32_t ordinal, uint32_t count, std::string_view inner) {
        const InnerSite site{name, ordinal, count};
        return ls::inferInnerOp(mha, inner, &site);
    };
    EXPECT_OP(at("mm", 0, 2, "mm"), "mm", {{20, 8}, {8, 24}}); // in-projection
    EXPECT_OP(at("mm", 1, 2, "mm"), "mm",
              {{20, 8}, {8, 8}}); // output projection (also its dgrad/wgrad)
    EXPECT_OP(at("bmm", 0, 2, "bmm"), "matmul",
              {{8, 10, 2}, {8, 2, 10}}); // Q K^T over B = 2 x 4 heads
    EXPECT_OP(at("bmm", 1, 2, "bmm"), "matmul", {{8, 10, 10}, {8, 10, 2}});
    EXPECT_OP(at("add_", 0, 3, "add_"), "add_", {{10, 2, 24}, {24}});
    EXPECT_OP(at("add_", 1, 3, "add_"), "add_", {{8, 10, 10}, {10, 10}}); // the mask
    EXPECT_OP(at("add_", 2, 3, "add_"), "add_", {{10, 2, 8}, {8}});
    EXPECT_OP(at("_softmax", 0, 1, "_softmax"), "_softmax", {{8, 10, 10}});
    EXPECT_OP(at("softmax", 0, 1, "_softmax_backward_data"), "_softmax_backward_data",
              {{8, 10, 10}, {8, 10, 10}});
    EXPECT_OP(at("dropout", 0, 1, "_masked_scale"), "native_dropout_backward",
              {{8, 10, 10}, {8, 10, 10}});
    EXPECT_OP(at("sum", 0, 1, "sum"), "sum", {{2, 4, 10, 10}});
    // Four projections (query and key differ): not this layout, so no guess.
    EXPECT_FALSE(at("mm", 0, 4, "mm"));
    EXPECT_FALSE(at("equal", 0, 2, "equal"));
    EXPECT_FALSE(ls::inferInnerOp(mha, "mm")) << "no site, no guess";
    // bias_k/bias_v append a key: the shapes above would be wrong, so nothing.
    args[7] = tensor("(1, 1, 8)");
    args[8] = tensor("(1, 1, 8)");
    const auto withBiasKv = dict("torch.nn.functional", "multi_head_attention_forward", args);
    const InnerSite qk{"bmm", 0, 2};
    EXPECT_FALSE(ls::inferInnerOp(withBiasKv, "bmm", &qk));
}

} // namespace
