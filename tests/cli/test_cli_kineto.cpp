// layerscope-cli on PyTorch profiler traces: every command and report runs, and the per-layer and
// per-op figures of the two profiled steps are twice those of the nsys sample of the same program.
#include "tests/support/cli_table.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <map>

namespace {

using namespace ls::test;

fs::path gpt2Kineto() {
    return sourceDir() / "tests" / "data" / "kineto" / "gpt2_2layer_fp16_h200.kineto.json.gz";
}

TEST(CliKineto, EveryCommandAndReportRuns) {
    const std::string file = gpt2Kineto().string();
    for (const char* report : {"kern_sum", "gpukernsum", "api_sum", "nvtx_kern_sum", "nvtx_sum",
                               "layer_sum", "op_sum", "tc_sum"}) {
        const auto table = cliTable({"summary", file, "--report", report, "--format", "csv"});
        EXPECT_GT(table.rows.size(), 1u) << report;
    }
    EXPECT_EQ(cliTable({"kernels", file, "--format", "csv"}).rows.size(), 428u);
    EXPECT_GT(cliTable({"ops", file, "--format", "csv"}).rows.size(), 500u);
    const auto info = runCli({"info", file});
    EXPECT_EQ(info.rc, 0);
    EXPECT_NE(info.out.find("format: PyTorch profiler (Kineto) JSON\n"), std::string::npos)
        << info.out;
    EXPECT_NE(info.out.find("exporter: PyTorch profiler (Kineto), CUPTI 130001\n"),
              std::string::npos)
        << info.out;
    EXPECT_NE(info.out.find("kernels: 428\n"), std::string::npos) << info.out;
}

// (key columns) -> numeric column, for the rows of a report.
std::map<std::string, double> column(const CliTable& t, const std::vector<std::string>& keys,
                                     const std::string& value) {
    std::map<std::string, double> out;
    for (size_t r = 0; r < t.rows.size(); ++r) {
        std::string key;
        for (const auto& k : keys) key += t.at(r, k) + "|";
        out[key] += std::stod(t.at(r, value));
    }
    return out;
}

TEST(CliKineto, TwoStepsGiveTwiceTheNsysSamplesLayerAndOpCounts) {
    const auto json =
        cliTable({"summary", gpt2Kineto().string(), "--report", "layer_sum", "--format", "csv"});
    const auto nsys =
        cliTable({"summary", sampleTrace().string(), "--report", "layer_sum", "--format", "csv"});
    auto expected = column(nsys, {"layer", "direction"}, "kernels");
    for (auto& [key, n] : expected) n *= 2;
    EXPECT_EQ(column(json, {"layer", "direction"}, "kernels"), expected);

    const auto jsonOps =
        cliTable({"summary", gpt2Kineto().string(), "--report", "op_sum", "--format", "csv"});
    const auto nsysOps =
        cliTable({"summary", sampleTrace().string(), "--report", "op_sum", "--format", "csv"});
    auto expectedOps = column(nsysOps, {"op", "direction"}, "instances");
    for (auto& [key, n] : expectedOps) n *= 2;
    EXPECT_EQ(column(jsonOps, {"op", "direction"}, "instances"), expectedOps);
}

TEST(CliKineto, InfoShowsTheDistributedRank) {
    const auto info = runCli(
        {"info",
         (sourceDir() / "tests" / "data" / "kineto" / "fsdp_rank1.kineto.json.gz").string()});
    ASSERT_EQ(info.rc, 0) << info.err;
    EXPECT_NE(info.out.find("distributed: rank 1 of 2, backend nccl, NCCL 2.28.9\n"),
              std::string::npos)
        << info.out;
}

} // namespace
