// StringMemo computes a text's value once, gives the same value to every thread that asks, and
// starts afresh when it is full instead of growing without bound.
#include "core/model/string_memo.h"

#include <atomic>
#include <gtest/gtest.h>
#include <string>
#include <thread>
#include <vector>

namespace {

TEST(StringMemo, ComputesEachTextOnceAndAgainOnlyAfterItFills) {
    ls::StringMemo<size_t> memo(3);
    int computed = 0;
    const auto length = [&](std::string_view s) {
        ++computed;
        return s.size();
    };
    EXPECT_EQ(memo.get("abc", length), 3u);
    EXPECT_EQ(memo.get("abc", length), 3u);
    EXPECT_EQ(memo.get(std::string("ab") + "c", length), 3u)
        << "looked up by the text, not by where it is";
    EXPECT_EQ(computed, 1);
    memo.get("a", length);
    memo.get("bb", length);
    EXPECT_EQ(computed, 3);
    memo.get("dddd", length); // the fourth text: the memo was full and starts afresh
    memo.get("abc", length);
    EXPECT_EQ(computed, 5);
}

TEST(StringMemo, ThreadsAskingAtOnceAllGetTheValue) {
    ls::StringMemo<std::string> memo(64);
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 2000; ++i) {
                const std::string key = "kernel_" + std::to_string((i * 7 + t) % 100);
                if (memo.get(key, [](std::string_view s) { return std::string(s) + "!"; }) !=
                    key + "!")
                    ++wrong;
            }
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(wrong.load(), 0);
}

} // namespace
