// columns::permute and compact over a struct of columns of every width the model uses: each
// non-empty column ends reordered as a plain gather would, on one thread or several, and an empty
// (released) column stays empty.
#include "core/model/columns.h"
#include "core/model/trace.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <numeric>
#include <random>

namespace {

struct Mixed {
    std::vector<uint8_t> narrow;
    std::vector<uint32_t> word;
    std::vector<int64_t> wide;
    std::vector<ls::Dim3> triple;
    std::vector<uint32_t> released;
    auto tie() { return std::tie(narrow, word, wide, triple, released); }
};

Mixed filled(size_t n) {
    Mixed m;
    for (size_t i = 0; i < n; ++i) {
        m.narrow.push_back(static_cast<uint8_t>(i * 7));
        m.word.push_back(static_cast<uint32_t>(i * 2654435761u));
        m.wide.push_back(-static_cast<int64_t>(i) * 1'000'000'007);
        m.triple.push_back(
            {static_cast<uint32_t>(i), static_cast<uint32_t>(i + 1), static_cast<uint32_t>(i * 3)});
    }
    return m;
}

template <typename T>
std::vector<T> gathered(const std::vector<T>& v, const std::vector<uint32_t>& perm) {
    std::vector<T> out;
    for (uint32_t p : perm) out.push_back(v[p]);
    return out;
}

TEST(Columns, PermuteReordersEveryColumnAsAGatherWould) {
    for (const size_t n : {size_t(1), size_t(5), size_t(1000), size_t(100003)})
        for (const unsigned threads : {1u, 2u, 3u}) {
            std::vector<uint32_t> perm(n);
            std::iota(perm.begin(), perm.end(), 0u);
            std::shuffle(perm.begin(), perm.end(),
                         std::mt19937(static_cast<uint32_t>(n + threads)));
            const Mixed before = filled(n);
            Mixed m = before;
            ls::columns::permute(m, perm, threads);
            EXPECT_EQ(m.narrow, gathered(before.narrow, perm))
                << n << " rows, " << threads << " threads";
            EXPECT_EQ(m.word, gathered(before.word, perm));
            EXPECT_EQ(m.wide, gathered(before.wide, perm));
            EXPECT_EQ(m.triple, gathered(before.triple, perm));
            EXPECT_TRUE(m.released.empty());
        }
}

TEST(Columns, PermuteOfNoRowsOrOnlyEmptyColumnsIsANoOp) {
    Mixed m;
    ls::columns::permute(m, {}, 2);
    EXPECT_TRUE(m.narrow.empty() && m.wide.empty());
}

TEST(Columns, CompactKeepsFlaggedRowsInOrder) {
    const Mixed before = filled(10);
    Mixed m = before;
    const std::vector<uint8_t> keep = {1, 0, 0, 1, 1, 0, 1, 0, 0, 1};
    ls::columns::compact(m, keep, 2);
    const std::vector<uint32_t> kept = {0, 3, 4, 6, 9};
    EXPECT_EQ(m.word, gathered(before.word, kept));
    EXPECT_EQ(m.triple, gathered(before.triple, kept));
}

} // namespace
