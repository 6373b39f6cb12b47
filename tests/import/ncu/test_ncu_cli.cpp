// The CLI's --ncu on kernels, info and summary, and its one-line errors.
#include "core/import/ncu/ncu_metrics.h"
#include "tests/import/ncu/ncu_test_support.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <set>

namespace {

using namespace ls;
using namespace ls::test;

TEST(NcuCli, KernelsAppendMetricColumnsOnMatchedRows) {
    LS_REQUIRE_PAIR();
    const auto r = runCli({"kernels", pairTrace().string(), "--ncu", pairCsv().string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.err, "");
    std::string error;
    const auto table = parseCsv(r.out, &error);
    ASSERT_EQ(error, "");
    ASSERT_EQ(table.size(), realPair().trace->kernels.size() + 1);
    const auto& header = table[0];
    const auto first = std::find(header.begin(), header.end(), "ncu:id");
    ASSERT_NE(first, header.end());
    EXPECT_EQ(*(first - 4), "rank") << "after the standard columns, the rank and the occupancy";
    EXPECT_EQ(*(first - 3), "occupancy_pct");
    EXPECT_EQ(*(first - 2), "occupancy_limiter");
    EXPECT_EQ(*(first - 1), "graph");
    const size_t cId = static_cast<size_t>(first - header.begin());
    EXPECT_EQ(header.size() - cId - 1, 45u) << "one column per metric in the file";
    const size_t cOcc = static_cast<size_t>(
        std::find(header.begin(), header.end(), "ncu:Occupancy/Achieved Occupancy [%]") -
        header.begin());
    const size_t cDur = static_cast<size_t>(
        std::find(header.begin(), header.end(), "ncu:GPU Speed Of Light Throughput/Duration [ns]") -
        header.begin());
    const size_t cTheory = static_cast<size_t>(
        std::find(header.begin(), header.end(), "ncu:Occupancy/Theoretical Occupancy [%]") -
        header.begin());
    const size_t cOurs = static_cast<size_t>(
        std::find(header.begin(), header.end(), "occupancy_pct") - header.begin());
    ASSERT_LT(cOcc, header.size());
    ASSERT_LT(cDur, header.size());
    ASSERT_LT(cTheory, header.size());
    const auto& d = realPair().csv;
    for (size_t row = 1; row < table.size(); ++row) {
        const auto& f = table[row];
        ASSERT_EQ(f.size(), header.size());
        const bool matched = row <= 60;
        size_t filled = 0;
        for (size_t c = cId; c < f.size(); ++c) filled += !f[c].empty();
        if (!matched) {
            EXPECT_EQ(filled, 0u) << "row " << row;
            continue;
        }
        EXPECT_GE(filled, 40u) << "row " << row;
        // Our theoretical occupancy, from the export alone, is ncu's (ncu prints 50 or 93.75).
        EXPECT_NEAR(std::stod(f[cOurs]), std::stod(f[cTheory]), 0.005) << "row " << row;
        EXPECT_EQ(f[cId], f[0]) << "ncu ID = trace kernel id on this pair";
        for (const auto* line : d.kernel(f[0])) {
            const auto& l = *line;
            const std::string& metric = l[d.col("Metric Name")];
            const std::string value = noCommas(l[d.col("Metric Value")]);
            if (metric == "Achieved Occupancy") {
                EXPECT_EQ(f[cOcc], value);
            } else if (metric == "Duration") {
                EXPECT_EQ(f[cDur], value);
            }
        }
    }
}

TEST(NcuCli, InfoPrintsTheMatchReport) {
    LS_REQUIRE_PAIR();
    const auto r = runCli({"info", pairTrace().string(), "--ncu", pairCsv().string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("ncu match: 60 matched, 0 unmatched, 0 ambiguous"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("details page, 60 kernels, 45 metrics"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("-> trace pid 432"), std::string::npos) << r.out;
    EXPECT_EQ(runCli({"info", pairTrace().string()}).out.find("ncu"), std::string::npos);

    // A file of another program: counts, reasons, and the kernels table says how many matched.
    TempDir dir;
    std::string s = ncuLine(kDetailsHeader);
    for (size_t i = 0; i < 8; ++i)
        s += ncuLine(detailsRow(std::to_string(i), "void other_kernel_" + std::to_string(i) + "()",
                                "S", "Duration", "ns", "5"));
    writeFile(dir / "other.csv", s);
    const auto other =
        runCli({"info", pairTrace().string(), "--ncu", (dir / "other.csv").string()});
    EXPECT_EQ(other.rc, 0);
    EXPECT_NE(other.out.find("ncu match: 0 matched, 8 unmatched, 0 ambiguous"), std::string::npos)
        << other.out;
    EXPECT_NE(other.out.find(
                  "unmatched ncu ID 0 void other_kernel_0(): no kernel of this name in the trace"),
              std::string::npos)
        << other.out;
    EXPECT_NE(other.out.find("and 3 more"), std::string::npos) << other.out;
    const auto k = runCli({"kernels", pairTrace().string(), "--ncu", (dir / "other.csv").string()});
    EXPECT_EQ(k.rc, 0);
    EXPECT_NE(k.err.find("0 of 8 Nsight Compute kernels matched"), std::string::npos) << k.err;

    const auto all = runCli({"summary", pairTrace().string(), "--report", "ncu_match", "--ncu",
                             (dir / "other.csv").string()});
    ASSERT_EQ(all.rc, 0) << all.err;
    const auto rows = parseCsv(all.out);
    ASSERT_EQ(rows.size(), 9u);
    EXPECT_EQ(rows[0], (std::vector<std::string>{"ncu_id", "pid", "kernel_name", "grid", "block",
                                                 "state", "kernel_id", "reason"}));
    EXPECT_EQ(rows[8][5], "unmatched");
    EXPECT_EQ(runCli({"summary", pairTrace().string(), "--report", "ncu_match"}).rc, 2);
}

TEST(NcuCli, BadCsvIsAOneLineErrorWithExitThree) {
    LS_REQUIRE_FILE(pairTrace());
    TempDir dir;
    writeFile(dir / "empty.csv", "");
    writeFile(dir / "wrong.csv", "\"Time (%)\",\"Total Time (ns)\"\n\"1\",\"2\"\n");
    writeFile(dir / "cut.csv", smallDetails().substr(0, smallDetails().find("3,182") + 3));
    for (const auto& [name, mentions] :
         std::vector<std::pair<std::string, std::string>>{{"empty.csv", "empty"},
                                                          {"wrong.csv", "header"},
                                                          {"cut.csv", "truncated"},
                                                          {"missing.csv", "no such file"}}) {
        const std::string file = (dir / name).string();
        for (const std::vector<std::string>& args :
             {std::vector<std::string>{"kernels", pairTrace().string(), "--ncu", file},
              {"info", pairTrace().string(), "--ncu", file},
              {"summary", pairTrace().string(), "--report", "ncu_match", "--ncu", file}}) {
            const auto r = runCli(args);
            EXPECT_EQ(r.rc, 3) << args[0] << " " << name;
            EXPECT_EQ(r.out, "") << args[0] << " " << name;
            EXPECT_EQ(r.err.rfind("error: " + file + ": ", 0), 0u) << r.err;
            EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
            EXPECT_NE(r.err.find(mentions), std::string::npos) << r.err;
        }
    }
}

} // namespace
