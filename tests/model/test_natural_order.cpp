// Natural order of names: digits compare as numbers, the rest byte by byte.
#include "core/model/natural_order.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace ls {
namespace {

TEST(NaturalOrder, RanksAndVersionsSortAsPeopleRead) {
    std::vector<std::string> names = {"rank10.sqlite", "rank2.sqlite", "rank1.sqlite",
                                      "2024.10.1",     "2024.4.1",     "a",
                                      "rank02.sqlite"};
    std::stable_sort(names.begin(), names.end(),
                     [](const auto& a, const auto& b) { return naturalLess(a, b); });
    const std::vector<std::string> expected = {"2024.4.1",     "2024.10.1",    "a",
                                               "rank1.sqlite", "rank2.sqlite", "rank02.sqlite",
                                               "rank10.sqlite"};
    EXPECT_EQ(names, expected);
    EXPECT_TRUE(naturalLess("rank", "rank0"));
    EXPECT_FALSE(naturalLess("rank0", "rank"));
    EXPECT_FALSE(naturalLess("x", "x"));
    EXPECT_TRUE(naturalLess("job_rank9", "job_rank10"));
}

} // namespace
} // namespace ls
