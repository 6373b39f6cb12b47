// Nsight Compute CSV parsing: numbers, details and raw pages, program output before the header,
// one-line errors for malformed files; the name key both tools' styles share.
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

TEST(NcuCsvParse, NumbersWithThousandsSeparatorsAndNa) {
    const std::vector<std::pair<std::string, double>> good = {
        {"1,234.5", 1234.5}, {"3,182,432,432.43", 3182432432.43},
        {"-1,000", -1000},   {"12", 12},
        {"0.5", 0.5},        {"1e+06", 1e6},
        {" 42 ", 42},        {"100,000,000", 1e8}};
    for (const auto& [text, value] : good) {
        const auto v = parseNcuNumber(text);
        ASSERT_TRUE(v.has_value()) << text;
        EXPECT_DOUBLE_EQ(*v, value) << text;
    }
    for (const char* bad : {"n/a", "", "1,23", "12,", ",123", "1,2345", "(64, 50, 1)", "1.2.3",
                            "abc", "1.", "--1", "1,234,56"})
        EXPECT_FALSE(parseNcuNumber(bad).has_value()) << bad;
    EXPECT_EQ(parseNcuDim3("(64, 50, 1)"), (Dim3{64, 50, 1}));
    EXPECT_EQ(parseNcuDim3("256,1,1"), (Dim3{256, 1, 1}));
    EXPECT_FALSE(parseNcuDim3("(64, 50)").has_value());
    EXPECT_FALSE(parseNcuDim3("n/a").has_value());
}

TEST(NcuCsvParse, DetailsPageAfterProgramOutput) {
    const NcuCsv csv = parseOk(smallDetails());
    EXPECT_EQ(csv.page, NcuPage::Details);
    EXPECT_EQ(csv.skippedLines, 2u);
    EXPECT_EQ(csv.ruleRows, 1u);
    ASSERT_EQ(csv.kernels.size(), 2u);
    EXPECT_EQ(csv.kernels[0].name, "kernelA(int)");
    EXPECT_EQ(csv.kernels[1].id, 1u);
    EXPECT_EQ(csv.kernels[0].pid, 77u);
    EXPECT_EQ(csv.kernels[0].processName, "python3");
    EXPECT_TRUE(csv.kernels[0].hasDims);
    EXPECT_EQ(csv.kernels[0].grid, (Dim3{64, 1, 1}));
    EXPECT_EQ(csv.kernels[0].block, (Dim3{128, 1, 1}));
    ASSERT_EQ(csv.metrics.size(), 4u);
    const auto duration = csv.findMetric("GPU Speed Of Light Throughput", "Duration");
    ASSERT_TRUE(duration);
    EXPECT_EQ(csv.metrics[*duration].unit, "usecond");
    EXPECT_EQ(csv.columnName(*duration), "ncu:GPU Speed Of Light Throughput/Duration [usecond]");
    EXPECT_DOUBLE_EQ(csv.value(0, *duration), 1234.5);
    EXPECT_DOUBLE_EQ(csv.value(1, *duration), 2500.0)
        << "msecond converted to the metric's usecond";
    EXPECT_DOUBLE_EQ(csv.knownValue(1, NcuKnownMetric::Duration), 2.5e6) << "known duration in ns";
    EXPECT_EQ(csv.text(0, *duration), "1234.5");
    const auto freq = csv.findMetric("", "DRAM Frequency");
    ASSERT_TRUE(freq);
    EXPECT_EQ(csv.text(0, *freq), "3182432432.43");
    EXPECT_FALSE(csv.has(1, *freq));
    EXPECT_EQ(csv.text(1, *freq), "");
    const auto occ = csv.known(NcuKnownMetric::AchievedOccupancy);
    ASSERT_TRUE(occ);
    EXPECT_TRUE(std::isnan(csv.value(0, *occ)));
    EXPECT_EQ(csv.text(0, *occ), "n/a");
    EXPECT_DOUBLE_EQ(csv.value(1, *occ), 45.5);
    const auto cache = csv.findMetric("", "Function Cache Configuration");
    ASSERT_TRUE(cache);
    EXPECT_EQ(csv.text(0, *cache), "CachePreferNone");
    EXPECT_EQ(csv.columnName(*cache), "ncu:Launch Statistics/Function Cache Configuration");
    EXPECT_TRUE(csv.warnings.size() >= 1u) << "kernel 1 has fewer metrics than kernel 0";
}

TEST(NcuCsvParse, RawPageWithUnitsLine) {
    const std::vector<std::string> header = {"ID",
                                             "Process ID",
                                             "Process Name",
                                             "Host Name",
                                             "Kernel Name",
                                             "Context",
                                             "Stream",
                                             "Block Size",
                                             "Grid Size",
                                             "Device",
                                             "CC",
                                             "gpu__time_duration.sum",
                                             "launch__registers_per_thread",
                                             "sm__warps_active.avg.pct_of_peak_sustained_active",
                                             "dram__bytes_read.sum"};
    std::string s = "hello from the program\n" + ncuLine(header);
    s += ncuLine(
        {"", "", "", "", "", "", "", "", "", "", "", "usecond", "register/thread", "%", "Mbyte"});
    s += ncuLine({"0", "5", "a.out", "host", "k1()", "1", "7", "(32, 1, 1)", "(2, 1, 1)", "0",
                  "9.0", "1,024.25", "32", "50", "1.5"});
    s += ncuLine({"1", "5", "a.out", "host", "k2()", "1", "7", "(32, 1, 1)", "(4, 1, 1)", "0",
                  "9.0", "3", "n/a", "12.5", "2,048"});
    const NcuCsv csv = parseOk(s);
    EXPECT_EQ(csv.page, NcuPage::Raw);
    EXPECT_EQ(csv.skippedLines, 1u);
    ASSERT_EQ(csv.kernels.size(), 2u);
    ASSERT_EQ(csv.metrics.size(), 4u);
    EXPECT_EQ(csv.metrics[0], (NcuMetricInfo{"", "gpu__time_duration.sum", "usecond"}));
    EXPECT_EQ(csv.columnName(0), "ncu:gpu__time_duration.sum [usecond]");
    EXPECT_DOUBLE_EQ(csv.value(0, 0), 1024.25);
    EXPECT_DOUBLE_EQ(csv.knownValue(0, NcuKnownMetric::Duration), 1024250.0);
    EXPECT_DOUBLE_EQ(csv.knownValue(0, NcuKnownMetric::Registers), 32);
    EXPECT_EQ(csv.text(1, 1), "n/a");
    EXPECT_DOUBLE_EQ(csv.knownValue(1, NcuKnownMetric::AchievedOccupancy), 12.5);
    EXPECT_DOUBLE_EQ(csv.value(1, 3), 2048);
    EXPECT_EQ(csv.kernels[1].grid, (Dim3{4, 1, 1}));
}

// The same program's first 30 kernels profiled twice on an H200, once per page
// (tests/data/ncu/README.md): the pages give the same kernels, launch shapes, registers and
// theoretical occupancy, each in its own layout (a details line per metric, a raw column per
// metric).
TEST(NcuCsvParse, RawAndDetailsPagesOfOneProgramAgree) {
    const fs::path dir = sourceDir() / "tests/data/ncu";
    const NcuParseResult raw = readNcuCsvFile((dir / "gpt1layer_h200.ncu_raw.csv").string());
    const NcuParseResult details =
        readNcuCsvFile((dir / "gpt1layer_h200.ncu_details.csv").string());
    ASSERT_TRUE(raw.ok()) << raw.error;
    ASSERT_TRUE(details.ok()) << details.error;
    EXPECT_EQ(raw.csv->page, NcuPage::Raw);
    EXPECT_EQ(details.csv->page, NcuPage::Details);
    EXPECT_EQ(raw.csv->skippedLines, 3u); // the program's output and ncu's ==PROF== lines
    ASSERT_EQ(raw.csv->kernels.size(), 30u);
    ASSERT_EQ(details.csv->kernels.size(), 30u);
    EXPECT_GT(raw.csv->metrics.size(), 10 * details.csv->metrics.size())
        << "raw pages name every metric collected";
    for (size_t k = 0; k < 30; ++k) {
        SCOPED_TRACE(raw.csv->kernels[k].name);
        const NcuKernel &a = raw.csv->kernels[k], &b = details.csv->kernels[k];
        EXPECT_EQ(a.name, b.name);
        EXPECT_EQ(a.cc, "9.0");
        EXPECT_EQ(b.cc, "9.0");
        EXPECT_EQ(a.grid, b.grid);
        EXPECT_EQ(a.block, b.block);
        for (NcuKnownMetric m : {NcuKnownMetric::Registers, NcuKnownMetric::TheoreticalOccupancy}) {
            EXPECT_FALSE(std::isnan(raw.csv->knownValue(k, m))) << "metric " << static_cast<int>(m);
            EXPECT_DOUBLE_EQ(raw.csv->knownValue(k, m), details.csv->knownValue(k, m))
                << "metric " << static_cast<int>(m);
        }
        EXPECT_GT(raw.csv->knownValue(k, NcuKnownMetric::Duration), 0);
        EXPECT_GT(details.csv->knownValue(k, NcuKnownMetric::Duration), 0);
    }
}

// Each malformed input: no result, a one-line reason that says what is wrong.
void expectError(std::string_view text, const std::string& mentions) {
    const auto r = parseNcuCsv(text);
    EXPECT_FALSE(r.ok()) << "accepted:\n" << text.substr(0, 300);
    EXPECT_FALSE(r.error.empty());
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
    EXPECT_NE(r.error.find(mentions), std::string::npos)
        << "wanted \"" << mentions << "\" in: " << r.error;
}

TEST(NcuCsvParse, MalformedFilesGiveOneLineErrors) {
    const std::string good = smallDetails();
    expectError("", "empty");
    expectError(" \n\n\r\n", "empty");
    expectError("just some program output\nand more\n", "no Nsight Compute CSV header");
    expectError(
        "\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Name\"\n\"50.0\",\"100\",\"2\",\"k\"\n",
        "no Nsight Compute CSV header");
    expectError("\"ID\",\"Process ID\",\"Name\"\n\"0\",\"1\",\"x\"\n", "Kernel Name");
    expectError(ncuLine(kDetailsHeader), "no kernel lines");
    // Truncated inside a quoted field, and between two fields of a line.
    const size_t cut = good.find("3,182,432");
    expectError(good.substr(0, cut + 4), "truncated");
    const size_t lastLine = good.rfind("\"1\",\"77\"");
    expectError(good.substr(0, good.find("\"(128, 1, 1)\"", lastLine)),
                "8 fields where a details line has at least 15");
    // Mixed pages: a raw header after a details table; details lines under a raw header.
    const std::vector<std::string> raw = {"ID",        "Process ID",  "Process Name",
                                          "Host Name", "Kernel Name", "Context",
                                          "Stream",    "Block Size",  "Grid Size",
                                          "Device",    "CC",          "gpu__time_duration.sum"};
    std::string mixed =
        good + ncuLine(raw) +
        ncuLine({"0", "5", "a", "h", "k()", "1", "7", "(1, 1, 1)", "(1, 1, 1)", "0", "9.0", "3"});
    expectError(mixed, "mixed pages");
    std::string rawThenDetails = ncuLine(raw) +
                                 ncuLine({"", "", "", "", "", "", "", "", "", "", "", "nsecond"}) +
                                 ncuLine(detailsRow("0", "k()", "S", "Duration", "ns", "5"));
    expectError(rawThenDetails, "fields where the header has");
    expectError(good + ncuLine(kDetailsHeader) +
                    ncuLine(detailsRow("0", "kernelA(int)", "S", "M", "", "1")),
                "second header");
    // Program output after the header, a non-numeric ID, a reused ID.
    expectError(ncuLine(kDetailsHeader) + ncuLine(detailsRow("0", "k()", "S", "M", "", "1")) +
                    "epoch 2 done\n",
                "fields");
    expectError(ncuLine(kDetailsHeader) + ncuLine(detailsRow("x", "k()", "S", "M", "", "1")),
                "not a number");
    expectError(ncuLine(kDetailsHeader) + ncuLine(detailsRow("0", "k()", "S", "M", "", "1")) +
                    ncuLine(detailsRow("0", "other()", "S", "M", "", "1")),
                "another kernel name");
}

TEST(NcuCsvParse, TruncatedRealFileIsAnError) {
    LS_REQUIRE_FILE(pairCsv());
    const std::string text = readFile(pairCsv());
    ASSERT_TRUE(parseNcuCsv(text).ok()) << parseNcuCsv(text).error;
    // Cut in the middle of a kernel name, the way a copy that stopped early looks.
    const size_t cut = text.find("nvjet_sm90_hsh_96x64", text.size() / 2);
    ASSERT_NE(cut, std::string::npos);
    expectError(std::string_view(text).substr(0, cut + 5), "truncated");
}

// ---------------------------------------------------------------------------------------------
// Names

TEST(NcuNames, NcuAndNsightSystemsStylesGiveOneKey) {
    EXPECT_EQ(ncuNameKey("void at::native::vectorized_elementwise_kernel<(int)4, "
                         "at::native::FillFunctor<float>, "
                         "std::array<char *, (unsigned long)1>>(int, T2, T3)"),
              ncuNameKey("void at::vectorized_elementwise_kernel<4, at::FillFunctor<float>, "
                         "std::array<char *, 1>>(int, T2, T3)"));
    EXPECT_EQ(ncuNameKey("void (anonymous namespace)::foo<(bool)1>(float*)"),
              ncuNameKey("void <unnamed>::foo<1>(float *)"));
    EXPECT_EQ(ncuNameKey("void at::native::<unnamed>::k<(int)-1>()"),
              ncuNameKey("void at::<unnamed>::k<-1>()"));
    EXPECT_NE(ncuNameKey("void k<float>(int)"), ncuNameKey("void k<double>(int)"));
    EXPECT_NE(ncuNameKey("void k<4>(int)"), ncuNameKey("void k<8>(int)"));
    EXPECT_EQ(ncuNameKey("nvjet_sm90_hsh_144x128_64x6_1x2_h_bz_TNN"),
              "nvjet_sm90_hsh_144x128_64x6_1x2_h_bz_TNN");
    EXPECT_EQ(ncuNameKey("unsigned  long   x"), "unsigned long x");
}

} // namespace
