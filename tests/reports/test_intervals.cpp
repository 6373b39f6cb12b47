// Interval arithmetic, table-driven with hand-computed lengths.
#include "core/reports/intervals.h"

#include <gtest/gtest.h>

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

} // namespace
} // namespace ls
