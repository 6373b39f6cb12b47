// orderKeyedRows, which the kernel table's sorts end in: rows already in the asked order or in
// its strict reverse skip the sort, and every input orders as a stable sort would (ties keep
// their order, unknown rows last).
#include "core/model/trace.h"
#include "core/views/kernel_table.h"
#include "core/views/radix_order.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <gtest/gtest.h>
#include <random>

namespace ls {
namespace {

std::vector<KernelId> order(const std::vector<int64_t>& keys, bool descending,
                            std::vector<KernelId> unknown = {}) {
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
        for (bool descending : {false, true})
            EXPECT_EQ(order(keys, descending), reference(keys, descending)) << round;
    }
}

// A million rows take the radix sort: it must order as the stable comparison sort does, for
// integer keys (negative ones too) and real ones (negatives, -0 and +0 equal, ties).
TEST(KeyedOrder, ManyRowsOrderAsAStableSortByIntegerAndRealKeys) {
    std::mt19937_64 random(11);
    const size_t n = 200000;
    for (bool byInteger : {true, false})
        for (bool descending : {false, true}) {
            std::vector<KeyedRow> known(n);
            for (uint32_t r = 0; r < n; ++r) {
                const int64_t v =
                    static_cast<int64_t>(random() % 5000) - 2500; // many ties, both signs
                known[r] =
                    KeyedRow{r % 97 == 0 ? (r % 2 ? -0.0 : 0.0) : static_cast<double>(v) * 1.25e-3,
                             v * 1000003, KernelId(r)};
            }
            std::vector<KeyedRow> expected = known;
            std::stable_sort(
                expected.begin(), expected.end(), [&](const KeyedRow& a, const KeyedRow& b) {
                    if (byInteger)
                        return descending ? a.integer > b.integer : a.integer < b.integer;
                    return descending ? a.real > b.real : a.real < b.real;
                });
            std::vector<KernelId> rows(n + 1);
            orderKeyedRows(rows, known, ids({7}), byInteger, descending);
            ASSERT_EQ(rows.size(), n + 1);
            for (size_t i = 0; i < n; ++i)
                ASSERT_EQ(rows[i], expected[i].row)
                    << i << (byInteger ? " integer" : " real") << (descending ? " descending" : "");
            EXPECT_EQ(rows[n], KernelId(7));
        }
}

TEST(KeyedOrder, OrderedKeysOrderAsTheirValues) {
    const std::vector<double> reals = {-1e300, -2.5, -1e-300, -0.0, 0.0, 1e-300, 3.0, 1e300};
    for (size_t i = 0; i + 1 < reals.size(); ++i)
        EXPECT_LE(orderedKey(reals[i]), orderedKey(reals[i + 1])) << i;
    EXPECT_EQ(orderedKey(-0.0), orderedKey(0.0));
    EXPECT_LT(orderedKey(-2.5), orderedKey(-1e-300));
    const std::vector<int64_t> ints = {INT64_MIN, -5, -1, 0, 1, INT64_MAX};
    for (size_t i = 0; i + 1 < ints.size(); ++i)
        EXPECT_LT(orderedKey(ints[i]), orderedKey(ints[i + 1])) << i;
    EXPECT_GT(descendingKey(orderedKey(int64_t(-5))), descendingKey(orderedKey(int64_t(1))));
}

// kernelsInTimeOrder (what the app sorts while the load prices the kernels) orders every time
// column both ways as a stable sort by the column's value does: below and above the size where
// it sorts radix items straight from the columns, on kernels by start whose starts and ends
// are in order (the sorted and strictly reversed shortcuts) and whose durations tie often.
TEST(KernelsInTimeOrder, EveryTimeColumnBothWaysIsAStableSortByIt) {
    for (const uint32_t n : {1000u, 40000u}) {
        Trace t;
        std::mt19937 random(11);
        TimeNs at = 1'700'000'000'000'000'000; // epoch timestamps: past 2^53
        for (uint32_t k = 0; k < n; ++k) {
            at += 1 + random() % 500;
            const TimeNs duration = 1000 + random() % 40; // ties every few kernels
            t.kernels.start.push_back(at);
            t.kernels.end.push_back(at + duration);
            at += duration;
        }
        for (const KernelField f : {KernelField::Start, KernelField::End, KernelField::Duration})
            for (const bool descending : {false, true}) {
                std::vector<int64_t> keys;
                for (uint32_t k = 0; k < n; ++k)
                    keys.push_back(f == KernelField::Start ? t.kernels.start[k]
                                   : f == KernelField::End ? t.kernels.end[k]
                                                           : t.kernels.duration(k));
                EXPECT_EQ(kernelsInTimeOrder(t, f, descending), reference(keys, descending))
                    << n << " kernels, field " << static_cast<int>(f)
                    << (descending ? " descending" : " ascending");
            }
    }
}

} // namespace
} // namespace ls

namespace {

// radixSortStable on its own, whatever a caller hands it: empty (it read the first item of an
// empty list), one item, few (a comparison sort) and many (the counting passes), each as a
// stable sort by key; random keys with ties, keys already in order (with ties), keys descending
// with ties (not to be reversed: ties keep their order) and strictly descending (reversed).
TEST(RadixSort, EveryLengthSortsAsAStableSortByKey) {
    std::mt19937_64 random(3);
    for (size_t n :
         {size_t(0), size_t(1), size_t(2), size_t(100), size_t(4095), size_t(4096), size_t(70000)})
        for (int shape = 0; shape < 4; ++shape) {
            std::vector<ls::RadixItem> items(n);
            for (uint32_t i = 0; i < n; ++i) {
                const uint64_t key = shape == 0   ? random() % 300
                                     : shape == 1 ? i / 3
                                     : shape == 2 ? (n - i) / 3
                                                  : n - i;
                items[i] = {key, i};
            }
            std::vector<ls::RadixItem> expected = items;
            std::stable_sort(
                expected.begin(), expected.end(),
                [](const ls::RadixItem& a, const ls::RadixItem& b) { return a.key < b.key; });
            ls::radixSortStable(items);
            ASSERT_EQ(items.size(), n);
            for (size_t i = 0; i < n; ++i) {
                ASSERT_EQ(items[i].key, expected[i].key)
                    << n << " items of shape " << shape << ", at " << i;
                ASSERT_EQ(items[i].value, expected[i].value)
                    << n << " items of shape " << shape << ", at " << i;
            }
        }
}

} // namespace
