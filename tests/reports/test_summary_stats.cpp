// The number formatting and statistics behind the `nsys stats`-compatible summaries:
// durationStats (median, sample standard deviation), formatOneDecimal (SQLite ROUND: halves
// away from zero), stripApiVersion and formatDim3 (as nsys 2022.4 prints them).
#include "core/reports/summary.h"

#include <cmath>
#include <gtest/gtest.h>

namespace {

using ls::durationStats;
using ls::formatOneDecimal;
using ls::stripApiVersion;

TEST(DurationStats, EmptyInputIsAllZero) {
    std::vector<int64_t> d;
    const auto s = durationStats(d);
    EXPECT_EQ(s.count, 0u);
    EXPECT_EQ(s.total, 0u);
    EXPECT_EQ(s.median, 0.0);
}

TEST(DurationStats, SingleInstanceHasZeroStddevAndItselfAsMedian) {
    std::vector<int64_t> d = {846456};
    const auto s = durationStats(d);
    EXPECT_EQ(s.count, 1u);
    EXPECT_EQ(s.total, 846456u);
    EXPECT_EQ(s.min, 846456);
    EXPECT_EQ(s.max, 846456);
    EXPECT_EQ(s.avg, 846456.0);
    EXPECT_EQ(s.median, 846456.0);
    EXPECT_EQ(s.stddev, 0.0);
}

TEST(DurationStats, MedianOfOddCountIsTheMiddleValue) {
    std::vector<int64_t> d = {9, 1, 5, 3, 7};
    EXPECT_EQ(durationStats(d).median, 5.0);
}

TEST(DurationStats, MedianOfEvenCountAveragesTheTwoMiddleValues) {
    std::vector<int64_t> d = {40, 10, 30, 20};
    EXPECT_EQ(durationStats(d).median, 25.0);
    std::vector<int64_t> e = {46112, 43136, 45000, 45335, 44002, 46001, 43500, 44800};
    // sorted: 43136 43500 44002 44800 45000 45335 46001 46112 -> (44800 + 45000) / 2
    EXPECT_EQ(durationStats(e).median, 44900.0);
    std::vector<int64_t> f = {1, 2};
    EXPECT_EQ(durationStats(f).median, 1.5);
}

TEST(DurationStats, StddevIsTheSampleStddev) {
    std::vector<int64_t> d = {2, 4, 4, 4, 5, 5, 7, 9}; // mean 5, squared deviations sum to 32
    const auto s = durationStats(d);
    EXPECT_EQ(s.total, 40u);
    EXPECT_EQ(s.avg, 5.0);
    EXPECT_NEAR(s.stddev, std::sqrt(32.0 / 7.0), 1e-12) << "divides by n - 1, not n";
    EXPECT_EQ(s.min, 2);
    EXPECT_EQ(s.max, 9);
}

TEST(DurationStats, LargeDurationsKeepTheirPrecision) {
    const int64_t big = 305251140000;
    std::vector<int64_t> d = {big, big + 1, big + 2};
    const auto s = durationStats(d);
    EXPECT_EQ(s.total, static_cast<uint64_t>(3 * big + 3));
    EXPECT_EQ(s.avg, static_cast<double>(big + 1));
    EXPECT_NEAR(s.stddev, 1.0, 1e-9);
}

TEST(FormatOneDecimal, HalvesRoundAwayFromZeroLikeSqliteRound) {
    // Exactly representable halves: printf("%.1f") would round these to even.
    EXPECT_EQ(formatOneDecimal(0.25), "0.3");
    EXPECT_EQ(formatOneDecimal(0.75), "0.8");
    EXPECT_EQ(formatOneDecimal(1.25), "1.3");
    EXPECT_EQ(formatOneDecimal(2.5), "2.5");
    EXPECT_EQ(formatOneDecimal(-1.25), "-1.3");
    EXPECT_EQ(formatOneDecimal(1000000000000.25), "1000000000000.3");
}

TEST(FormatOneDecimal, OrdinaryValues) {
    EXPECT_EQ(formatOneDecimal(0), "0.0");
    EXPECT_EQ(formatOneDecimal(100), "100.0");
    EXPECT_EQ(formatOneDecimal(44715.625), "44715.6");
    EXPECT_EQ(formatOneDecimal(1277.24), "1277.2");
    EXPECT_EQ(formatOneDecimal(9960.449), "9960.4");
    EXPECT_EQ(formatOneDecimal(99.96), "100.0");
}

TEST(StripApiVersion, DropsSixCharacterVersionSuffixes) {
    EXPECT_EQ(stripApiVersion("cudaMemcpy_v3020"), "cudaMemcpy");
    EXPECT_EQ(stripApiVersion("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
    EXPECT_EQ(stripApiVersion("cudaHostRegister_v4000"), "cudaHostRegister");
}

TEST(StripApiVersion, LeavesOtherNamesAlone) {
    EXPECT_EQ(stripApiVersion("cudaMemcpyAsync"), "cudaMemcpyAsync");
    EXPECT_EQ(stripApiVersion("cuLaunchKernelEx"), "cuLaunchKernelEx");
    EXPECT_EQ(stripApiVersion("cudaGraphLaunch_v11060"), "cudaGraphLaunch_v11060")
        << "nsys 2022.4 keeps 7-character suffixes";
    EXPECT_EQ(stripApiVersion("_v3020"), "_v3020") << "nothing would be left";
    EXPECT_EQ(stripApiVersion("cuModuleGetLoadingMode"), "cuModuleGetLoadingMode");
    EXPECT_EQ(stripApiVersion(""), "");
}

TEST(FormatDim3, WidthFourRightAlignedAsNsysPrints) {
    EXPECT_EQ(ls::formatDim3({64, 50, 1}), "  64   50    1");
    EXPECT_EQ(ls::formatDim3({1572, 1, 1}), "1572    1    1");
    EXPECT_EQ(ls::formatDim3({115200, 1, 1}), "115200    1    1");
}

} // namespace
