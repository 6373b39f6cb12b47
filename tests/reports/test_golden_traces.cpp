// `layerscope-cli summary --report nvtx_gpu_proj|gpu_trace|api_trace` against what NVIDIA's own
// `nsys stats` 2022.4 printed for the same exports (nvtxgpuproj, gputrace, cudaapitrace;
// tests/data/golden, made by tools/make_golden.sh). nvtx_gpu_proj's rows are made in chunks on
// every core: chunks of any size give the same table.
#include "core/load/load.h"
#include "core/reports/nvtx_gpu_projection.h"
#include "core/reports/report_parts.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <tuple>

namespace {

using namespace ls::test;

size_t columnIndex(const CsvTable& t, const std::string& name) {
    const auto& h = t.front();
    return static_cast<size_t>(std::find(h.begin(), h.end(), name) - h.begin());
}

std::string text(const CsvTable& t, bool sortRows) {
    std::vector<std::string> rows;
    for (size_t i = 1; i < t.size(); ++i) rows.push_back(formatCsvRow(t[i]));
    if (sortRows) std::sort(rows.begin(), rows.end());
    std::string out = t.empty() ? std::string() : formatCsvRow(t.front()) + "\n";
    for (const auto& r : rows) out += r + "\n";
    return out;
}

void expectStartsAscending(const CsvTable& t) {
    const size_t col = columnIndex(t, "Start (ns)");
    ASSERT_LT(col, t.front().size());
    for (size_t i = 2; i < t.size(); ++i)
        ASSERT_LE(std::stoll(t[i - 1][col]), std::stoll(t[i][col]))
            << "rows " << i - 1 << ", " << i;
}

// Our report equals the golden one: row for row where nsys's order is total (inOrder), else as a
// set of rows. On mismatch writes <trace>.<kind>.actual in the build tree and prints a diff.
void checkAgainstGolden(const TraceCase& c, const std::string& report, const std::string& kind,
                        bool inOrder) {
    std::string raw;
    const CsvTable ours = runSummary(c, report, raw);
    const CsvTable golden = readGolden(c, kind);
    ASSERT_FALSE(ours.empty());
    ASSERT_GT(golden.size(), 1u);
    EXPECT_EQ(ours.front(), golden.front()) << "header differs";
    const std::string expected = text(golden, !inOrder), actual = text(ours, !inOrder);
    if (expected != actual) {
        const fs::path out = outputDir() / (c.name + "." + kind + ".actual");
        writeFile(out, raw);
        ADD_FAILURE() << c.name << " " << report << " differs from "
                      << (goldenDir() / (c.name + "." + kind + ".csv")) << "\nour output: " << out
                      << (inOrder ? "\n" : "\n(rows sorted on both sides)\n")
                      << lineDiff(expected, actual);
    }
}

std::vector<TraceCase> tracesWithout(const std::string& name) {
    std::vector<TraceCase> v;
    for (const auto& c : goldenTraces())
        if (c.name != name) v.push_back(c);
    return v;
}

// nvtxgpuproj: the five golden traces with NVTX ranges, in nsys's row order (by range id).
class GoldenNvtxGpuProjection : public ::testing::TestWithParam<TraceCase> {};

TEST_P(GoldenNvtxGpuProjection, NvtxGpuProjEqualsNsys2022NvtxGpuProjRowForRow) {
    LS_REQUIRE_FILE(GetParam().path);
    checkAgainstGolden(GetParam(), "nvtx_gpu_proj", "nvtxgpuproj", true);
}

// Rows are made in chunks on every core and written in order: chunks of one row, of a few rows
// and of more rows than the trace has all give nsys's table.
TEST_P(GoldenNvtxGpuProjection, RowsMadeInChunksOfAnySizeGiveTheSameTable) {
    LS_REQUIRE_FILE(GetParam().path);
    ls::LoadOptions options;
    options.parts = ls::reportLoadParts("nvtx_gpu_proj");
    const auto loaded = ls::loadTrace(GetParam().path.string(), options);
    ASSERT_TRUE(loaded.ok());
    const std::string expected = text(readGolden(GetParam(), "nvtxgpuproj"), false);
    for (size_t chunk : {size_t(1), size_t(7), size_t(100000)}) {
        std::ostringstream out;
        {
            ls::TableWriter w(out, ls::TableFormat::Csv);
            ls::writeNvtxGpuProjection(w, *loaded.trace, chunk);
        }
        std::string error;
        const CsvTable ours = parseCsv(out.str(), &error);
        ASSERT_EQ(error, "");
        EXPECT_EQ(text(ours, false), expected) << "chunks of " << chunk << " rows";
    }
}

INSTANTIATE_TEST_SUITE_P(Traces, GoldenNvtxGpuProjection,
                         ::testing::ValuesIn(tracesWithout("cloverleaf_perlmutter.nsys")),
                         traceParamName);

// cloverleaf has no NVTX_EVENTS table: nsys 2022.4 skips the report ("does not contain NV Tools
// Extension (NVTX) data") and writes no file; ours prints the header alone.
TEST(CloverleafNvtxGpuProjection, NoNvtxGivesTheHeaderAlone) {
    const TraceCase& c = goldenTrace("cloverleaf_perlmutter.nsys");
    LS_REQUIRE_FILE(c.path);
    EXPECT_FALSE(fs::exists(goldenDir() / (c.name + ".nvtxgpuproj.csv")));
    std::string raw;
    const CsvTable ours = runSummary(c, "nvtx_gpu_proj", raw);
    ASSERT_EQ(ours.size(), 1u);
    EXPECT_EQ(ours.front().front(), "Name");
}

// gputrace on all six: nsys orders by start only, so rows of equal start are compared as a set.
class GoldenGpuTrace : public ::testing::TestWithParam<TraceCase> {};

TEST_P(GoldenGpuTrace, GpuTraceEqualsNsys2022GpuTrace) {
    LS_REQUIRE_FILE(GetParam().path);
    checkAgainstGolden(GetParam(), "gpu_trace", "gputrace", false);
    std::string raw;
    expectStartsAscending(runSummary(GetParam(), "gpu_trace", raw));
}

INSTANTIATE_TEST_SUITE_P(Traces, GoldenGpuTrace, ::testing::ValuesIn(goldenTraces()),
                         traceParamName);

// cudaapitrace on the five exports with one runtime row per call (saxpy: below).
class GoldenApiTrace : public ::testing::TestWithParam<TraceCase> {};

TEST_P(GoldenApiTrace, ApiTraceEqualsNsys2022CudaApiTrace) {
    LS_REQUIRE_FILE(GetParam().path);
    checkAgainstGolden(GetParam(), "api_trace", "cudaapitrace", false);
    std::string raw;
    expectStartsAscending(runSummary(GetParam(), "api_trace", raw));
}

INSTANTIATE_TEST_SUITE_P(Traces, GoldenApiTrace,
                         ::testing::ValuesIn(tracesWithout("saxpy_mpi_perlmutter.nsys")),
                         traceParamName);

// saxpy's export (2022.2) holds a CUDA backtrace row (eventClass 67) beside 38 of its calls, with
// the same correlation id; nsys 2022.4 lists both rows, we list each call once (DESIGN.md,
// Inputs). So: every row of ours is a golden row, and the golden rows left over are exactly the
// eventClass 67 rows, by start, duration and correlation id as SQL reads them.
TEST(SaxpyApiTrace, ListsEachCallOnceWhereNsys2022ListsBacktraceRowsToo) {
    const TraceCase& c = goldenTrace("saxpy_mpi_perlmutter.nsys");
    LS_REQUIRE_FILE(c.path);
    std::string raw;
    const CsvTable ours = runSummary(c, "api_trace", raw);
    const CsvTable golden = readGolden(c, "cudaapitrace");
    ASSERT_FALSE(ours.empty());
    ASSERT_EQ(ours.front(), golden.front());
    std::vector<std::vector<std::string>> left(golden.begin() + 1, golden.end());
    for (size_t i = 1; i < ours.size(); ++i) {
        const auto it = std::find(left.begin(), left.end(), ours[i]);
        if (it == left.end()) {
            ADD_FAILURE() << "our row is no golden row: " << formatCsvRow(ours[i]);
            continue;
        }
        left.erase(it);
    }
    using Key =
        std::tuple<std::string, std::string, std::string>; // start, duration, correlation id
    std::vector<Key> leftOver, backtrace;
    const size_t start = columnIndex(golden, "Start (ns)"),
                 duration = columnIndex(golden, "Duration (ns)"),
                 corr = columnIndex(golden, "CorrID");
    for (const auto& g : left) leftOver.emplace_back(g[start], g[duration], g[corr]);
    SqlReader sql(c.path);
    ASSERT_TRUE(sql.ok());
    sql.each("SELECT start, end - start, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE "
             "eventClass = 67",
             [&](sqlite3_stmt* st) {
                 backtrace.emplace_back(std::to_string(SqlReader::int64(st, 0)),
                                        std::to_string(SqlReader::int64(st, 1)),
                                        std::to_string(SqlReader::int64(st, 2)));
             });
    std::sort(leftOver.begin(), leftOver.end());
    std::sort(backtrace.begin(), backtrace.end());
    EXPECT_EQ(leftOver, backtrace);
    EXPECT_EQ(backtrace.size(), 38u);
    EXPECT_EQ(ours.size() - 1 + 38, golden.size() - 1);
    expectStartsAscending(ours);
}

} // namespace
