// RowRuns: the packed source rows of NVTX ranges. Values read back as stored whichever form is
// chosen, runs only where they are smaller, and damaged forms are told apart.
#include "core/model/row_runs.h"

#include <gtest/gtest.h>
#include <numeric>

namespace {

std::vector<uint32_t> readBack(const ls::RowRuns& r) {
    std::vector<uint32_t> out;
    for (size_t i = 0; i < r.size(); ++i) out.push_back(r.at(i));
    return out;
}

TEST(RowRuns, ThreadsOfConsecutiveRowsPackIntoRunsAndReadBack) {
    // Two threads' rows as a grouped NVTX table gives them: 1..1000 interleaved in blocks of 100.
    std::vector<uint32_t> rows;
    for (uint32_t block = 0; block < 10; block += 2)
        for (uint32_t i = 0; i < 100; ++i) rows.push_back(1 + block * 100 + i);
    for (uint32_t block = 1; block < 10; block += 2)
        for (uint32_t i = 0; i < 100; ++i) rows.push_back(1 + block * 100 + i);
    const auto packed = ls::RowRuns::of(rows);
    EXPECT_TRUE(packed.plain.empty());
    EXPECT_EQ(packed.runStart.size(), 10u);
    EXPECT_EQ(packed.size(), rows.size());
    EXPECT_EQ(readBack(packed), rows);
    EXPECT_EQ(packed.expand(), rows);
    EXPECT_TRUE(packed.consistent(rows.size()));
    EXPECT_FALSE(packed.consistent(rows.size() + 1));
}

TEST(RowRuns, PackedThroughAnOrderAsIfGatheredFirst) {
    std::vector<uint32_t> rows(600), order(600), gathered(600);
    for (uint32_t i = 0; i < 600; ++i) rows[i] = 10 + i;
    // Two threads interleaved by 50 rows, grouped by thread: what the range grouping gives.
    for (uint32_t i = 0, k = 0; i < 600; ++i)
        if ((i / 50) % 2 == 0) order[k++] = i;
    for (uint32_t i = 0, k = 300; i < 600; ++i)
        if ((i / 50) % 2 == 1) order[k++] = i;
    for (uint32_t i = 0; i < 600; ++i) gathered[i] = rows[order[i]];
    const auto packed = ls::RowRuns::of(rows, order);
    EXPECT_EQ(packed, ls::RowRuns::of(gathered));
    EXPECT_EQ(packed.runStart.size(), 12u);
    EXPECT_EQ(readBack(packed), gathered);
}

TEST(RowRuns, RowsWithoutRunsStayPlain) {
    std::vector<uint32_t> rows(1000);
    for (uint32_t i = 0; i < rows.size(); ++i)
        rows[i] = 3 * i; // JSON event indexes between other events
    const auto packed = ls::RowRuns::of(rows);
    EXPECT_EQ(packed.plain, rows);
    EXPECT_TRUE(packed.runStart.empty());
    EXPECT_EQ(readBack(packed), rows);
    EXPECT_EQ(packed.expand(), rows);
    EXPECT_TRUE(packed.consistent(rows.size()));
}

TEST(RowRuns, EmptyAndSingleValues) {
    const auto none = ls::RowRuns::of(std::vector<uint32_t>{});
    EXPECT_EQ(none.size(), 0u);
    EXPECT_TRUE(none.consistent(0));
    EXPECT_TRUE(none.expand().empty());
    const auto one = ls::RowRuns::of(std::vector<uint32_t>{42});
    EXPECT_EQ(one.at(0), 42u);
    EXPECT_TRUE(one.consistent(1));
}

TEST(RowRuns, DamagedFormsAreNotConsistent) {
    std::vector<uint32_t> rows(100);
    std::iota(rows.begin(), rows.end(), 7u);
    rows[50] = 1; // three runs
    const auto good = ls::RowRuns::of(rows);
    ASSERT_EQ(good.runStart.size(), 3u);
    auto bad = good;
    bad.runStart[0] = 1; // the first value has no run
    EXPECT_FALSE(bad.consistent(100));
    bad = good;
    std::swap(bad.runStart[1], bad.runStart[2]); // not ascending
    EXPECT_FALSE(bad.consistent(100));
    bad = good;
    bad.runStart.back() = 100; // a run past the end
    EXPECT_FALSE(bad.consistent(100));
    bad = good;
    bad.runValue.pop_back();
    EXPECT_FALSE(bad.consistent(100));
    bad = good;
    bad.plain.assign(rows.begin(), rows.end()); // both forms
    EXPECT_FALSE(bad.consistent(100));
}

} // namespace
