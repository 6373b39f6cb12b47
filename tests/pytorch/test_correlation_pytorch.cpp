// PyTorch semantics on hand-built SQL fixtures (DESIGN.md): emit_nvtx op instances, backward
// nodes run by the autograd engine paired with forward ops by seq, directions (forward,
// backward, optimizer, other) and layers, in the model and through `kernels`, `ops`,
// `summary --report layer_sum|op_sum|nvtx_kern_sum`. Process 100: main thread 101, autograd
// thread 102.
#include "core/pytorch/correlation.h"
#include "tests/support/correlation_fixture.h"

#include <gtest/gtest.h>

namespace {

using namespace ls::test;
using namespace ls::test::fixture;

constexpr std::string_view kWrapper = "autograd::engine::evaluate_function: AddmmBackward0";

// Rows of `ops` by op_id.
std::map<std::string, std::map<std::string, std::string>> opsById(const std::string& file) {
    const CliTable t = cliTable({"ops", file});
    std::map<std::string, std::map<std::string, std::string>> out;
    for (size_t i = 0; i < t.rows.size(); ++i) {
        auto& row = out[t.at(i, "op_id")];
        EXPECT_TRUE(row.empty()) << "op_id " << t.at(i, "op_id") << " twice";
        for (size_t c = 0; c < t.header.size(); ++c) row[t.header[c]] = t.rows[i][c];
    }
    return out;
}

void expectOp(const std::map<std::string, std::map<std::string, std::string>>& ops,
              const std::string& opId, const std::map<std::string, std::string>& expected) {
    const auto it = ops.find(opId);
    ASSERT_NE(it, ops.end()) << "no op " << opId;
    for (const auto& [name, value] : expected)
        EXPECT_EQ(it->second.at(name), value) << "op " << opId << ", column " << name;
}

// Main thread: layer7 > aten::linear (seq 5, op 1) > aten::addmm (seq 6, op 2). Autograd thread:
// the engine's wrapper (op 10) around the node AddmmBackward0 (seq 6, op 11) and, outside the
// node, aten::sum (op 12, the bias gradient) and one launch made by the wrapper itself.
constexpr std::string_view kForwardBackward = R"(
    INSERT INTO NVTX_EVENTS(start, end, text, globalTid) VALUES
        (0, 1000, 'layer7', (100 << 24) | 101),
        (100, 500, 'aten::linear, seq = 5, op_id = 1, sizes = [[8, 768], [3072, 768], [3072]]', (100 << 24) | 101),
        (200, 400, 'aten::addmm, seq = 6, op_id = 2, sizes = [[3072], [8, 768], [768, 3072]], input_op_ids = [(0,-1), (1,0)]', (100 << 24) | 101),
        (2000, 3000, 'autograd::engine::evaluate_function: AddmmBackward0, op_id = 10', (100 << 24) | 102),
        (2100, 2500, 'AddmmBackward0, seq = 6, op_id = 11, sizes = [[8, 3072]], input_op_ids = [(9,0)]', (100 << 24) | 102),
        (2600, 2800, 'aten::sum, op_id = 12, sizes = [[8, 3072], [], [], []]', (100 << 24) | 102);
    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId, globalTid) VALUES
        (150, 160, 5, 11, (100 << 24) | 101), (250, 260, 1, 11, (100 << 24) | 101),
        (2200, 2210, 2, 11, (100 << 24) | 102), (2650, 2660, 3, 11, (100 << 24) | 102),
        (2900, 2910, 4, 11, (100 << 24) | 102);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
        (1100, 1110, 5, 1, 1), (1200, 1250, 1, 2, 2), (3100, 3150, 2, 3, 3), (3200, 3210, 3, 1, 1), (3300, 3305, 4, 2, 2);
)";

TEST(CorrelationPytorch, BackwardKernelsUnderTheEngineWrapperPairWithTheForwardOpOfTheirSeq) {
    TempDir dir;
    const auto l = loadFixture(dir, kForwardBackward);
    ASSERT_TRUE(l.trace);
    const auto& k = l.kernels;
    ASSERT_EQ(k.rows.size(), 5u);
    expectKernel(k, 0,
                 {{"nvtx_range",
                   "aten::linear, seq = 5, op_id = 1, sizes = [[8, 768], [3072, 768], [3072]]"},
                  {"nvtx_path", "layer7 > aten::linear"},
                  {"layer", "layer7"},
                  {"op", "aten::linear"},
                  {"seq", "5"},
                  {"op_id", "1"},
                  {"direction", "forward"},
                  {"fwd_op_id", ""},
                  {"sizes", "[[8, 768], [3072, 768], [3072]]"},
                  {"tid", "101"}});
    expectKernel(k, 1,
                 {{"nvtx_path", "layer7 > aten::linear > aten::addmm"},
                  {"layer", "layer7"},
                  {"op", "aten::addmm"},
                  {"seq", "6"},
                  {"op_id", "2"},
                  {"direction", "forward"},
                  {"fwd_op_id", ""},
                  {"sizes", "[[3072], [8, 768], [768, 3072]]"}});
    const std::string wrapper(kWrapper);
    expectKernel(
        k, 2,
        {{"nvtx_range",
          "AddmmBackward0, seq = 6, op_id = 11, sizes = [[8, 3072]], input_op_ids = [(9,0)]"},
         {"nvtx_path", wrapper + " > AddmmBackward0"},
         {"layer", "layer7"},
         {"op", "AddmmBackward0"},
         {"seq", "6"},
         {"op_id", "11"},
         {"direction", "backward"},
         {"fwd_op_id", "2"},
         {"tid", "102"}});
    expectKernel(k, 3,
                 {{"nvtx_path", wrapper + " > aten::sum"},
                  {"layer", "layer7"},
                  {"op", "aten::sum"},
                  {"seq", "6"},
                  {"op_id", "12"},
                  {"direction", "backward"},
                  {"fwd_op_id", "2"}});
    expectKernel(k, 4,
                 {{"nvtx_range", "autograd::engine::evaluate_function: AddmmBackward0, op_id = 10"},
                  {"nvtx_path", wrapper},
                  {"layer", "layer7"},
                  {"op", wrapper},
                  {"seq", "6"},
                  {"op_id", "10"},
                  {"direction", "backward"},
                  {"fwd_op_id", "2"}});

    const auto ops = opsById(l.file);
    EXPECT_EQ(ops.size(), 3u)
        << "aten::linear, aten::addmm (a seq of its own) and the backward node";
    expectOp(ops, "1",
             {{"name", "aten::linear"},
              {"seq", "5"},
              {"direction", "forward"},
              {"layer", "layer7"},
              {"tid", "101"},
              {"start_ns", "100"},
              {"end_ns", "500"},
              {"paired_op_id", ""}});
    expectOp(ops, "2",
             {{"name", "aten::addmm"},
              {"seq", "6"},
              {"direction", "forward"},
              {"layer", "layer7"},
              {"kernels", "1"},
              {"gpu_time_ns", "50"},
              {"paired_op_id", "11"}});
    expectOp(ops, "11",
             {{"name", "AddmmBackward0"},
              {"seq", "6"},
              {"direction", "backward"},
              {"layer", "layer7"},
              {"tid", "102"},
              {"start_ns", "2000"},
              {"end_ns", "3000"},
              {"kernels", "3"},
              {"gpu_time_ns", "65"},
              {"paired_op_id", "2"},
              {"sizes", "[[8, 3072]]"}});

    const auto& t = *l.trace;
    const auto layer = ls::kernelsOfLayer(t, t.strings.find("layer7"));
    EXPECT_EQ(layer.size(), 5u) << "both directions";
    EXPECT_EQ(cliTable({"kernels", l.file, "--layer", "layer7"}).rows.size(), 5u);

    EXPECT_EQ(splitLines(runCli({"summary", l.file, "--report", "layer_sum"}).out),
              (std::vector<std::string>{
                  "layer,direction,kernels,gpu_time_ns,gpu_time_pct,flops,tflops_s,tc_time_pct",
                  // backward: aten::sum over [8, 3072], one add per element,
                  // in its 10 ns kernel (the rate is over the kernels with
                  // FLOPs)
                  "layer7,backward,3,65,52.00,24576,2.458,0.00",
                  // forward: the addmm GEMM only; the kernel directly under
                  // aten::linear is auxiliary (0), not a second copy of it
                  "layer7,forward,2,60,48.00,37748736,629.146,0.00"}));
    EXPECT_EQ(
        splitLines(runCli({"summary", l.file, "--report", "op_sum"}).out),
        (std::vector<std::string>{
            "op,direction,instances,kernels,gpu_time_ns,gpu_time_pct,flops,tflops_s,tc_time_pct",
            "AddmmBackward0,backward,1,3,65,52.00,24576,2.458,0.00",
            "aten::addmm,forward,1,1,50,40.00,37748736,754.975,0.00",
            "aten::linear,forward,1,1,10,8.00,0,0.000,0.00"}));
}

// Ops that create no autograd node show the seq of the next one that does: with two top-level
// forward ops carrying seq 9, the node with seq 9 pairs with the later one.
TEST(CorrelationPytorch, SharedSeqPairsWithTheLaterForwardOp) {
    TempDir dir;
    const auto l = loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, text, globalTid) VALUES
            (100, 150, 'aten::view, seq = 9, op_id = 20', (100 << 24) | 101),
            (200, 300, 'aten::mul, seq = 9, op_id = 21', (100 << 24) | 101),
            (1000, 2000, 'autograd::engine::evaluate_function: MulBackward0, op_id = 30', (100 << 24) | 102),
            (1100, 1900, 'MulBackward0, seq = 9, op_id = 31', (100 << 24) | 102);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId, globalTid) VALUES
            (110, 120, 1, 11, (100 << 24) | 101), (210, 220, 2, 11, (100 << 24) | 101), (1200, 1210, 3, 11, (100 << 24) | 102);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (500, 510, 1, 1, 1), (600, 620, 2, 2, 2), (2500, 2540, 3, 3, 3);
    )");
    ASSERT_TRUE(l.trace);
    const auto ops = opsById(l.file);
    ASSERT_EQ(ops.size(), 3u);
    expectOp(ops, "20", {{"paired_op_id", ""}, {"direction", "forward"}});
    expectOp(ops, "21", {{"paired_op_id", "31"}, {"direction", "forward"}});
    expectOp(ops, "31", {{"paired_op_id", "21"}, {"direction", "backward"}, {"layer", ""}});
    expectKernel(l.kernels, 2,
                 {{"direction", "backward"}, {"fwd_op_id", "21"}, {"seq", "9"}, {"layer", ""}});
}

// Older PyTorch: no op_id, no aten:: prefix, `stashed seq` on the node and no engine wrapper.
TEST(CorrelationPytorch, OlderMarkersPairByStashedSeq) {
    TempDir dir;
    const auto l = loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, text, globalTid) VALUES
            (0, 1000, 'encoder.block.2', (100 << 24) | 101),
            (100, 200, 'addmm, seq = 5', (100 << 24) | 101),
            (2000, 2500, 'AddmmBackward, stashed seq = 5', (100 << 24) | 102);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId, globalTid) VALUES
            (110, 120, 1, 11, (100 << 24) | 101), (2100, 2110, 2, 11, (100 << 24) | 102);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (500, 510, 1, 1, 1), (2600, 2640, 2, 2, 2);
    )");
    ASSERT_TRUE(l.trace);
    const auto& t = *l.trace;
    ASSERT_EQ(t.ops.size(), 2u);
    ASSERT_TRUE(t.kernelLinks.opInstance[1].valid());
    const ls::OpId node = t.kernelLinks.opInstance[1], forward = t.kernelLinks.opInstance[0];
    EXPECT_EQ(t.ops.direction[node.value], ls::Direction::Backward);
    EXPECT_EQ(t.ops.paired[node.value], forward);
    EXPECT_EQ(t.ops.paired[forward.value], node);
    expectKernel(
        l.kernels, 0,
        {{"layer", "encoder.block.2"}, {"direction", "forward"}, {"op", "addmm"}, {"seq", "5"}});
    expectKernel(l.kernels, 1,
                 {{"layer", "encoder.block.2"},
                  {"direction", "backward"},
                  {"op", "AddmmBackward"},
                  {"seq", "5"}});
}

// Optimizer work: anything under a user range naming the optimizer, and optimizer ops
// (Optimizer.step, _foreach_) wherever they run. Other user phase ranges name their phase.
TEST(CorrelationPytorch, OptimizerRangesAndOpsGiveDirectionOptimizer) {
    TempDir dir;
    const auto l = loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, text) VALUES
            (0, 1000, 'optimizer'), (100, 200, 'aten::add_, op_id = 41'),
            (2000, 2100, 'aten::_foreach_add_, op_id = 40'),
            (3000, 3100, 'aten::add, op_id = 42'),
            (4000, 5000, 'backward'),
            (6000, 6100, 'Optimizer.step#SGD.step, op_id = 50');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId) VALUES
            (110, 120, 1, 11), (300, 310, 2, 11), (2010, 2020, 3, 11), (3010, 3020, 4, 11), (4100, 4110, 5, 11),
            (6010, 6020, 6, 11), (7000, 7010, 7, 11);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (10000, 10010, 1, 1, 1), (10100, 10110, 2, 1, 1), (10200, 10210, 3, 1, 1), (10300, 10310, 4, 1, 1),
            (10400, 10410, 5, 1, 1), (10500, 10510, 6, 1, 1), (10600, 10610, 7, 1, 1);
    )");
    ASSERT_TRUE(l.trace);
    const auto& k = l.kernels;
    ASSERT_EQ(k.rows.size(), 7u);
    expectKernel(k, 0,
                 {{"direction", "optimizer"},
                  {"op", "aten::add_"},
                  {"nvtx_path", "optimizer > aten::add_"}});
    expectKernel(k, 1, {{"direction", "optimizer"}, {"op", ""}, {"nvtx_range", "optimizer"}});
    expectKernel(k, 2, {{"direction", "optimizer"}, {"op", "aten::_foreach_add_"}, {"layer", ""}});
    expectKernel(k, 3, {{"direction", "forward"}, {"op", "aten::add"}, {"layer", ""}});
    expectKernel(k, 4, {{"direction", "backward"}, {"op", ""}, {"nvtx_range", "backward"}});
    expectKernel(k, 5, {{"direction", "optimizer"}, {"op", "Optimizer.step#SGD.step"}});
    expectKernel(k, 6, {{"direction", "other"}, {"op", ""}, {"nvtx_range", ""}, {"layer", ""}});
    const auto ops = opsById(l.file);
    expectOp(ops, "41", {{"direction", "optimizer"}});
    expectOp(ops, "40", {{"direction", "optimizer"}});
    expectOp(ops, "42", {{"direction", "forward"}});
    expectOp(ops, "50", {{"direction", "optimizer"}});
    EXPECT_EQ(l.nvtxKernSum.size(), 1u + 6u + 1u)
        << "header, one row per range text, None for the last kernel";
    ASSERT_GT(l.nvtxKernSum.size(), 1u);
    EXPECT_EQ(l.nvtxKernSum[1], "None,None,100,101,0,1,10,10.0,10.0,10,10,0.0,k_a");
}

} // namespace
