// The index GPU operations find their launch call by: per process bucket, calls by correlation
// id. It keeps no ids of its own, so each case checks finds and duplicates against the rows.
#include "core/import/common/correlation_index.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <utility>
#include <vector>

namespace {

using ls::CorrelationIndex;

struct Call {
    uint32_t bucket, id;
    bool backtrace = false;
};

CorrelationIndex indexOf(const std::vector<Call>& calls, size_t buckets) {
    CorrelationIndex index;
    index.build(
        calls.size(), buckets, [&](uint32_t i) { return calls[i].bucket; },
        [&](uint32_t i) { return calls[i].id; }, [&](uint32_t i) { return calls[i].backtrace; });
    return index;
}

uint32_t find(const CorrelationIndex& index, const std::vector<Call>& calls, uint32_t bucket,
              uint32_t id) {
    return index.find(bucket, id, [&](uint32_t i) { return calls[i].id; });
}

// One process, ids rising with the rows (as CUPTI numbers calls): every id found at its row.
TEST(CorrelationIndex, OneProcessInIdOrderFindsEveryCall) {
    std::vector<Call> calls;
    for (uint32_t i = 0; i < 1000; ++i) calls.push_back({0, 10 + 3 * i});
    const auto index = indexOf(calls, 2);
    for (uint32_t i = 0; i < 1000; ++i) ASSERT_EQ(find(index, calls, 0, 10 + 3 * i), i);
    EXPECT_EQ(find(index, calls, 0, 11), CorrelationIndex::kNone);
    EXPECT_EQ(find(index, calls, 1, 10), CorrelationIndex::kNone) << "another process";
    EXPECT_EQ(find(index, calls, 7, 10), CorrelationIndex::kNone) << "no such bucket";
    EXPECT_EQ(index.duplicateCount(), 0u);
}

// Two processes interleaved, ids out of row order: ids are per process, so one id names two
// calls, one in each.
TEST(CorrelationIndex, ProcessesKeepTheirOwnIdsInAnyOrder) {
    std::vector<Call> calls;
    for (uint32_t i = 0; i < 1000; ++i) calls.push_back({i % 2, (i * 7919) % 1000});
    const auto index = indexOf(calls, 3);
    for (uint32_t i = 0; i < 1000; ++i) ASSERT_EQ(find(index, calls, i % 2, calls[i].id), i);
    EXPECT_EQ(index.duplicateCount(), 0u);
}

// Rows sharing a process and an id: the call stays whether its backtrace twin comes before or
// after it, the first of two calls stays, and id 0 (no correlation) is never a duplicate and
// finds its lowest row.
TEST(CorrelationIndex, TwinsAndRepeatsAreDuplicatesButNotIdZero) {
    const std::vector<Call> calls = {
        {0, 5, true},  {0, 5, false},                // twin first: row 1 stays
        {0, 6, false}, {0, 6, true},                 // twin after: row 2 stays
        {0, 7, false}, {0, 7, false}, {0, 7, false}, // the first of three stays
        {0, 0, true},  {0, 0, false}, {1, 0, false}, // id 0: no duplicates
        {1, 5, true},                                // a twin alone stays
    };
    auto index = indexOf(calls, 2);
    EXPECT_EQ(find(index, calls, 0, 5), 1u);
    EXPECT_EQ(find(index, calls, 0, 6), 2u);
    EXPECT_EQ(find(index, calls, 0, 7), 4u);
    EXPECT_EQ(find(index, calls, 0, 0), 7u) << "the lowest row, twin or not";
    EXPECT_EQ(find(index, calls, 1, 0), 9u);
    EXPECT_EQ(find(index, calls, 1, 5), 10u);
    EXPECT_EQ(index.duplicateCount(), 4u);
    const ls::RowFlags dropped = index.takeDuplicates();
    ASSERT_EQ(dropped.size(), calls.size());
    std::vector<size_t> rows;
    for (size_t i = 0; i < calls.size(); ++i)
        if (dropped[i]) rows.push_back(i);
    EXPECT_EQ(rows, (std::vector<size_t>{0, 3, 5, 6}));
}

// GPU work asks in nearly rising id order, each search starting where the last ended: every
// answer equals a search of the whole bucket, whichever way and however far the ids jump, and
// whatever bucket the hint was left in.
TEST(CorrelationIndex, SearchesFromAHintFindWhatWholeSearchesFind) {
    std::vector<Call> calls;
    for (uint32_t i = 0; i < 5000; ++i) calls.push_back({i % 3 == 0 ? 1u : 0u, 2 * i + 1});
    calls.push_back({0, 3, true}); // a twin: the call is still the answer
    const auto index = indexOf(calls, 3);
    const auto idOf = [&](uint32_t i) { return calls[i].id; };
    std::vector<std::pair<uint32_t, uint32_t>> asks;                      // (bucket, id)
    for (uint32_t id = 0; id < 10'010; id += 1) asks.emplace_back(0, id); // rising, odd and even
    for (uint32_t id = 10'010; id-- > 0;) asks.emplace_back(0, id);       // falling
    for (uint32_t k = 0; k < 20'000; ++k) // jumps both ways, buckets mixed
        asks.emplace_back(k % 7 == 0 ? 1u : k % 11 == 0 ? 2u : 0u, (k * 7919u) % 10'020u);
    asks.emplace_back(5, 1); // no such bucket
    size_t hint = SIZE_MAX;
    size_t found = 0;
    for (const auto& [bucket, id] : asks) {
        const uint32_t whole = index.find(bucket, id, idOf);
        ASSERT_EQ(index.find(bucket, id, idOf, hint), whole) << bucket << " " << id;
        found += whole != CorrelationIndex::kNone;
    }
    EXPECT_GT(found, 10'000u); // the asks hit calls, not only gaps
    EXPECT_EQ(index.find(0, 3, idOf), 1u) << "the call, not its twin";
}

} // namespace
