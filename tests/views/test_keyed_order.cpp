// orderKeyedRows, which the kernel table's sorts end in: rows already in the asked order or in
// its strict reverse skip the sort, and every input orders as a stable sort would (ties keep
// their order, unknown rows last).
#include "core/views/kernel_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace ls {
namespace {

std::vector<KernelId> order(const std::vector<int64_t>& keys, bool descending, std::vector<KernelId> unknown = {}) {
    std::vector<KeyedRow> known;
    for (uint32_t r = 0; r < keys.size(); ++r) known.push_back(KeyedRow{0, keys[r], KernelId(r)});
    std::vector<KernelId> rows(keys.size() + unknown.size());
    orderKeyedRows(rows, known, unknown, true, descending);
    return rows;
}

// What a stable sort of the rows by key gives.
std::vector<KernelId> reference(const std::vector<int64_t>& keys, bool descending) {
    std::vector<KernelId> rows;
    for (uint32_t r = 0; r < keys.size(); ++r) rows.push_back(KernelId(r));
    std::stable_sort(rows.begin(), rows.end(), [&](KernelId a, KernelId b) {
        return descending ? keys[a.value] > keys[b.value] : keys[a.value] < keys[b.value];
    });
    return rows;
}

std::vector<KernelId> ids(std::initializer_list<uint32_t> values) {
    std::vector<KernelId> out;
    for (uint32_t v : values) out.push_back(KernelId(v));
    return out;
}

TEST(KeyedOrder, RowsInTheAskedOrderOrItsStrictReverseComeOutSorted) {
    EXPECT_EQ(order({1, 1, 2, 5}, false), ids({0, 1, 2, 3}));
    EXPECT_EQ(order({9, 7, 3, 1}, false), ids({3, 2, 1, 0}));
    EXPECT_EQ(order({1, 2, 3, 4}, true), ids({3, 2, 1, 0})); // by id, descending
    EXPECT_EQ(order({4, 4, 1}, true), ids({0, 1, 2}));
    EXPECT_EQ(order({}, true), ids({}));
    EXPECT_EQ(order({2, 1}, false, ids({7})), ids({1, 0, 7})); // unknown rows last
}

TEST(KeyedOrder, TiesKeepTheirOrderWhereTheReverseWouldSwapThem) {
    // Increasing with a tie, asked descending: not a strict reverse, so the tie stays 0 before 1.
    EXPECT_EQ(order({1, 1, 2}, true), ids({2, 0, 1}));
    EXPECT_EQ(order({3, 2, 2}, false), ids({1, 2, 0}));
}

TEST(KeyedOrder, AnyInputOrdersAsAStableSort) {
    std::mt19937 random(7);
    for (int round = 0; round < 200; ++round) {
        std::vector<int64_t> keys(random() % 40);
        const int64_t range = 1 + static_cast<int64_t>(random() % 10);
        for (auto& k : keys) k = static_cast<int64_t>(random() % static_cast<uint32_t>(range));
        if (round % 3 == 0) std::sort(keys.begin(), keys.end());
        if (round % 3 == 1) std::sort(keys.rbegin(), keys.rend());
        for (bool descending : {false, true}) EXPECT_EQ(order(keys, descending), reference(keys, descending)) << round;
    }
}

} // namespace
} // namespace ls
