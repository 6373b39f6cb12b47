// `layerscope-cli summary --report gpukernsum|api_sum` against what NVIDIA's own `nsys stats`
// (2022.4: gpukernsum, cudaapisum) printed for the same exports (tests/data/golden).
#include "core/load/load.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <string>

namespace {

using namespace ls::test;

size_t columnIndex(const CsvTable& t, const std::string& name) {
    const auto& h = t.front();
    return static_cast<size_t>(std::find(h.begin(), h.end(), name) - h.begin());
}

// Header first, then the data rows sorted: nsys prints rows of equal total time in any order.
std::string canonical(const CsvTable& t) {
    std::vector<std::string> rows;
    for (size_t i = 1; i < t.size(); ++i) rows.push_back(formatCsvRow(t[i]));
    std::sort(rows.begin(), rows.end());
    std::string out = t.empty() ? std::string() : formatCsvRow(t.front()) + "\n";
    for (const auto& r : rows) out += r + "\n";
    return out;
}

void expectSortedByTotalDescending(const CsvTable& t) {
    const size_t col = columnIndex(t, "Total Time (ns)");
    ASSERT_LT(col, t.front().size()) << "no Total Time (ns) column";
    for (size_t i = 2; i < t.size(); ++i)
        EXPECT_GE(std::stoull(t[i - 1][col]), std::stoull(t[i][col]))
            << "rows " << i - 1 << " and " << i << " out of order";
}

// Our report equals the golden one as a set of rows; on mismatch writes <trace>.<kind>.actual
// in the build tree and prints a diff of both, rows sorted.
void checkAgainstGolden(const TraceCase& c, const std::string& report, const std::string& kind) {
    std::string raw;
    const CsvTable ours = runSummary(c, report, raw);
    const CsvTable golden = readGolden(c, kind);
    ASSERT_FALSE(ours.empty());
    ASSERT_FALSE(golden.empty());
    EXPECT_EQ(ours.front(), golden.front()) << "header differs";
    // Reports by time sort by total time (gpumemsizesum sorts by size, kernexecsum by average).
    if (columnIndex(ours, "Total Time (ns)") < ours.front().size())
        expectSortedByTotalDescending(ours);
    const std::string expected = canonical(golden), actual = canonical(ours);
    if (expected != actual) {
        const fs::path out = outputDir() / (c.name + "." + kind + ".actual");
        writeFile(out, raw);
        ADD_FAILURE() << c.name << " " << report << " differs from "
                      << (goldenDir() / (c.name + "." + kind + ".csv")) << "\nour output: " << out
                      << "\n(rows sorted on both sides)\n"
                      << lineDiff(expected, actual);
    }
}

class GoldenKernelSummary : public ::testing::TestWithParam<TraceCase> {};

TEST_P(GoldenKernelSummary, GpuKernSumByGridBlockAndNameEqualsNsys2022) {
    LS_REQUIRE_FILE(GetParam().path);
    checkAgainstGolden(GetParam(), "gpukernsum", "gpukernsum");
}

INSTANTIATE_TEST_SUITE_P(Traces, GoldenKernelSummary, ::testing::ValuesIn(goldenTraces()),
                         traceParamName);

class GoldenApiSummary : public ::testing::TestWithParam<TraceCase> {};

TEST_P(GoldenApiSummary, ApiSumEqualsNsys2022CudaApiSum) {
    LS_REQUIRE_FILE(GetParam().path);
    checkAgainstGolden(GetParam(), "api_sum", "cudaapisum");
}

// The memory reports of nsys stats 2022.4, on every golden trace (each has copies or sets).
class GoldenMemorySummaries : public ::testing::TestWithParam<TraceCase> {};

TEST_P(GoldenMemorySummaries, MemTimeSumEqualsNsys2022GpuMemTimeSum) {
    LS_REQUIRE_FILE(GetParam().path);
    checkAgainstGolden(GetParam(), "mem_time_sum", "gpumemtimesum");
}

TEST_P(GoldenMemorySummaries, MemSizeSumEqualsNsys2022GpuMemSizeSum) {
    LS_REQUIRE_FILE(GetParam().path);
    checkAgainstGolden(GetParam(), "mem_size_sum", "gpumemsizesum");
}

TEST_P(GoldenMemorySummaries, GpuSumEqualsNsys2022GpuSum) {
    LS_REQUIRE_FILE(GetParam().path);
    checkAgainstGolden(GetParam(), "gpu_sum", "gpusum");
}

INSTANTIATE_TEST_SUITE_P(Traces, GoldenMemorySummaries, ::testing::ValuesIn(goldenTraces()),
                         traceParamName);

// kernexecsum joins kernels to runtime rows as nsys 2022.4 does, except that each call counts
// once where older exports hold two rows per call (saxpy: see below).
class GoldenKernelExecSummary : public ::testing::TestWithParam<TraceCase> {};

TEST_P(GoldenKernelExecSummary, KernExecSumEqualsNsys2022KernExecSum) {
    LS_REQUIRE_FILE(GetParam().path);
    checkAgainstGolden(GetParam(), "kern_exec_sum", "kernexecsum");
}

std::vector<TraceCase> apiGoldenTraces();
INSTANTIATE_TEST_SUITE_P(Traces, GoldenKernelExecSummary, ::testing::ValuesIn(apiGoldenTraces()),
                         traceParamName);

// saxpy's export holds a CUDA backtrace row (eventClass 67) beside each launch call with the same
// correlation id, and nsys 2022.4 joins every kernel to both: its one row counts 10 launches of 5
// kernels. Ours counts the 5 launches SQL finds; the kernel times, which the duplicate does not
// change, equal nsys's.
TEST(SaxpyKernelExecSummary, CountsEachLaunchOnceWithNsysKernelTimes) {
    const TraceCase& c = goldenTrace("saxpy_mpi_perlmutter.nsys");
    LS_REQUIRE_FILE(c.path);
    std::string raw;
    const CsvTable ours = runSummary(c, "kern_exec_sum", raw);
    const CsvTable golden = readGolden(c, "kernexecsum");
    ASSERT_EQ(ours.size(), 2u);
    ASSERT_EQ(golden.size(), 2u);
    ASSERT_EQ(ours[0], golden[0]);
    const size_t count = columnIndex(ours, "Count");
    EXPECT_EQ(std::stoll(ours[1][count]),
              SqlReader(c.path).scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    EXPECT_EQ(2 * std::stoll(ours[1][count]), std::stoll(golden[1][count]));
    for (const char* column : {"KAvg (ns)", "KMed (ns)", "KMin (ns)", "KMax (ns)", "TMin (ns)",
                               "API Name", "Kernel Name"})
        EXPECT_EQ(ours[1][columnIndex(ours, column)], golden[1][columnIndex(golden, column)])
            << column;
}

// osrtsum on the two traces recorded with -t osrt (tests/data): the OS runtime calls of event
// class 27 by name. A trace without OS runtime data gives the header alone.
TEST(GoldenOsRuntimeSummary, OsrtSumEqualsNsys2022OsrtSum) {
    for (const auto& [file, golden] : std::vector<std::pair<fs::path, std::string>>{
             {sourceDir() / "tests/data/iterations/gpt2_fp16_5it_h100.sqlite",
              "gpt2_fp16_5it_h100.osrtsum.csv"},
             {sourceDir() / "tests/data/compare/gpt2_2layer_bf16_b8_h200.sqlite",
              "gpt2_2layer_bf16_b8_h200.osrtsum.csv"}}) {
        const CliResult r = runCli({"summary", file.string(), "--report", "osrt_sum"});
        ASSERT_EQ(r.rc, 0) << r.err;
        const CsvTable ours = parseCsv(r.out), expected = parseCsv(readFile(goldenDir() / golden));
        EXPECT_EQ(canonical(ours), canonical(expected)) << golden;
        EXPECT_GT(ours.size(), 2u);
        expectSortedByTotalDescending(ours);
    }
    const CliResult none = runCli({"summary", sampleTrace().string(), "--report", "osrt_sum"});
    ASSERT_EQ(none.rc, 0);
    EXPECT_EQ(parseCsv(none.out).size(), 1u);
}

// saxpy is left out here on purpose: see SaxpyApiSum below.
std::vector<TraceCase> apiGoldenTraces() {
    std::vector<TraceCase> v;
    for (const auto& c : goldenTraces())
        if (c.name != "saxpy_mpi_perlmutter.nsys") v.push_back(c);
    return v;
}

INSTANTIATE_TEST_SUITE_P(Traces, GoldenApiSummary, ::testing::ValuesIn(apiGoldenTraces()),
                         traceParamName);

// saxpy_mpi_perlmutter is an older export (2022.2, schema 2.9) that stores two
// CUPTI_ACTIVITY_KIND_RUNTIME rows for some calls: the call (eventClass 0, `cudaMemcpy_v3020`)
// and a CUDA backtrace row (eventClass 67, `cudaMemcpy`) with the same correlation id. nsys 2022.4
// cudaapisum counts both, so its file lists cudaMemcpy, cudaMalloc, cudaFree and cudaLaunchKernel
// twice. We count each call once on purpose (DESIGN.md, Inputs). So instead of equality:
//  1. each of our rows equals one golden row of the same name on every column but Time (%)
//     (the golden percentages are shares of a total that includes the duplicates);
//  2. the golden rows left over are exactly the eventClass 67 rows, grouped by name, as SQL
//     counts them over the same file;
//  3. their calls add up to the load report's duplicate_runtime_row count (38).
TEST(SaxpyApiSum, CountsEachCallOnceWhereNsys2022CountsBacktraceRowsTwice) {
    const TraceCase& c = goldenTrace("saxpy_mpi_perlmutter.nsys");
    LS_REQUIRE_FILE(c.path);
    std::string raw;
    const CsvTable ours = runSummary(c, "api_sum", raw);
    const CsvTable golden = readGolden(c, "cudaapisum");
    ASSERT_FALSE(ours.empty());
    ASSERT_FALSE(golden.empty());
    ASSERT_EQ(ours.front(), golden.front());
    expectSortedByTotalDescending(ours);
    const size_t nameCol = columnIndex(golden, "Name"), callsCol = columnIndex(golden, "Num Calls"),
                 totalCol = columnIndex(golden, "Total Time (ns)"),
                 minCol = columnIndex(golden, "Min (ns)"), maxCol = columnIndex(golden, "Max (ns)");

    // 1. Match each of our rows to one golden row, ignoring column 0 (Time (%)).
    std::vector<std::vector<std::string>> left(golden.begin() + 1, golden.end());
    double percent = 0;
    for (size_t i = 1; i < ours.size(); ++i) {
        percent += std::stod(ours[i][0]);
        const auto it = std::find_if(left.begin(), left.end(), [&](const auto& g) {
            return std::equal(g.begin() + 1, g.end(), ours[i].begin() + 1, ours[i].end());
        });
        if (it == left.end()) {
            ADD_FAILURE() << "our row matches no golden row: " << formatCsvRow(ours[i]);
            continue;
        }
        left.erase(it);
    }
    EXPECT_NEAR(percent, 100.0, 0.5) << "our percentages are shares of our own total";

    // 2. What is left in the golden file: the backtrace rows, as SQL groups them.
    std::map<std::string, std::vector<std::string>> dropped; // name -> calls, total, min, max
    SqlReader sql(c.path);
    ASSERT_TRUE(sql.ok());
    sql.each("SELECT s.value, count(*), sum(r.end - r.start), min(r.end - r.start), max(r.end - "
             "r.start) "
             "FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
             "WHERE r.eventClass = 67 GROUP BY s.value",
             [&](sqlite3_stmt* st) {
                 dropped[SqlReader::text(st, 0)] = {std::to_string(SqlReader::int64(st, 1)),
                                                    std::to_string(SqlReader::int64(st, 2)),
                                                    std::to_string(SqlReader::int64(st, 3)),
                                                    std::to_string(SqlReader::int64(st, 4))};
             });
    std::map<std::string, std::vector<std::string>> leftOver;
    int64_t droppedCalls = 0;
    for (const auto& g : left) {
        EXPECT_FALSE(leftOver.count(g[nameCol]))
            << "two left-over golden rows named " << g[nameCol];
        leftOver[g[nameCol]] = {g[callsCol], g[totalCol], g[minCol], g[maxCol]};
        droppedCalls += std::stoll(g[callsCol]);
    }
    EXPECT_EQ(leftOver, dropped)
        << "left-over golden rows (name -> calls, total, min, max) vs eventClass 67 rows in SQL";
    EXPECT_EQ(dropped.size(), 4u) << "cudaMemcpy, cudaMalloc, cudaFree, cudaLaunchKernel";
    EXPECT_EQ(ours.size() - 1, golden.size() - 1 - dropped.size());

    // 3. The load report counts the same rows.
    const auto loaded = ls::loadTrace(c.path.string());
    ASSERT_TRUE(loaded.ok());
    EXPECT_EQ(loaded.trace->report.count(ls::Anomaly::DuplicateRuntimeRow), 38u);
    EXPECT_EQ(droppedCalls, 38);
}

} // namespace
