// partitionPointFrom: a search outward from a hint finds what a search of the whole range finds,
// wherever the hint is and whichever way the answer lies.
#include "core/model/search_from.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

namespace {

TEST(PartitionPointFrom, EveryHintAndValueGivesTheWholeSearchsAnswer) {
    std::vector<int64_t> v;
    for (int64_t i = 0; i < 300; ++i) v.push_back(i / 3 * 2); // runs of equal values, and gaps
    for (int64_t value = -2; value <= 202; ++value) {
        const auto whole = std::upper_bound(v.begin(), v.end(), value);
        for (ptrdiff_t h = -1; h <= static_cast<ptrdiff_t>(v.size()) + 1; ++h) {
            const auto hint = v.begin() + std::clamp<ptrdiff_t>(h, 0, ptrdiff_t(v.size()));
            const auto found = ls::partitionPointFrom(v.begin(), v.end(), hint,
                                                      [&](int64_t x) { return x <= value; });
            ASSERT_EQ(found - v.begin(), whole - v.begin()) << "value " << value << " hint " << h;
        }
    }
    // An empty range, and a range of one.
    const std::vector<int64_t> none, one = {5};
    EXPECT_EQ(ls::partitionPointFrom(none.begin(), none.end(), none.begin(),
                                     [](int64_t x) { return x < 3; }),
              none.end());
    for (int64_t value : {4, 5, 6})
        EXPECT_EQ(ls::partitionPointFrom(one.begin(), one.end(), one.begin(),
                                         [&](int64_t x) { return x < value; }) -
                      one.begin(),
                  value > 5 ? 1 : 0);
}

} // namespace
