// Interval arithmetic, table-driven with hand-computed lengths.
#include "core/reports/group_name.h"
#include "core/reports/intervals.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <thread>

namespace ls {
namespace {

TEST(Intervals, UnionMergesOverlapsAndTouchingAndDropsEmpty) {
    const auto u = unionOf({{10, 20}, {0, 5}, {15, 30}, {30, 35}, {40, 40}, {50, 45}, {36, 38}});
    const std::vector<Interval> expected = {{0, 5}, {10, 35}, {36, 38}};
    EXPECT_EQ(u, expected);
    EXPECT_EQ(lengthOf(u), 5 + 25 + 2);
    EXPECT_TRUE(unionOf({}).empty());
}

TEST(Intervals, IntersectionLengths) {
    struct Case {
        std::vector<Interval> a, b;
        TimeNs both;
    } cases[] = {
        {{{0, 10}}, {{5, 15}}, 5},
        {{{0, 10}}, {{10, 20}}, 0},
        {{{0, 100}}, {{10, 20}, {30, 40}, {90, 120}}, 30},
        {{{0, 5}, {10, 15}, {20, 25}}, {{3, 22}}, 2 + 5 + 2},
        {{}, {{0, 10}}, 0},
        {{{-50, -10}}, {{-20, 0}}, 10},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(intersectionLength(unionOf(c.a), unionOf(c.b)), c.both);
        EXPECT_EQ(intersectionLength(unionOf(c.b), unionOf(c.a)), c.both);
    }
}

// The levels as the rule says, one threshold at a time: merge the last kept level's gaps below the
// threshold, keep the result when it has at most 3/4 of that level's intervals.
IntervalLevels levelsByHand(const std::vector<Interval>& lane) {
    IntervalLevels out;
    out.minGap.push_back(0);
    out.levels.push_back(lane);
    for (TimeNs gap = 256; out.levels.back().size() > 16 && gap < (TimeNs(1) << 50); gap *= 2) {
        std::vector<Interval> merged;
        for (const Interval& i : out.levels.back())
            if (!merged.empty() && i.start - merged.back().end < gap)
                merged.back().end = i.end;
            else
                merged.push_back(i);
        if (merged.size() * 4 > out.levels.back().size() * 3) continue;
        out.minGap.push_back(gap);
        out.levels.push_back(std::move(merged));
    }
    return out;
}

TEST(Intervals, LevelsKeepTheThresholdsTheRuleKeeps) {
    // Gaps of every magnitude, including exact powers of two and one less (the thresholds' edges).
    std::mt19937_64 random(7);
    for (int lane = 0; lane < 20; ++lane) {
        SCOPED_TRACE(lane);
        std::vector<Interval> intervals;
        TimeNs t = 0;
        const int count = 1 + static_cast<int>(random() % 5000);
        for (int k = 0; k < count; ++k) {
            const int bits = static_cast<int>(random() % 30);
            TimeNs gap = 1 + static_cast<TimeNs>(random() % (uint64_t(1) << bits));
            if (k % 7 == 0) gap = TimeNs(256) << (random() % 20);
            if (k % 11 == 0) gap = (TimeNs(256) << (random() % 20)) - 1;
            t += gap;
            const TimeNs end = t + 1 + static_cast<TimeNs>(random() % 1000);
            intervals.push_back({t, end});
            t = end;
        }
        const IntervalLevels fast = intervalLevels(intervals), slow = levelsByHand(intervals);
        EXPECT_EQ(fast.minGap, slow.minGap);
        EXPECT_EQ(fast.levels, slow.levels);
    }
}

TEST(GroupName, EqualNamesShareAnIdInEveryThread) {
    EXPECT_TRUE(GroupName::of("").empty());
    EXPECT_EQ(GroupName::of(""), GroupName());
    const GroupName a = GroupName::of("tp_group"), b = GroupName::of("dp_group");
    EXPECT_FALSE(a.empty());
    EXPECT_NE(a, b);
    EXPECT_EQ(a.name(), "tp_group");
    EXPECT_EQ(b.name(), "dp_group");
    const std::string same = std::string("tp_") + "group"; // another string of the same name
    EXPECT_EQ(GroupName::of(same), a);
    // Names made on several threads at once: one id each, whatever thread asked first.
    std::vector<std::vector<GroupName>> seen(4);
    {
        std::vector<std::jthread> threads;
        for (size_t t = 0; t < seen.size(); ++t)
            threads.emplace_back([&seen, t] {
                for (int k = 0; k < 200; ++k)
                    seen[t].push_back(GroupName::of("pg" + std::to_string(k)));
            });
    }
    for (size_t t = 1; t < seen.size(); ++t) EXPECT_EQ(seen[t], seen[0]);
    for (int k = 0; k < 200; ++k)
        EXPECT_EQ(seen[0][static_cast<size_t>(k)].name(), "pg" + std::to_string(k));
}

// Lists each sorted by start, merged as they are read: the union's length is that of unionOf
// over their concatenation, overlaps within and across the lists, touching and empty intervals
// and an empty list included. UnionLength fed in start order agrees too.
TEST(UnionLengthOfSorted, EqualsTheLengthOfTheUnionOfAllTheLists) {
    std::mt19937 rng(7);
    for (int round = 0; round < 200; ++round) {
        std::vector<std::vector<Interval>> lists(1 + round % 4);
        std::vector<Interval> all;
        for (auto& list : lists) {
            TimeNs at = static_cast<TimeNs>(rng() % 50);
            const size_t n = round % 5 == 0 ? 0 : rng() % 40;
            for (size_t i = 0; i < n; ++i) {
                at += static_cast<TimeNs>(rng() % 20);
                const TimeNs length = static_cast<TimeNs>(rng() % 30) - 3; // some empty
                list.push_back({at, at + length});
            }
            all.insert(all.end(), list.begin(), list.end());
        }
        std::vector<const std::vector<Interval>*> pointers;
        for (const auto& list : lists) pointers.push_back(&list);
        const TimeNs want = lengthOf(unionOf(all));
        ASSERT_EQ(unionLengthOfSorted(pointers), want) << round;
        std::sort(all.begin(), all.end(),
                  [](const Interval& a, const Interval& b) { return a.start < b.start; });
        UnionLength fed;
        for (const Interval& i : all) fed.add(i.start, i.end);
        ASSERT_EQ(fed.length(), want) << round;
    }
}

} // namespace
} // namespace ls
