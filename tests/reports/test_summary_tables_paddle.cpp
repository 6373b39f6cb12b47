// Paddle's summary tables (`summary --report overview|model|distribution|operator|kernel_table`):
// on the Paddle fixtures, every number equals the tables tests/data/paddle/make_fixtures.py
// computed from the events in Python; on the project's own nsys and PyTorch profiler traces the
// Model table's forward/backward/optimizer GPU times equal iter_sum's, the Operator tree's kernel
// rows add up to kern_sum, and the Kernel and Overview tables equal SQL over the export.
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <map>
#include <sqlite3.h>
#include <string>

namespace ls::test {
namespace {

fs::path paddleDir() { return sourceDir() / "tests" / "data" / "paddle"; }
fs::path paddleFixture(const std::string& stem = "paddle_gpt_2steps") {
    return paddleDir() / (stem + ".paddle_trace.json");
}

std::string summary(const fs::path& file, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"summary", file.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult r = runCli(args);
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.err, "");
    return r.out;
}

CsvTable table(const fs::path& file, const std::string& report) {
    std::string error;
    CsvTable t = parseCsv(summary(file, {"--report", report}), &error);
    EXPECT_EQ(error, "");
    return t;
}

// Expected CSV beside the fixture; on a mismatch the actual output is written as .actual.
void expectGolden(const std::string& report, const std::vector<std::string>& sortArgs,
                  const std::string& suffix) {
    std::vector<std::string> args = {"--report", report};
    args.insert(args.end(), sortArgs.begin(), sortArgs.end());
    const std::string actual = summary(paddleFixture(), args);
    const fs::path expectedFile =
        paddleDir() / "expected" / ("paddle_gpt_2steps." + report + suffix + ".csv");
    const std::string expected = readFile(expectedFile);
    if (actual != expected) {
        writeFile(outputDir() / ("paddle_gpt_2steps." + report + suffix + ".csv.actual"), actual);
        ADD_FAILURE() << report << suffix << " differs from " << expectedFile << ":\n"
                      << lineDiff(expected, actual);
    }
}

TEST(PaddleSummaryTables, EveryTableEqualsThePythonComputation) {
    for (const char* report : {"overview", "model", "distribution", "operator", "kernel_table"})
        expectGolden(report, {}, "");
    expectGolden("operator", {"--sort", "gpu_total"}, ".gpu_total");
    expectGolden("operator", {"--sort", "cpu_min"}, ".cpu_min");
    expectGolden("kernel_table", {"--sort", "gpu_min"}, ".gpu_min");
}

TEST(PaddleSummaryTables, OlderLowercaseTraceGivesTheSameTables) {
    for (const char* report : {"overview", "model", "distribution", "operator", "kernel_table"})
        EXPECT_EQ(summary(paddleFixture("paddle_gpt_2steps_lowercase"), {"--report", report}),
                  summary(paddleFixture(), {"--report", report}))
            << report;
}

TEST(PaddleSummaryTables, TableFormatIsLaidOutAsPaddlePrintsIt) {
    const std::string text = summary(paddleFixture(), {"--report", "model", "--format", "table"});
    const auto lines = splitLines(text);
    ASSERT_GT(lines.size(), 6u);
    EXPECT_NE(lines[0].find("Model Summary"), std::string::npos);
    EXPECT_EQ(lines[0].front(), '-');
    EXPECT_EQ(lines[1], "Time unit: ms");
    EXPECT_NE(lines[3].find("CPU Total / Avg / Max / Min / Ratio(%)"), std::string::npos);
    EXPECT_EQ(lines[5].substr(0, 17), "ProfileStep      ");
    EXPECT_NE(lines[5].find("18.00 / 9.00 / 9.00 / 9.00 / 100.00"), std::string::npos) << lines[5];
    bool others = false;
    for (const auto& l : lines) others = others || l.starts_with("  Others");
    EXPECT_TRUE(others);
    const std::string us = summary(
        paddleFixture(), {"--report", "overview", "--format", "table", "--time-unit", "us"});
    EXPECT_NE(us.find("Time unit: us"), std::string::npos);
    EXPECT_NE(us.find("GPU Time"), std::string::npos);
}

TEST(PaddleSummaryTables, BadOptionsAreUsageErrors) {
    CliResult r =
        runCli({"summary", paddleFixture().string(), "--report", "operator", "--sort", "fastest"});
    EXPECT_NE(r.rc, 0);
    EXPECT_NE(r.err.find("--sort must be one of"), std::string::npos) << r.err;
    r = runCli(
        {"summary", paddleFixture().string(), "--report", "kern_sum", "--sort", "cpu_total"});
    EXPECT_NE(r.rc, 0);
    r = runCli({"summary", paddleFixture().string(), "--report", "model", "--time-unit", "h"});
    EXPECT_NE(r.rc, 0);
}

// ---- the project's own traces: the Model and Operator tables against iter_sum and kern_sum ----

int64_t num(const std::string& s) { return s.empty() ? 0 : std::stoll(s); }

size_t column(const CsvTable& t, const std::string& name) {
    for (size_t i = 0; i < t[0].size(); ++i)
        if (t[0][i] == name) return i;
    ADD_FAILURE() << "no column " << name;
    return 0;
}

void expectModelEqualsIterSumAndOperatorEqualsKernSum(const fs::path& file) {
    SCOPED_TRACE(file.string());
    const CsvTable iter = table(file, "iter_sum");
    ASSERT_GE(iter.size(), 2u);
    int64_t forward = 0, backward = 0, optimizer = 0;
    for (size_t r = 1; r < iter.size(); ++r) {
        if (iter[r][0] == "median") continue;
        forward += num(iter[r][column(iter, "forward_ns")]);
        backward += num(iter[r][column(iter, "backward_ns")]);
        optimizer += num(iter[r][column(iter, "optimizer_ns")]);
    }
    const CsvTable model = table(file, "model");
    std::map<std::string, int64_t> gpu;
    for (size_t r = 1; r < model.size(); ++r) gpu[model[r][0]] = num(model[r][7]);
    EXPECT_EQ(gpu["Forward"], forward);
    EXPECT_EQ(gpu["Backward"], backward);
    EXPECT_EQ(gpu["Optimization"], optimizer);
    EXPECT_GT(forward, 0);

    const CsvTable kern = table(file, "kern_sum");
    int64_t kernTotal = 0, kernCount = 0;
    for (size_t r = 1; r < kern.size(); ++r) {
        kernTotal += num(kern[r][1]);
        kernCount += num(kern[r][2]);
    }
    const CsvTable op = table(file, "operator");
    int64_t treeTotal = 0, treeCount = 0;
    for (size_t r = 1; r < op.size(); ++r)
        if (op[r][13] == "kernel") {
            treeTotal += num(op[r][7]);
            treeCount += num(op[r][1]);
        }
    EXPECT_EQ(treeTotal, kernTotal);
    EXPECT_EQ(treeCount, kernCount);
    // The Kernel table is kern_sum by another name: same total.
    const CsvTable kt = table(file, "kernel_table");
    int64_t ktTotal = 0;
    for (size_t r = 1; r < kt.size(); ++r) ktTotal += num(kt[r][7]);
    EXPECT_EQ(ktTotal, kernTotal);
    EXPECT_EQ(kt.size(), kern.size());
}

TEST(SummaryTablesOnRealTraces, BundledNsysSample) {
    expectModelEqualsIterSumAndOperatorEqualsKernSum(sampleTrace());
}

TEST(SummaryTablesOnRealTraces, KinetoSample) {
    expectModelEqualsIterSumAndOperatorEqualsKernSum(sourceDir() / "tests" / "data" / "kineto" /
                                                     "gpt2_2layer_fp16_h200.kineto.json.gz");
}

TEST(SummaryTablesOnRealTraces, SharedNsysAndKinetoTraces) {
    for (const char* name : {"gpt2_2layer_fp16_h200.sqlite", "gpt2_2layer_bf16_b8_h200.sqlite",
                             "gpt2_2layer_fp16_h200.kineto.json.gz"}) {
        const fs::path p = sharedDir() / "traces" / name;
        if (!fs::exists(p)) {
            GTEST_LOG_(INFO) << p << " absent: skipped";
            continue;
        }
        expectModelEqualsIterSumAndOperatorEqualsKernSum(p);
    }
}

// FSDP: NCCL kernels on their own streams overlap the backward GEMMs. The Model table sums, as
// Paddle does, iter_sum merges: forward and optimizer agree, backward is larger by the overlap.
TEST(SummaryTablesOnRealTraces, FsdpModelSumsWhatIterSumMerges) {
    const fs::path file = sharedDir() / "traces" / "fsdp_rank0.kineto.json.gz";
    LS_REQUIRE_FILE(file);
    const CsvTable iter = table(file, "iter_sum");
    int64_t forward = 0, backward = 0, optimizer = 0;
    for (size_t r = 1; r < iter.size(); ++r) {
        if (iter[r][0] == "median") continue;
        forward += num(iter[r][column(iter, "forward_ns")]);
        backward += num(iter[r][column(iter, "backward_ns")]);
        optimizer += num(iter[r][column(iter, "optimizer_ns")]);
    }
    std::map<std::string, int64_t> gpu;
    const CsvTable model = table(file, "model");
    for (size_t r = 1; r < model.size(); ++r) gpu[model[r][0]] = num(model[r][7]);
    EXPECT_EQ(gpu["Forward"], forward);
    EXPECT_EQ(gpu["Optimization"], optimizer);
    EXPECT_GT(gpu["Backward"], backward);
}

// Kernel table and Overview's GPU rows against SQL over the same export: per name, the count,
// total, max and min of end - start; the union of all kernels' [start, end).
TEST(SummaryTablesOnRealTraces, KernelTableAndOverviewEqualSql) {
    const fs::path file = sampleTrace();
    SqlReader sql(file);
    ASSERT_TRUE(sql.ok());
    std::map<std::string, std::vector<int64_t>> expected;
    sql.each("SELECT s.value, COUNT(*), SUM(k.end - k.start), MAX(k.end - k.start), "
             "MIN(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
             "ON s.id = k.demangledName GROUP BY s.value",
             [&](sqlite3_stmt* st) {
                 expected[SqlReader::text(st, 0)] = {
                     SqlReader::int64(st, 1), SqlReader::int64(st, 2), SqlReader::int64(st, 3),
                     SqlReader::int64(st, 4)};
             });
    const CsvTable kt = table(file, "kernel_table");
    ASSERT_EQ(kt.size(), expected.size() + 1);
    for (size_t r = 1; r < kt.size(); ++r) {
        const auto it = expected.find(kt[r][0]);
        ASSERT_NE(it, expected.end()) << kt[r][0];
        EXPECT_EQ(num(kt[r][1]), it->second[0]) << kt[r][0];
        EXPECT_EQ(num(kt[r][7]), it->second[1]) << kt[r][0];
        EXPECT_EQ(num(kt[r][9]), it->second[2]) << kt[r][0];
        EXPECT_EQ(num(kt[r][10]), it->second[3]) << kt[r][0];
    }
    // Union of kernel intervals, merged in SQL order.
    int64_t unionNs = 0, curStart = -1, curEnd = -1;
    sql.each("SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start",
             [&](sqlite3_stmt* st) {
                 const int64_t s = SqlReader::int64(st, 0), e = SqlReader::int64(st, 1);
                 if (s > curEnd) {
                     if (curEnd > curStart) unionNs += curEnd - curStart;
                     curStart = s;
                     curEnd = e;
                 } else if (e > curEnd) {
                     curEnd = e;
                 }
             });
    if (curEnd > curStart) unionNs += curEnd - curStart;
    const CsvTable ov = table(file, "overview");
    bool found = false;
    for (size_t r = 1; r < ov.size(); ++r)
        if (ov[r][0] == "Kernel") {
            found = true;
            EXPECT_EQ(num(ov[r][7]), unionNs);
            EXPECT_EQ(num(ov[r][1]), sql.scalar("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
        }
    EXPECT_TRUE(found);
    const int64_t runtimeRows = sql.scalar("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME");
    for (size_t r = 1; r < ov.size(); ++r)
        if (ov[r][0] == "CudaRuntime") {
            EXPECT_EQ(num(ov[r][1]), runtimeRows);
        }
}

// Distribution on a DDP rank: computation is the union of the non-NCCL kernels (SQL), and the
// communication includes every NCCL kernel's time.
TEST(SummaryTablesOnRealTraces, DistributionOnDdpRankEqualsSql) {
    const fs::path file = sharedDir() / "traces" / "ddp_bf16_h200x2_rank0.sqlite";
    LS_REQUIRE_FILE(file);
    SqlReader sql(file);
    auto unionOf = [&](const std::string& where) {
        int64_t total = 0, cs = -1, ce = -1;
        sql.each("SELECT k.start, k.end FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON "
                 "s.id = k.demangledName WHERE " +
                     where + " ORDER BY k.start",
                 [&](sqlite3_stmt* st) {
                     const int64_t s = SqlReader::int64(st, 0), e = SqlReader::int64(st, 1);
                     if (s > ce) {
                         if (ce > cs) total += ce - cs;
                         cs = s;
                         ce = e;
                     } else if (e > ce) {
                         ce = e;
                     }
                 });
        if (ce > cs) total += ce - cs;
        return total;
    };
    const int64_t compute = unionOf("lower(s.value) NOT LIKE '%nccl%'");
    const int64_t comm = unionOf("lower(s.value) LIKE '%nccl%'");
    ASSERT_GT(comm, 0);
    const CsvTable d = table(file, "distribution");
    ASSERT_EQ(d.size(), 5u);
    EXPECT_EQ(d[3][0], "Computation");
    EXPECT_EQ(num(d[3][2]), compute);
    EXPECT_EQ(d[2][0], "Communication");
    EXPECT_GE(num(d[2][2]), comm);
    EXPECT_GT(num(d[4][2]), 0); // DDP overlaps its all-reduce with the backward pass
}

} // namespace
} // namespace ls::test
