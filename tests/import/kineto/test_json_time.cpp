// Chrome-trace microsecond texts to exact nanoseconds (core/import/kineto/json_time.h).
#include "core/import/kineto/json_time.h"

#include <gtest/gtest.h>

namespace ls {
namespace {

TEST(JsonTime, KeepsEveryDigitOfLargeTimestamps) {
    // 16 and 17 significant digits: a double would lose the last ones.
    EXPECT_EQ(microsTextToNs("4628894605263.866"), 4628894605263866);
    EXPECT_EQ(microsTextToNs("1712195495505543.2"), 1712195495505543200);
    EXPECT_EQ(microsTextToNs("1695835573023613"), 1695835573023613000);
    EXPECT_EQ(microsTextToNs("1712195495505583.0"), 1712195495505583000);
}

TEST(JsonTime, RoundsBeyondNanosecondsHalfAwayFromZero) {
    EXPECT_EQ(microsTextToNs("4.928"), 4928);
    EXPECT_EQ(microsTextToNs("0.0004"), 0);
    EXPECT_EQ(microsTextToNs("0.0005"), 1);
    EXPECT_EQ(microsTextToNs("1.23449999"), 1234);
    EXPECT_EQ(microsTextToNs("1.2345"), 1235);
    EXPECT_EQ(microsTextToNs("-1.5"), -1500);
    EXPECT_EQ(microsTextToNs("-0.0005"), -1);
    EXPECT_EQ(microsTextToNs("7"), 7000);
}

TEST(JsonTime, ExponentFormsGoThroughOneRounding) {
    EXPECT_EQ(microsTextToNs("1e3"), 1000000);
    EXPECT_EQ(microsTextToNs("2.5E-3"), 3);
}

TEST(JsonTime, RejectsWhatIsNotANumberOrDoesNotFit) {
    for (const char* bad : {"", "-", "abc", "1.", ".5", "1.2.3", "12a", "\"12\"",
                            "99999999999999999999", "9300000000000000", "1e400"})
        EXPECT_FALSE(microsTextToNs(bad).has_value()) << bad;
    EXPECT_TRUE(microsTextToNs("9200000000000000").has_value());
}

} // namespace
} // namespace ls
