// kern_sum over PyTorch profiler traces against an independent aggregation of the JSON written in
// Python (tools/kineto_kern_sum.py: json module, exact Decimal durations), byte for byte.
#include "tests/support/test_support.h"

#include <array>
#include <cstdio>
#include <gtest/gtest.h>
#include <memory>
#include <string>

namespace ls::test {
namespace {

// stdout of a shell command; its exit status in rc.
std::string runCommand(const std::string& command, int& rc) {
    std::string out;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) {
        rc = -1;
        return out;
    }
    std::array<char, 65536> buf{};
    size_t n = 0;
    while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
    rc = pclose(pipe);
    return out;
}

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

class KinetoKernSum : public ::testing::TestWithParam<fs::path> {};

TEST_P(KinetoKernSum, EqualsThePythonAggregationOfTheJson) {
    const fs::path trace = GetParam();
    LS_REQUIRE_FILE(trace);
    int rc = 0;
    const std::string expected = runCommand(
        "python3 " + quoted(sourceDir() / "tools" / "kineto_kern_sum.py") + " " + quoted(trace),
        rc);
    ASSERT_EQ(rc, 0) << "python3 tools/kineto_kern_sum.py failed";
    const auto actual =
        runCli({"summary", trace.string(), "--report", "kern_sum", "--format", "csv"});
    ASSERT_EQ(actual.rc, 0) << actual.err;
    EXPECT_EQ(actual.out, expected);
    // Kernel rows equal the number of kernel events: the Instances column sums to them.
    std::string error;
    const auto rows = parseCsv(actual.out, &error);
    ASSERT_TRUE(error.empty()) << error;
    uint64_t instances = 0;
    for (size_t i = 1; i < rows.size(); ++i) instances += std::stoull(rows[i].at(2));
    const auto kernels = runCli({"kernels", trace.string(), "--format", "csv"});
    const auto kernelRows = parseCsv(kernels.out, &error);
    EXPECT_EQ(instances, kernelRows.size() - 1);
}

std::vector<fs::path> kinetoTraces() {
    const fs::path data = sourceDir() / "tests" / "data" / "kineto";
    const fs::path hta = sharedDir() / "traces" / "third-party" / "kineto";
    return {data / "gpt2_2layer_fp16_h200.kineto.json.gz",
            data / "gpt2_2layer_fp16_stack_h100.kineto.json.gz",
            data / "fsdp_rank0.kineto.json.gz",
            data / "fsdp_rank1.kineto.json.gz",
            hta / "HTA__critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz",
            hta / "HTA__ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
            hta / "HTA__trace_filter_sampled_rank-0.json.gz"};
}

std::string traceName(const ::testing::TestParamInfo<fs::path>& p) {
    std::string s = p.param.filename().string();
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return s;
}

INSTANTIATE_TEST_SUITE_P(Traces, KinetoKernSum, ::testing::ValuesIn(kinetoTraces()), traceName);

} // namespace
} // namespace ls::test
