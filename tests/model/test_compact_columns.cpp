// The compact columns of the model: times in 6 bytes from an origin, a sparse int column, row
// references kept as distances back, dictionary-coded values. Each reads back what was put in,
// at the edges of its range too.
#include "core/model/compact_columns.h"
#include "core/model/ids.h"
#include "core/model/time_column.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <gtest/gtest.h>
#include <vector>

namespace {

using ls::TimeColumn;

TEST(TimeColumn, TimesWithin39HoursOfTheOriginReadBackExactly) {
    TimeColumn c;
    c.origin = 1'695'835'542'514'261'000; // a Kineto trace's epoch nanoseconds
    const std::vector<int64_t> times = {c.origin,
                                        c.origin + 1,
                                        c.origin - 1,
                                        c.origin + TimeColumn::kMaxOffset,
                                        c.origin + TimeColumn::kMinOffset,
                                        c.origin + 123'456'789'012};
    for (int64_t t : times) {
        EXPECT_TRUE(c.fits(t));
        c.push_back(t);
    }
    for (size_t i = 0; i < times.size(); ++i) EXPECT_EQ(c[i], times[i]) << i;
    EXPECT_FALSE(c.fits(c.origin + TimeColumn::kMaxOffset + 1));
    EXPECT_FALSE(c.fits(c.origin + TimeColumn::kMinOffset - 1));
    c.set(1, c.origin - 42);
    EXPECT_EQ(c[1], c.origin - 42);
    EXPECT_EQ(sizeof(c.packed[0]), 6u);
}

TEST(TimeColumn, IteratorsSearchLikeAPlainColumn) {
    TimeColumn c;
    c.origin = -5'000;
    for (int64_t t = -4'000; t < 4'000; t += 10) c.push_back(t);
    const auto it = std::lower_bound(c.begin(), c.end(), 15);
    EXPECT_EQ(*it, 20);
    EXPECT_EQ(it - c.begin(), 402);
    EXPECT_EQ(*std::max_element(c.begin(), c.end()), 3'990);
    EXPECT_TRUE(std::is_sorted(c.begin(), c.end()));
    TimeColumn other;
    other.origin = 0; // another origin, the same times
    for (int64_t t : c) other.push_back(t);
    EXPECT_EQ(other, c);
}

// Packed starts are 3 bytes above a base per 64 rows; rows more than 16.8 ms above it, or
// below it, are in a side table.
TEST(TimeColumn, BlocksHoldEveryTimeIncludingRowsOutOfTheirBlocksReach) {
    TimeColumn c;
    c.origin = 1'695'835'542'514'261'000;
    std::vector<int64_t> times;
    // 300 rows of one thread 1 us apart, then a thread 10 s earlier (block 4 holds both), and a
    // row 2^32 ns after the last.
    for (int i = 0; i < 300; ++i) times.push_back(c.origin + 1000 * i);
    for (int i = 0; i < 100; ++i) times.push_back(c.origin - 10'000'000'000 + 7 * i);
    times.push_back(times.back() + (int64_t(1) << 32));
    for (int64_t t : times) c.push_back(t);
    c.packBlocks();
    ASSERT_TRUE(c.blocked());
    EXPECT_TRUE(c.packed.empty());
    // Blocks hold whole times: the origin (the first time a worker read, so it varies between
    // loads of one file) is gone from the model's bytes.
    EXPECT_EQ(c.origin, 0);
    EXPECT_TRUE(c.blocksConsistent());
    EXPECT_EQ(c.size(), times.size());
    EXPECT_EQ(c.blockBase.size(), (times.size() + 63) / 64);
    for (size_t i = 0; i < times.size(); ++i) EXPECT_EQ(c[i], times[i]) << i;
    // Block 4 (rows 256..319) holds 44 rows of the first thread and 20 of the second, 10 s
    // apart: its base is the first thread's, and the second's 20 rows are in the side table.
    // The last row is 2^32 ns above its block's base (row 384).
    EXPECT_EQ(c.farRows.size(), 20u + 1u);
    EXPECT_EQ(c.farRows.front(), 300u);
    EXPECT_EQ(c.farRows.back(), 400u);
    EXPECT_EQ(c.blockBase[4], times[256]);
    EXPECT_EQ(c.blockBase[6], times[384]);
    // Damage a side table: the check finds it.
    c.farRows.pop_back();
    EXPECT_FALSE(c.blocksConsistent());
}

TEST(TimeColumn, PackingAMillionRowsGivesTheSixByteFormsPagesBackAsItGoes) {
    TimeColumn c;
    c.origin = 0;
    const size_t n = 1'000'003;
    c.resize(n);
    for (size_t i = 0; i < n; ++i) c.set(i, int64_t(i) * 37 + (i % 5));
    c.packBlocks();
    ASSERT_EQ(c.size(), n);
    EXPECT_TRUE(c.farRows.empty());
    for (size_t i = 0; i < n; i += 9973) EXPECT_EQ(c[i], int64_t(i) * 37 + int64_t(i % 5)) << i;
    EXPECT_EQ(c.back(), int64_t(n - 1) * 37 + int64_t((n - 1) % 5));
}

TEST(SparseInt32Column, AbsentRowsReadMinusOneAndHeldOnesTheirValue) {
    std::vector<int32_t> dense(1000, -1);
    for (size_t i = 0; i < dense.size(); i += 7) dense[i] = static_cast<int32_t>(i * 3);
    dense[63] = 0; // word edges
    dense[64] = INT32_MAX;
    dense[999] = 5;
    const auto c = ls::SparseInt32Column::of(dense, dense.size());
    ASSERT_EQ(c.size(), dense.size());
    for (size_t i = 0; i < dense.size(); ++i) EXPECT_EQ(c[i], dense[i]) << i;
    EXPECT_EQ(c.values.size(), static_cast<size_t>(std::count_if(
                                   dense.begin(), dense.end(), [](int32_t v) { return v != -1; })));
    EXPECT_TRUE(ls::SparseInt32Column::of(std::vector<int32_t>{}, 0).empty());
    // In one pass, given the count of held rows (or a wrong one, which only costs growth).
    const size_t held = c.values.size();
    for (const size_t hint : {held, size_t(0), held + 100}) {
        const auto once = ls::SparseInt32Column::of(dense, dense.size(), hint);
        EXPECT_EQ(once.present, c.present) << hint;
        EXPECT_EQ(once.before, c.before) << hint;
        EXPECT_EQ(once.values, c.values) << hint;
    }
}

TEST(BackRefColumn, NearAndFarReferencesAndNoneReadBack) {
    using ls::RangeId;
    const size_t n = 200'000;
    std::vector<RangeId> want(n);
    for (size_t i = 1; i < n; ++i)
        want[i] = i % 5 == 0 || i < 4 ? RangeId()
                  : i % 3 == 0        ? RangeId(0)
                                      : RangeId(static_cast<uint32_t>(i - 1 - i % 4));
    want[65'535] = RangeId(0); // exactly kFar rows back: a far one
    want[65'536] = RangeId(2);
    ls::BackRefColumn<RangeId> c;
    for (size_t i = 0; i < n; ++i) {
        c.back.push_back(ls::BackRefColumn<RangeId>::code(i, want[i]));
        if (c.back.back() == ls::BackRefColumn<RangeId>::kFar) {
            c.farRows.push_back(static_cast<uint32_t>(i));
            c.farIds.push_back(want[i].value);
        }
    }
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], want[i]) << i;
    EXPECT_LT(c.farRows.size(), n / 3);
}

TEST(DictColumn, RepeatedValuesShareOneEntry) {
    struct Hash {
        size_t operator()(int v) const { return std::hash<int>{}(v); }
    };
    const std::vector<int> values = {7, 7, 3, 7, 3, 9, 9, 7};
    const auto c = ls::DictColumn<int>::of<Hash>(values, values.size());
    ASSERT_EQ(c.size(), values.size());
    for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(c[i], values[i]);
    EXPECT_EQ(c.distinct.size(), 3u);
    ls::DictColumn<int> pushed;
    for (int v : values) pushed.push_back(v);
    EXPECT_EQ(pushed, c);
    EXPECT_EQ(pushed.distinct.size(), 3u);
}

} // namespace
