// parseMarker on the texts torch.autograd.profiler.emit_nvtx writes (texts taken from the
// sample trace and DESIGN.md), and on plain user ranges that must keep their whole text.
#include "core/import/common/pytorch_marker.h"

#include <gtest/gtest.h>

namespace {

using ls::parseDictMarker;
using ls::parseMarker;

TEST(PytorchMarker, ForwardOpWithSeqOpIdSizesAndInputOpIds) {
    const auto m = parseMarker("aten::addmm, seq = 5, op_id = 12, sizes = [[8, 768], [768, 3072]], "
                               "input_op_ids = [(11,0), (0,-1)]");
    EXPECT_TRUE(m.isPytorchMarker);
    EXPECT_EQ(m.name, "aten::addmm");
    EXPECT_EQ(m.seq, 5);
    EXPECT_EQ(m.opId, 12);
    EXPECT_EQ(m.sizes, "[[8, 768], [768, 3072]]") << "commas inside brackets do not split";
    EXPECT_FALSE(m.seqIsStashed);
}

TEST(PytorchMarker, OpWithoutSeq) {
    const auto m = parseMarker("aten::full, op_id = 3366, sizes = [[], [], [], [], [], []], "
                               "input_op_ids = [(0,-1), (0,-1)]");
    EXPECT_TRUE(m.isPytorchMarker);
    EXPECT_EQ(m.name, "aten::full");
    EXPECT_EQ(m.seq, -1);
    EXPECT_EQ(m.opId, 3366);
    EXPECT_EQ(m.sizes, "[[], [], [], [], [], []]");
}

TEST(PytorchMarker, OlderPytorchSeqOnly) {
    const auto m = parseMarker("addmm, seq = 5");
    EXPECT_TRUE(m.isPytorchMarker);
    EXPECT_EQ(m.name, "addmm");
    EXPECT_EQ(m.seq, 5);
    EXPECT_EQ(m.opId, -1);
    EXPECT_EQ(m.sizes, "");
}

TEST(PytorchMarker, BackwardNodeAndItsEngineWrapper) {
    const auto node = parseMarker(
        "MulBackward0, seq = 368, op_id = 3755, sizes = [[]], input_op_ids = [(3750,0)]");
    EXPECT_TRUE(node.isPytorchMarker);
    EXPECT_EQ(node.name, "MulBackward0");
    EXPECT_EQ(node.seq, 368);
    EXPECT_EQ(node.opId, 3755);
    EXPECT_EQ(node.sizes, "[[]]");

    const auto wrapper =
        parseMarker("autograd::engine::evaluate_function: MulBackward0, op_id = 3754");
    EXPECT_TRUE(wrapper.isPytorchMarker);
    EXPECT_EQ(wrapper.name, "autograd::engine::evaluate_function: MulBackward0");
    EXPECT_EQ(wrapper.seq, -1);
    EXPECT_EQ(wrapper.opId, 3754);

    const auto bare = parseMarker("autograd::engine::evaluate_function: AddmmBackward0");
    EXPECT_FALSE(bare.isPytorchMarker);
    EXPECT_EQ(bare.name, "autograd::engine::evaluate_function: AddmmBackward0");
}

TEST(PytorchMarker, StashedSeqOfOlderPytorch) {
    const auto m = parseMarker("aten::mul, stashed seq = 7");
    EXPECT_TRUE(m.isPytorchMarker);
    EXPECT_EQ(m.name, "aten::mul");
    EXPECT_EQ(m.seq, 7);
    EXPECT_TRUE(m.seqIsStashed);
}

TEST(PytorchMarker, PlainUserRangesKeepTheirWholeText) {
    for (const char* text :
         {"layer3", "encoder.block.2", "Gemm.7(N1_Grad/Gemm_4)", "iteration 2", ""}) {
        const auto m = parseMarker(text);
        EXPECT_FALSE(m.isPytorchMarker) << text;
        EXPECT_EQ(m.name, text);
        EXPECT_EQ(m.seq, -1) << text;
        EXPECT_EQ(m.opId, -1) << text;
        EXPECT_EQ(m.sizes, "") << text;
    }
}

TEST(PytorchMarker, CommasWithoutMarkerFieldsAreNotMarkers) {
    for (const char* text :
         {"void gemm<float, 128>(int, float*)", "load, parse, run", "a, b = 3", "sequence, op = 3",
          "trailing, ", ", ", "step, seq = x", "x, op_id = 12abc", "y, sizes = [[1, 2]"}) {
        const auto m = parseMarker(text);
        EXPECT_FALSE(m.isPytorchMarker) << text;
        EXPECT_EQ(m.name, text);
        EXPECT_EQ(m.seq, -1) << text;
        EXPECT_EQ(m.opId, -1) << text;
    }
}

TEST(PytorchMarker, DictStringOfApexPyprofIsNotAnEmitNvtxMarker) {
    const char* text = "{'mod': 'torch.nn.functional', 'op': 'linear', 'args': [{'name': '', "
                       "'type': 'tensor', 'shape': (32, 1024)}]}";
    const auto m = parseMarker(text);
    EXPECT_FALSE(m.isPytorchMarker);
    EXPECT_EQ(m.name, text);
}

TEST(PytorchMarker, ApexDictMarkersGiveModuleOpShapesAndDtype) {
    const auto d = parseDictMarker(
        "{'mod': 'torch.nn.functional', 'op': 'linear', 'args': [{'name': '', 'type': 'tensor', "
        "'shape': (32, 1024), 'dtype': 'float16'}, {'name': '', 'type': 'tensor', 'shape': "
        "(1024,), "
        "'dtype': 'float16'}, {'name': 'bias', 'type': 'NoneType', 'value': None}]}");
    ASSERT_TRUE(d);
    EXPECT_TRUE(d->isOp);
    EXPECT_EQ(d->name, "torch.nn.functional.linear");
    EXPECT_EQ(d->sizes, "[[32, 1024], [1024]]");
    EXPECT_EQ(d->dtype, "float16");
    const auto trace = parseDictMarker("{'traceMarker': ['train.py:12', 'model.py:40']}");
    ASSERT_TRUE(trace);
    EXPECT_FALSE(trace->isOp);
    EXPECT_EQ(trace->name, "traceMarker");
    EXPECT_FALSE(parseDictMarker("{'other': 1}"));
    EXPECT_FALSE(parseDictMarker("layer3"));
}

TEST(PytorchMarker, ApexDictMarkersKeepEveryArgumentInOrder) {
    // Texts as apex.pyprof.nvtx writes them (from the LSTM example's trace): scalars, None,
    // tuples and strings between the tensors.
    const auto add = parseDictMarker("{'mod': 'Tensor', 'op': 'add_', 'args': [{'name': '', "
                                     "'type': 'tensor', 'shape': (600, 200), "
                                     "'dtype': 'float32'}, {'name': '', 'type': 'int', 'value': "
                                     "-20}, {'name': '', 'type': 'tensor', "
                                     "'shape': (600,), 'dtype': 'float32'}]}");
    ASSERT_TRUE(add);
    ASSERT_EQ(add->args.size(), 3u);
    EXPECT_EQ(add->args[0].type, "tensor");
    EXPECT_EQ(add->args[0].shape, (std::vector<int64_t>{600, 200}));
    EXPECT_EQ(add->args[0].dtype, "float32");
    EXPECT_EQ(add->args[1].type, "int");
    EXPECT_EQ(add->args[1].value, "-20");
    EXPECT_TRUE(add->args[1].shape.empty());
    EXPECT_EQ(add->args[2].shape, (std::vector<int64_t>{600}));

    const auto ln = parseDictMarker(
        "{'mod': 'torch.nn.functional', 'op': 'cross_entropy', 'args': [{'name': '', 'type': "
        "'tuple', "
        "'value': (200, 3)}, {'name': 'reduction', 'type': 'str', 'value': 'mean, or not'}, "
        "{'name': '', 'type': 'NoneType', 'value': None}, {'name': '', 'type': 'tensor', 'shape': "
        "(), "
        "'dtype': 'int64'}]}");
    ASSERT_TRUE(ln);
    ASSERT_EQ(ln->args.size(), 4u);
    EXPECT_EQ(ln->args[0].value, "(200, 3)");
    EXPECT_EQ(ln->args[1].name, "reduction");
    EXPECT_EQ(ln->args[1].value, "'mean, or not'")
        << "a comma inside quotes does not end the value";
    EXPECT_EQ(ln->args[2].value, "None");
    EXPECT_EQ(ln->args[3].type, "tensor");
    EXPECT_TRUE(ln->args[3].shape.empty()) << "a 0-d tensor";
    EXPECT_EQ(ln->args[3].dtype, "int64");

    // Cut short: the arguments read so far, no crash.
    const auto cut = parseDictMarker(
        "{'mod': 'Tensor', 'op': 'mul', 'args': [{'name': '', 'type': 'tensor', 'shape': (3,");
    ASSERT_TRUE(cut);
    EXPECT_TRUE(cut->args.empty());
}

// input_op_ids name each input by the op and output that made it; (0,-1) is a non-tensor or a
// tensor with no recorded producer (a parameter), so it never counts as a repeat.
TEST(PytorchMarker, RepeatedTensorInputsAreFlagged) {
    const char* addcmul =
        "aten::_foreach_addcmul_, op_id = 4675, sizes = [[2], [3], [2], [3], [2], [3], []], "
        "input_op_ids = [(10,0), (11,0), (20,0), (21,0), (20,0), (21,0), (0,-1)]";
    EXPECT_TRUE(parseMarker(addcmul).repeatedInput);
    EXPECT_EQ(ls::repeatedInputs(addcmul), (std::vector<uint8_t>{0, 0, 0, 0, 1, 1, 0}));
    // Two outputs of one op are different tensors; non-tensors never repeat.
    const char* distinct = "aten::add, op_id = 7, sizes = [[4], [4], [], []], input_op_ids = "
                           "[(3,0), (3,1), (0,-1), (0,-1)]";
    EXPECT_FALSE(parseMarker(distinct).repeatedInput);
    EXPECT_EQ(ls::repeatedInputs(distinct), (std::vector<uint8_t>{0, 0, 0, 0}));
    // More inputs than the parser keeps without allocating.
    std::string many = "aten::_foreach_mul_, op_id = 1, sizes = [], input_op_ids = [";
    for (int i = 0; i < 20; ++i) many += "(" + std::to_string(100 + i) + ",0), ";
    many += "(119,0)]";
    EXPECT_TRUE(parseMarker(many).repeatedInput);
    EXPECT_EQ(ls::repeatedInputs(many).back(), 1);
    EXPECT_TRUE(ls::repeatedInputs("aten::mm, op_id = 2").empty());
    // A _foreach_ call over 5,000 parameters and three lists, the last one repeating the second:
    // found by sorting, not 10^7 comparisons per marker at load.
    std::string lists = "aten::_foreach_addcmul_, op_id = 9, sizes = [], input_op_ids = [";
    for (int list = 0; list < 3; ++list)
        for (int p = 0; p < 5000; ++p)
            lists += "(" + std::to_string(list == 2 ? 100000 + p : list * 100000 + p) + ",0), ";
    lists += "(0,-1)]";
    EXPECT_TRUE(parseMarker(lists).repeatedInput);
    const auto flags = ls::repeatedInputs(lists);
    ASSERT_EQ(flags.size(), 15001u);
    EXPECT_EQ(flags[4999], 0);
    EXPECT_EQ(flags[10000], 1);
    EXPECT_EQ(flags[15000], 0) << "(0,-1)";
    // Only the list counts: an entry after its closing bracket is not an input.
    EXPECT_FALSE(
        parseMarker(
            "aten::add, op_id = 7, sizes = [[4], [4]], input_op_ids = [(3,0), (0,-1)] (3,0)")
            .repeatedInput);
    EXPECT_FALSE(parseMarker("aten::mm, op_id = 2, input_op_ids = [(1,").repeatedInput)
        << "cut short";
}

TEST(PytorchMarker, LargeIdsParse) {
    const auto m = parseMarker("aten::add_, seq = 2147483647, op_id = 9007199254740993");
    EXPECT_EQ(m.seq, 2147483647);
    EXPECT_EQ(m.opId, 9007199254740993);
}

} // namespace
