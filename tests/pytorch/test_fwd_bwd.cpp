// Forward ops and backward nodes side by side, checked on the sample trace against the raw seq
// fields, the CLI's layer_sum and `ops` outputs.
#include "core/views/fwd_bwd.h"
#include "tests/support/sample_fixture.h"

#include <cmath>
#include <gtest/gtest.h>
#include <map>

namespace {

class FwdBwdSample : public ls::test::SampleTraceSuite {
  protected:
    void SetUp() override { pairs_ = ls::buildFwdBwdPairs(*trace_); }
    std::string_view name(ls::OpId op) const {
        return trace_->str(trace_->ranges.name[trace_->ops.range[op.value].value]);
    }
    int32_t seq(ls::OpId op) const { return trace_->ranges.seq[trace_->ops.range[op.value].value]; }
    ls::FwdBwdPairs pairs_;
};

TEST_F(FwdBwdSample, EveryBackward0NodeWithASeqPairsWithAForwardOpOfThatSeqAndLayer) {
    size_t checked = 0;
    for (const auto& node : pairs_.backward) {
        const std::string_view n = name(node.op);
        if (n.size() < 9 || n.substr(n.size() - 9) != "Backward0" || seq(node.op) < 0) continue;
        ASSERT_EQ(node.partners.size(), 1u) << n;
        const auto& fwd = pairs_.forward[node.partners.front()];
        EXPECT_EQ(seq(fwd.op), seq(node.op)) << n << " ↔ " << name(fwd.op);
        EXPECT_EQ(trace_->ops.layer[fwd.op.value], trace_->ops.layer[node.op.value]) << n;
        EXPECT_LT(trace_->ranges.start[trace_->ops.range[fwd.op.value].value],
                  trace_->ranges.start[trace_->ops.range[node.op.value].value]);
        EXPECT_TRUE(node.unpairedReason.empty());
        // The forward op lists the node back.
        const uint32_t me = static_cast<uint32_t>(&node - pairs_.backward.data());
        EXPECT_NE(std::find(fwd.partners.begin(), fwd.partners.end(), me), fwd.partners.end());
        ++checked;
    }
    EXPECT_GE(checked, 40u); // the sample's 2-layer GPT has dozens of nodes
}

TEST_F(FwdBwdSample, UnpairedRowsSayWhyAndPairedOnesDoNot) {
    for (const auto* side : {&pairs_.forward, &pairs_.backward})
        for (const auto& row : *side)
            EXPECT_EQ(row.partners.empty(), !row.unpairedReason.empty()) << name(row.op);
    // Forward ops without a seq (no autograd node) say so.
    bool sawNoSeq = false;
    for (const auto& row : pairs_.forward)
        if (seq(row.op) < 0) {
            sawNoSeq = true;
            EXPECT_NE(row.unpairedReason.find("no seq"), std::string::npos);
        }
    EXPECT_TRUE(sawNoSeq);
}

TEST_F(FwdBwdSample, OpRowsMatchTheCliOpsCommand) {
    const auto ops = ls::test::cliTable({"ops", ls::test::sampleTrace().string()});
    std::map<std::string, std::pair<std::string, std::string>> byOpId; // op_id -> kernels, gpu time
    for (size_t r = 0; r < ops.rows.size(); ++r)
        if (!ops.at(r, "op_id").empty())
            byOpId[ops.at(r, "op_id")] = {ops.at(r, "kernels"), ops.at(r, "gpu_time_ns")};
    size_t compared = 0;
    for (const auto* side : {&pairs_.forward, &pairs_.backward})
        for (const auto& row : *side) {
            const int32_t opId = trace_->ranges.opId[trace_->ops.range[row.op.value].value];
            const auto it = byOpId.find(std::to_string(opId));
            if (opId < 0 || it == byOpId.end()) continue;
            EXPECT_EQ(std::to_string(row.kernels), it->second.first) << name(row.op);
            EXPECT_EQ(std::to_string(row.gpuTimeNs), it->second.second) << name(row.op);
            ++compared;
        }
    EXPECT_GT(compared, 50u);
}

TEST_F(FwdBwdSample, PerLayerForwardAndBackwardTimesAreLayerSums) {
    const auto layerSum =
        ls::test::cliTable({"summary", ls::test::sampleTrace().string(), "--report", "layer_sum"});
    const auto rows = ls::fwdBwdByLayer(*trace_);
    ASSERT_FALSE(rows.empty());
    for (const auto& row : rows) {
        for (size_t r = 0; r < layerSum.rows.size(); ++r) {
            if (layerSum.at(r, "layer") != row.key) continue;
            if (layerSum.at(r, "direction") == "forward") {
                EXPECT_EQ(std::to_string(row.forwardNs), layerSum.at(r, "gpu_time_ns")) << row.key;
                EXPECT_EQ(std::to_string(row.forwardKernels), layerSum.at(r, "kernels")) << row.key;
            }
            if (layerSum.at(r, "direction") == "backward") {
                EXPECT_EQ(std::to_string(row.backwardNs), layerSum.at(r, "gpu_time_ns")) << row.key;
            }
        }
        if (row.forwardNs) {
            EXPECT_DOUBLE_EQ(row.ratio, static_cast<double>(row.backwardNs) /
                                            static_cast<double>(row.forwardNs));
        }
    }
    // layer0: 112 µs forward, 224 µs backward in the sample (layer_sum), a ratio near 2.
    const auto layer0 =
        std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.key == "layer0"; });
    ASSERT_NE(layer0, rows.end());
    EXPECT_NEAR(layer0->ratio, 2.0, 0.05);
}

TEST_F(FwdBwdSample, PerOpTypeRowsSumTheirOpsAndPairedNodes) {
    const auto rows = ls::fwdBwdByOpType(*trace_, pairs_);
    uint64_t forward = 0, backward = 0;
    for (const auto& r : rows) {
        forward += r.forwardNs;
        backward += r.backwardNs;
    }
    uint64_t forwardOps = 0, pairedNodes = 0;
    for (const auto& f : pairs_.forward) forwardOps += f.gpuTimeNs;
    for (const auto& b : pairs_.backward)
        if (!b.partners.empty()) pairedNodes += b.gpuTimeNs;
    EXPECT_EQ(forward, forwardOps);
    EXPECT_EQ(backward, pairedNodes);
    const auto linear = std::find_if(rows.begin(), rows.end(),
                                     [](const auto& r) { return r.key == "aten::linear"; });
    ASSERT_NE(linear, rows.end());
    EXPECT_GT(linear->backwardNs, linear->forwardNs); // dgrad + wgrad
}

} // namespace

namespace {

// The apex LSTM (nvprof, PyTorch 1.4 markers without op_id, backward nodes named `MmBackward`):
// nodes still pair with the forward op of their seq.
TEST(FwdBwdLstm, OldStyleNodesPairBySeq) {
    const auto file = ls::test::thirdPartyTrace("pyprof_lstm_v100.nvprof.sql");
    LS_REQUIRE_FILE(file);
    const auto r = ls::loadTrace(file.string());
    ASSERT_TRUE(r.ok());
    const auto& t = *r.trace;
    const auto pairs = ls::buildFwdBwdPairs(t);
    size_t paired = 0, withSeq = 0;
    for (const auto& node : pairs.backward) {
        const int32_t seq = t.ranges.seq[t.ops.range[node.op.value].value];
        if (seq < 0) continue;
        ++withSeq;
        if (node.partners.empty()) continue;
        ++paired;
        EXPECT_EQ(t.ranges.seq[t.ops.range[pairs.forward[node.partners.front()].op.value].value],
                  seq);
    }
    EXPECT_GT(withSeq, 20u);
    EXPECT_EQ(paired, withSeq);
}

} // namespace
