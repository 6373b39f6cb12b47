// The overview of a load in progress: bins that double their range keep every kernel's time
// whatever order the batches come in, and an Nsight Systems load hands every kernel it keeps to
// LoadOptions::kernelsRead while it reads.
#include "core/load/load.h"
#include "core/present/load_overview.h"
#include "tests/support/nsys_fixture.h"

#include <gtest/gtest.h>
#include <mutex>
#include <numeric>

namespace ls {
namespace {

double busyTotal(const LoadOverviewSnapshot& s) {
    double total = 0;
    for (const auto& lane : s.lanes)
        total = std::accumulate(lane.busyNs.begin(), lane.busyNs.end(), total);
    return total;
}

TEST(LoadOverview, KeepsEveryKernelsTimeAsTheRangeGrowsBothWays) {
    LoadOverview overview;
    // A first batch in the middle, then later and earlier ones: the range doubles both ways.
    std::vector<KernelSpan> middle, later, earlier;
    for (int i = 0; i < 1000; ++i)
        middle.push_back({1'000'000 + i * 100, 1'000'000 + i * 100 + 50, 0, 7});
    for (int i = 0; i < 10; ++i)
        later.push_back({50'000'000 + i * 1000, 50'000'000 + i * 1000 + 500, 0, 9});
    earlier.push_back({10, 30, 1, 7});
    overview.add(middle);
    overview.add(later);
    overview.add(earlier);
    const auto s = overview.snapshot();
    EXPECT_EQ(s.kernels, 1011u);
    EXPECT_EQ(s.fromNs, 10);
    EXPECT_EQ(s.toNs, 50'009'500);
    EXPECT_LE(s.originNs, s.fromNs);
    EXPECT_GE(s.originNs + static_cast<TimeNs>(LoadOverview::kBins) * s.binNs, s.toNs);
    EXPECT_DOUBLE_EQ(busyTotal(s), 1000 * 50 + 10 * 500 + 20);
    ASSERT_EQ(s.lanes.size(), 3u); // by device, then stream
    EXPECT_EQ(s.lanes[0].stream, 7u);
    EXPECT_EQ(s.lanes[0].kernels, 1000u);
    EXPECT_EQ(s.lanes[1].stream, 9u);
    EXPECT_EQ(s.lanes[2].device, 1u);
    // The middle stretch is half busy, the empty one between is idle.
    EXPECT_NEAR(s.busyShare(s.lanes[0], 1'000'000, 1'100'000), 0.5, 0.05);
    EXPECT_EQ(s.busyShare(s.lanes[0], 20'000'000, 21'000'000), 0.0);
}

TEST(LoadOverview, AbsurdTimesNeitherOverflowNorThrow) {
    LoadOverview overview;
    const std::vector<KernelSpan> odd{{INT64_MIN, INT64_MAX, 0, 0}, {5, 1, 0, 0}, {0, 0, 0, 1}};
    overview.add(odd);
    const auto s = overview.snapshot();
    EXPECT_EQ(s.kernels, 3u);
    EXPECT_GT(s.binNs, 0);
}

TEST(LoadOverview, AnNsysLoadHandsOverEveryKernelWhileReading) {
    using namespace test;
    using namespace test::fixture;
    TempDir dir;
    std::string sql = cat({kStringIds, kKernelTable});
    sql += "INSERT INTO StringIds VALUES (1, 'k');\n";
    sql += "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999) "
           "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, streamId, correlationId, "
           "demangledName, shortName) SELECT 1000 + i * 10, 1005 + i * 10, 7 + i % 3, i + 1, 1, 1 "
           "FROM n;\n";
    const auto file = dir / "overview.sqlite";
    writeSqliteFixture(file, sql);
    LoadOverview overview;
    std::mutex mutex;
    size_t batches = 0;
    LoadOptions options;
    options.kernelsRead = [&](std::span<const KernelSpan> kernels) {
        overview.add(kernels);
        std::lock_guard lock(mutex);
        ++batches;
    };
    const LoadResult r = loadTrace(file.string(), options);
    ASSERT_TRUE(r.ok());
    const auto s = overview.snapshot();
    EXPECT_EQ(s.kernels, r.trace->kernels.size());
    EXPECT_EQ(s.lanes.size(), 3u);
    EXPECT_GT(batches, 1u); // in batches while reading, not once at the end
    EXPECT_EQ(s.fromNs, 1000);
    EXPECT_EQ(s.toNs, 1005 + 19999 * 10);
}

} // namespace
} // namespace ls
