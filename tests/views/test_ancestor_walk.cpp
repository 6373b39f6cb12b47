// AncestorWalk gives each range the value its chain of ancestors makes, whatever order ranges are
// asked in: in time order (as the kernels ask, mostly sharing the last stack), backwards, and in
// a shuffled order (stacks shared in no pattern), checked against a walk to the top for each; on
// the sample and on a chain deeper than the 255 levels the range depths count.
#include "core/views/ancestor_walk.h"
#include "tests/support/correlation_fixture.h"
#include "tests/support/sample_fixture.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>
#include <string>

namespace ls::test {
namespace {

class AncestorWalkSample : public SampleTraceSuite {};

// The names of r's stack, outermost first, as one text: what the walk must rebuild.
std::string stackText(const Trace& t, RangeId r) {
    std::string text;
    for (; r.valid(); r = t.ranges.parent[r.value])
        text.insert(0, std::string(t.str(t.ranges.name[r.value])) + "/");
    return text;
}

// Asks for every range in time order, backwards and shuffled; returns how many values the walk
// made in time order.
int expectEveryStack(const Trace& t) {
    std::vector<uint32_t> order(t.ranges.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::vector<std::vector<uint32_t>> orders = {
        order, std::vector<uint32_t>(order.rbegin(), order.rend()), order};
    std::shuffle(orders[2].begin(), orders[2].end(), std::mt19937(7));
    int madeInTimeOrder = 0;
    for (const auto& asked : orders) {
        AncestorWalk<std::string> walk(t);
        int made = 0;
        for (uint32_t i : asked) {
            const std::string& got = walk.of(RangeId(i), [&](const std::string* parent, RangeId a) {
                ++made;
                return (parent ? *parent : std::string()) +
                       std::string(t.str(t.ranges.name[a.value])) + "/";
            });
            EXPECT_EQ(got, stackText(t, RangeId(i))) << "range " << i;
            if (got != stackText(t, RangeId(i))) return -1;
        }
        if (&asked == &orders[0]) madeInTimeOrder = made;
    }
    return madeInTimeOrder;
}

TEST_F(AncestorWalkSample, EveryRangeGetsItsStacksValueInAnyOrder) {
    const Trace& t = *trace_;
    ASSERT_GT(t.ranges.size(), 1000u);
    const int made = expectEveryStack(t);
    EXPECT_GT(made, 0);
    EXPECT_LT(made, static_cast<int>(2 * t.ranges.size()))
        << "in time order the last stack is reused";
}

// 300 nested ranges ("level 0" outermost), with short ranges inside levels 299, 292, 140, 129:
// past level 255 the depth column holds 255 for every range, which places none of them in a
// stack but the one truly at that depth.
TEST(AncestorWalkDeep, ChainsDeeperThanTheDepthCapGetTheirStacks) {
    TempDir dir;
    const auto t = fixture::load(dir, fixture::correlationFixture(R"(
        INSERT INTO NVTX_EVENTS(start, end, text)
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299)
            SELECT i, 100000 - i, 'level ' || i FROM n;
        INSERT INTO NVTX_EVENTS(start, end, text) VALUES
            (400, 500, 'inner a'), (600, 700, 'inner b'), (99705, 99708, 'under level 292'),
            (99850, 99860, 'under level 140'), (99870, 99880, 'under level 129');
    )"));
    ASSERT_TRUE(t);
    ASSERT_EQ(t->ranges.size(), 305u);
    const auto depthOf = [&](std::string_view name) {
        for (uint32_t i = 0; i < t->ranges.size(); ++i)
            if (t->str(t->ranges.name[i]) == name) return static_cast<int>(t->ranges.depth[i]);
        return -1;
    };
    EXPECT_EQ(depthOf("inner a"), 255) << "the cap this test is about";
    EXPECT_EQ(depthOf("under level 292"), 255);
    EXPECT_EQ(depthOf("under level 140"), 141);
    EXPECT_GT(expectEveryStack(*t), 0);
}

} // namespace
} // namespace ls::test
