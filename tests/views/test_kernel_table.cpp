// The kernel table behind the GUI's table and the CLI's `kernels`: the column catalog, cells
// against the CLI's CSV, sorting a permutation (checked with an independent comparator on the
// CLI's values), and the Summary tab's GPU-time breakdowns against the CLI and SQL.
#include "core/costs/occupancy.h"
#include "core/views/kernel_table.h"
#include "core/views/time_breakdown.h"
#include "tests/support/sample_fixture.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <map>

namespace {

using ls::KernelField;
using ls::KernelId;

class KernelTableSample : public ls::test::SampleTraceSuite {
  protected:
    void SetUp() override { table_ = std::make_unique<ls::KernelTable>(trace_); }
    std::vector<KernelId> allRows() const {
        std::vector<KernelId> rows(trace_->kernels.size());
        for (uint32_t i = 0; i < rows.size(); ++i) rows[i] = KernelId(i);
        return rows;
    }
    // The CLI's text for the kernel with this id (CSV rows are in id order).
    const std::string& cli(KernelId k, KernelField f) const {
        return kernels_->rows[k.value][static_cast<size_t>(f)];
    }
    std::unique_ptr<ls::KernelTable> table_;
};

TEST_F(KernelTableSample, CatalogIsTheCliHeaderInOrder) {
    ASSERT_EQ(ls::kernelFields().size(), ls::kKernelFieldCount);
    ASSERT_EQ(kernels_->header.size(), ls::kKernelFieldCount);
    EXPECT_EQ(kernels_->header.back(), "graph");
    for (size_t i = 0; i < ls::kKernelFieldCount; ++i) {
        EXPECT_EQ(ls::kernelFields()[i].name, kernels_->header[i]);
        EXPECT_EQ(static_cast<size_t>(ls::kernelFields()[i].field), i);
        EXPECT_EQ(ls::kernelFieldByName(kernels_->header[i]), ls::kernelFields()[i].field);
    }
    EXPECT_FALSE(ls::kernelFieldByName("durations"));
}

TEST_F(KernelTableSample, NumbersAgreeWithTheCliText) {
    for (const auto& info : ls::kernelFields()) {
        if (info.unit == ls::FieldUnit::Text || info.unit == ls::FieldUnit::Dim) continue;
        for (KernelId k : allRows()) {
            const std::string& text = cli(k, info.field);
            const double v = table_->number(k, info.field);
            if (text.empty()) {
                EXPECT_TRUE(std::isnan(v)) << info.name << " row " << k.value;
            } else {
                // The CLI prints a fixed number of decimals: the value is within half a last digit.
                const size_t dot = text.find('.');
                const int decimals =
                    dot == std::string::npos ? 0 : static_cast<int>(text.size() - dot - 1);
                EXPECT_NEAR(v, std::stod(text),
                            0.5 * std::pow(10.0, -decimals) + std::fabs(v) * 1e-12)
                    << info.name << " row " << k.value;
            }
        }
    }
}

// Sorting: for every column and both orders, adjacent rows are in order by an independent
// comparison of the CLI's values (numbers parsed from the CSV, texts by bytes), unknown last.
TEST_F(KernelTableSample, EveryColumnSortsBothWaysWithUnknownLast) {
    for (const auto& info : ls::kernelFields()) {
        if (info.field == KernelField::NvtxRange || info.field == KernelField::NvtxPath)
            continue; // below
        for (bool descending : {false, true}) {
            auto rows = allRows();
            table_->sort(rows, info.field, descending);
            ASSERT_EQ(rows.size(), trace_->kernels.size());
            bool seenUnknown = false;
            for (size_t r = 1; r < rows.size(); ++r) {
                const std::string& a = cli(rows[r - 1], info.field);
                const std::string& b = cli(rows[r], info.field);
                if (info.unit == ls::FieldUnit::Text) {
                    EXPECT_TRUE(descending ? a >= b : a <= b)
                        << info.name << " rows " << r - 1 << "," << r << ": " << a << " / " << b;
                    continue;
                }
                if (info.unit == ls::FieldUnit::Dim) continue; // by x*y*z, checked through number()
                if (a.empty()) seenUnknown = true;
                if (seenUnknown) {
                    EXPECT_TRUE(b.empty()) << info.name << ": a known value after an unknown one";
                    continue;
                }
                if (b.empty()) continue;
                const double x = std::stod(a), y = std::stod(b);
                EXPECT_TRUE(descending ? x >= y : x <= y)
                    << info.name << " rows " << r - 1 << "," << r << ": " << a << " / " << b;
            }
        }
    }
}

TEST_F(KernelTableSample, TiesKeepTheirPreviousOrder) {
    auto rows = allRows(); // by id
    table_->sort(rows, KernelField::Dir, false);
    for (size_t r = 1; r < rows.size(); ++r)
        if (cli(rows[r - 1], KernelField::Dir) == cli(rows[r], KernelField::Dir)) {
            EXPECT_LT(rows[r - 1].value, rows[r].value);
        }
}

TEST_F(KernelTableSample, PathsSortComponentWiseAndRangesByNameThenOpId) {
    auto rows = allRows();
    table_->sort(rows, KernelField::NvtxPath, false);
    for (size_t r = 1; r < rows.size(); ++r) {
        const auto a = ls::test::splitOn(cli(rows[r - 1], KernelField::NvtxPath), " > ");
        const auto b = ls::test::splitOn(cli(rows[r], KernelField::NvtxPath), " > ");
        EXPECT_TRUE(std::lexicographical_compare(b.begin(), b.end(), a.begin(), a.end()) == false)
            << r;
    }
    rows = allRows();
    table_->sort(rows, KernelField::NvtxRange, false);
    for (size_t r = 1; r < rows.size(); ++r) {
        const auto ra = trace_->kernelLinks.range[rows[r - 1].value],
                   rb = trace_->kernelLinks.range[rows[r].value];
        const std::string_view na = ra.valid() ? trace_->str(trace_->ranges.name[ra.value]) : "";
        const std::string_view nb = rb.valid() ? trace_->str(trace_->ranges.name[rb.value]) : "";
        EXPECT_LE(na, nb) << r;
    }
}

TEST_F(KernelTableSample, PathTextIsTheCliColumn) {
    for (KernelId k : allRows()) EXPECT_EQ(table_->nvtxPath(k), cli(k, KernelField::NvtxPath));
}

TEST_F(KernelTableSample, BreakdownsAddUpToSqlAndMatchTheCliColumns) {
    const uint64_t total = static_cast<uint64_t>(
        ls::test::SqlReader(ls::test::sampleTrace())
            .scalar("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    auto check = [&](const std::vector<ls::TimeShare>& shares, KernelField f,
                     const std::string& noValueLabel) {
        uint64_t sum = 0, count = 0;
        std::map<std::string, std::pair<uint64_t, uint64_t>> fromCli;
        for (KernelId k : allRows()) {
            // An empty cell goes by direction where the label asks for it ("(outside layers) · ").
            const std::string empty = noValueLabel.ends_with(" · ")
                                          ? noValueLabel + cli(k, KernelField::Dir)
                                          : noValueLabel;
            auto& e = fromCli[cli(k, f).empty() ? empty : cli(k, f)];
            ++e.first;
            e.second += static_cast<uint64_t>(std::stoll(cli(k, KernelField::Duration)));
        }
        for (const auto& s : shares) {
            sum += s.gpuTimeNs;
            count += s.kernels;
            ASSERT_TRUE(fromCli.count(s.label)) << s.label;
            EXPECT_EQ(fromCli[s.label].first, s.kernels) << s.label;
            EXPECT_EQ(fromCli[s.label].second, s.gpuTimeNs) << s.label;
        }
        EXPECT_EQ(sum, total);
        EXPECT_EQ(count, trace_->kernels.size());
        EXPECT_EQ(shares.size(), fromCli.size());
    };
    check(ls::gpuTimeByDirection(*trace_), KernelField::Dir, "");
    check(ls::gpuTimeByTensorCores(*trace_), KernelField::Tc, "");
    const auto layers = ls::gpuTimeByLayer(*trace_);
    check(layers, KernelField::Layer, "(outside layers) · ");
    // The sample's embedding, LM head, loss and optimizer are outside layers, by direction; each
    // share's filter selects exactly its kernels.
    const auto outside = std::count_if(layers.begin(), layers.end(), [](const ls::TimeShare& s) {
        return s.label.starts_with("(outside layers)");
    });
    EXPECT_EQ(outside, 3);
    for (const auto& s : layers)
        if (s.label == "(outside layers) · optimizer") {
            EXPECT_EQ(s.filter, "layer = \"\" and direction = optimizer");
        }
    for (size_t i = 1; i < layers.size(); ++i)
        EXPECT_GE(layers[i - 1].gpuTimeNs, layers[i].gpuTimeNs);
    EXPECT_EQ(ls::quoteFilterValue("a \"b\" \\"), "\"a \\\"b\\\" \\\\\"");
}

// occupancy_pct and occupancy_limiter: every cell of the sample (an H200 export that records the
// driver's carveout) from its own CUPTI row read by SQL, through the rules of core/costs.
TEST_F(KernelTableSample, OccupancyCellsComeFromTheExportsLaunchValues) {
    const ls::DeviceLimits* h200 = ls::deviceLimits(9, 0);
    ASSERT_NE(h200, nullptr);
    std::map<std::pair<int64_t, int64_t>, ls::LaunchShape> launches; // by (start, correlation id)
    ls::test::SqlReader(ls::test::sampleTrace())
        .each(
            "SELECT start, correlationId, blockX * blockY * blockZ, registersPerThread, "
            "staticSharedMemory, dynamicSharedMemory, "
            "sharedMemoryExecuted FROM CUPTI_ACTIVITY_KIND_KERNEL",
            [&](sqlite3_stmt* st) {
                auto u = [&](int c) {
                    return static_cast<uint32_t>(ls::test::SqlReader::int64(st, c));
                };
                launches[{ls::test::SqlReader::int64(st, 0), ls::test::SqlReader::int64(st, 1)}] = {
                    u(2), u(3), u(4), u(5), u(6)};
            });
    ASSERT_EQ(launches.size(), trace_->kernels.size());
    std::map<std::string, size_t> limiters;
    for (KernelId k : allRows()) {
        const auto it =
            launches.find({trace_->kernels.start[k.value], trace_->kernels.correlation[k.value]});
        ASSERT_NE(it, launches.end()) << k.value;
        ASSERT_GT(it->second.smemConfig, 0u);
        const auto o = ls::theoreticalOccupancy(it->second, *h200);
        ASSERT_TRUE(o.has_value());
        char pct[32];
        std::snprintf(pct, sizeof pct, "%.2f", o->fraction * 100);
        EXPECT_EQ(cli(k, KernelField::OccupancyPct), pct) << k.value;
        EXPECT_EQ(cli(k, KernelField::OccupancyLimiter), ls::occupancyLimiterText(o->limiters))
            << k.value;
        ++limiters[cli(k, KernelField::OccupancyLimiter)];
    }
    EXPECT_GT(limiters["registers"], 0u);
    EXPECT_GT(limiters["registers+shared memory"], 0u)
        << "the Hopper GEMMs fill the SM's shared memory";
    EXPECT_EQ(limiters[""], 0u) << "every kernel of the sample has a known device";
}

} // namespace
