// `layerscope-cli summary --report nvtx_kern_sum` against what NVIDIA's `nsys stats` 2022.4
// printed as nvtxkernsum for the same exports (tests/data/golden/<trace>.nvtxkernsum.csv).
// nsys prints rows of equal sort keys in any order, so rows are compared as multisets; our own
// order is checked separately: "None" rows first, then range text bytewise ascending, pid, tid
// ascending and total time descending.
#include "core/load/load.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <cstring>
#include <gtest/gtest.h>
#include <string>
#include <tuple>

namespace {

using namespace ls::test;

const std::vector<std::string> kHeader = {
    "NVTX Range", "Style",           "PID",        "TID",      "NVTX Inst",
    "Kern Inst",  "Total Time (ns)", "Avg (ns)",   "Med (ns)", "Min (ns)",
    "Max (ns)",   "StdDev (ns)",     "Kernel Name"};
constexpr size_t kRange = 0, kPid = 2, kTid = 3, kKernInst = 5, kTotal = 6, kStdDev = 11;

CsvTable runNvtxKernSum(const TraceCase& c, std::string& raw) {
    return runSummary(c, "nvtx_kern_sum", raw);
}

CsvTable readGolden(const TraceCase& c) {
    const fs::path file = goldenDir() / (c.name + ".nvtxkernsum.csv");
    EXPECT_TRUE(fs::exists(file)) << file;
    std::string error;
    auto table = parseCsv(readFile(file), &error);
    EXPECT_EQ(error, "") << file;
    return table;
}

// Data rows as CSV lines, sorted: a multiset of rows.
std::vector<std::string> rowMultiset(const CsvTable& t,
                                     const std::vector<size_t>& skipColumns = {}) {
    std::vector<std::string> rows;
    for (size_t i = 1; i < t.size(); ++i) {
        std::vector<std::string> row;
        for (size_t c = 0; c < t[i].size(); ++c)
            row.push_back(std::count(skipColumns.begin(), skipColumns.end(), c) ? std::string("*")
                                                                                : t[i][c]);
        rows.push_back(formatCsvRow(row));
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

std::string joinLines(const std::vector<std::string>& rows) {
    std::string s;
    for (const auto& r : rows) s += r + "\n";
    return s;
}

// Bytewise (unsigned char) comparison, as memcmp orders.
int bytewise(const std::string& a, const std::string& b) {
    const int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
    if (c != 0) return c;
    return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

long long num(const std::string& s) { return s.empty() ? -1 : std::stoll(s); }

void expectOurOrder(const CsvTable& t) {
    for (size_t i = 2; i < t.size(); ++i) {
        const auto &a = t[i - 1], &b = t[i];
        const bool aNone = a[kRange] == "None" && a[1] == "None",
                   bNone = b[kRange] == "None" && b[1] == "None";
        SCOPED_TRACE("rows " + std::to_string(i - 1) + " and " + std::to_string(i) + ":\n" +
                     formatCsvRow(a) + "\n" + formatCsvRow(b));
        if (aNone != bNone) {
            EXPECT_TRUE(aNone) << "None rows come first";
            continue;
        }
        if (!aNone) {
            const int c = bytewise(a[kRange], b[kRange]);
            EXPECT_LE(c, 0) << "range text ascending, bytewise";
            if (c != 0) continue;
        }
        const auto ka = std::make_tuple(num(a[kPid]), num(a[kTid])),
                   kb = std::make_tuple(num(b[kPid]), num(b[kTid]));
        EXPECT_LE(ka, kb) << "then pid, tid ascending";
        if (ka != kb) continue;
        EXPECT_GE(std::stoull(a[kTotal]), std::stoull(b[kTotal])) << "then total time descending";
    }
}

class GoldenNvtxKernSum : public ::testing::TestWithParam<TraceCase> {};

TEST_P(GoldenNvtxKernSum, EqualsNsys2022NvtxKernSumAsAMultisetOfRows) {
    const TraceCase& c = GetParam();
    LS_REQUIRE_FILE(c.path);
    std::string raw;
    const CsvTable ours = runNvtxKernSum(c, raw);
    const CsvTable golden = readGolden(c);
    ASSERT_FALSE(ours.empty());
    ASSERT_FALSE(golden.empty());
    EXPECT_EQ(golden.front(), kHeader);
    EXPECT_EQ(ours.front(), kHeader);
    expectOurOrder(ours);
    const auto expected = rowMultiset(golden), actual = rowMultiset(ours);
    EXPECT_GT(expected.size(), 0u);
    if (expected != actual) {
        const fs::path out = outputDir() / (c.name + ".nvtxkernsum.actual");
        writeFile(out, raw);
        ADD_FAILURE() << c.name << " nvtx_kern_sum differs from the golden nvtxkernsum ("
                      << expected.size() << " golden rows, " << actual.size()
                      << " ours)\nour output: " << out << "\n(rows sorted on both sides)\n"
                      << lineDiff(joinLines(expected), joinLines(actual));
    }
}

// saxpy has two runtime rows per call (see SaxpyNvtxKernSum) and cloverleaf no NVTX table
// (see NoNvtxTable); both are checked separately below.
std::vector<TraceCase> equalTraces() {
    std::vector<TraceCase> v;
    for (const auto& c : goldenTraces())
        if (c.name != "saxpy_mpi_perlmutter.nsys" && c.name != "cloverleaf_perlmutter.nsys")
            v.push_back(c);
    return v;
}

INSTANTIATE_TEST_SUITE_P(Traces, GoldenNvtxKernSum, ::testing::ValuesIn(equalTraces()),
                         traceParamName);

// saxpy_mpi_perlmutter (export schema 2.9) stores a CUDA backtrace row (eventClass 67) beside
// each launch call with the same correlation id. nsys 2022.4 joins the kernel to both rows and
// sums each kernel twice into Total Time (and StdDev over the doubled samples); instances,
// average, median, min and max are unaffected. We count each kernel once (documented in
// `summary --help`), so: same rows except Total Time and StdDev, nsys's total twice ours.
TEST(SaxpyNvtxKernSum, SameRowsExceptTotalWhichNsysCountsTwice) {
    const TraceCase& c = goldenTrace("saxpy_mpi_perlmutter.nsys");
    LS_REQUIRE_FILE(c.path);
    std::string raw;
    const CsvTable ours = runNvtxKernSum(c, raw);
    const CsvTable golden = readGolden(c);
    ASSERT_FALSE(ours.empty());
    ASSERT_FALSE(golden.empty());
    ASSERT_EQ(ours.front(), golden.front());
    expectOurOrder(ours);
    EXPECT_EQ(joinLines(rowMultiset(ours, {kTotal, kStdDev})),
              joinLines(rowMultiset(golden, {kTotal, kStdDev})));
    ASSERT_EQ(ours.size(), golden.size());
    ASSERT_GT(golden.size(), 1u);
    size_t matched = 0;
    for (size_t i = 1; i < ours.size(); ++i) {
        // The row of golden with the same keys (range, pid, tid, kernel name).
        for (size_t j = 1; j < golden.size(); ++j) {
            if (std::tie(golden[j][0], golden[j][1], golden[j][2], golden[j][3], golden[j][12]) !=
                std::tie(ours[i][0], ours[i][1], ours[i][2], ours[i][3], ours[i][12]))
                continue;
            EXPECT_EQ(std::stoull(golden[j][kTotal]), 2 * std::stoull(ours[i][kTotal]))
                << formatCsvRow(ours[i]);
            ++matched;
        }
    }
    EXPECT_EQ(matched, ours.size() - 1);

    const auto loaded = ls::loadTrace(c.path.string());
    ASSERT_TRUE(loaded.ok());
    EXPECT_GT(loaded.trace->report.count(ls::Anomaly::DuplicateRuntimeRow), 0u)
        << "the cause of the difference";
}

// cloverleaf has no NVTX_EVENTS table: nsys 2022.4 prints nothing at all (its golden file is
// empty). We print the header and the kernels under "None", each kernel once.
TEST(NoNvtxTable, AllKernelsFallUnderNoneEachOnce) {
    const TraceCase& c = goldenTrace("cloverleaf_perlmutter.nsys");
    LS_REQUIRE_FILE(c.path);
    EXPECT_EQ(readFile(goldenDir() / (c.name + ".nvtxkernsum.csv")), "") << "nsys printed nothing";
    std::string raw;
    const CsvTable ours = runNvtxKernSum(c, raw);
    ASSERT_FALSE(ours.empty());
    EXPECT_EQ(ours.front(), kHeader);
    expectOurOrder(ours);
    SqlReader sql(c.path);
    ASSERT_TRUE(sql.ok());
    ASSERT_FALSE(sql.hasTable("NVTX_EVENTS"));
    long long kernels = 0, total = 0;
    for (size_t i = 1; i < ours.size(); ++i) {
        EXPECT_EQ(ours[i][kRange], "None");
        EXPECT_EQ(ours[i][1], "None");
        EXPECT_EQ(ours[i][4], "0") << "no range instances";
        kernels += std::stoll(ours[i][kKernInst]);
        total += std::stoll(ours[i][kTotal]);
    }
    EXPECT_EQ(kernels, sql.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    EXPECT_EQ(total, sql.scalar("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
}

} // namespace
