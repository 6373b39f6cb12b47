// AncestorWalk gives each range the value its chain of ancestors makes, whatever order ranges are
// asked in: in time order (as the kernels ask, mostly sharing the last stack), backwards, and in
// a shuffled order (stacks shared in no pattern), checked against a walk to the top for each.
#include "core/views/ancestor_walk.h"
#include "tests/support/sample_fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

namespace ls::test {
namespace {

class AncestorWalkSample : public SampleTraceSuite {};

// The names of r's stack, outermost first, as one text: what the walk must rebuild.
std::string stackText(const Trace& t, RangeId r) {
    std::string text;
    for (; r.valid(); r = t.ranges.parent[r.value]) text.insert(0, std::string(t.str(t.ranges.name[r.value])) + "/");
    return text;
}

TEST_F(AncestorWalkSample, EveryRangeGetsItsStacksValueInAnyOrder) {
    const Trace& t = *trace_;
    ASSERT_GT(t.ranges.size(), 1000u);
    std::vector<uint32_t> order(t.ranges.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::vector<std::vector<uint32_t>> orders = {order, std::vector<uint32_t>(order.rbegin(), order.rend()), order};
    std::shuffle(orders[2].begin(), orders[2].end(), std::mt19937(7));
    for (const auto& asked : orders) {
        AncestorWalk<std::string> walk(t);
        int made = 0;
        for (uint32_t i : asked) {
            const std::string& got = walk.of(RangeId(i), [&](const std::string* parent, RangeId a) {
                ++made;
                return (parent ? *parent : std::string()) + std::string(t.str(t.ranges.name[a.value])) + "/";
            });
            ASSERT_EQ(got, stackText(t, RangeId(i))) << "range " << i;
        }
        if (&asked == &orders[0]) {
            EXPECT_LT(made, static_cast<int>(2 * t.ranges.size())) << "in time order the last stack is reused";
        }
    }
}

} // namespace
} // namespace ls::test
