#include "core/views/radix_order.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace ls {

void radixSortStable(std::vector<RadixItem>& items) {
    if (items.size() < 2) return;
    // Items often come in key order or its strict reverse (a column by start, read either way):
    // a check of O(n) instead of a sort. Strictly reversed keys have no ties to keep.
    const auto byKey = [](const RadixItem& a, const RadixItem& b) { return a.key < b.key; };
    if (std::is_sorted(items.begin(), items.end(), byKey)) return;
    if (std::adjacent_find(items.begin(), items.end(), [](const RadixItem& a, const RadixItem& b) {
            return a.key <= b.key;
        }) == items.end()) {
        std::reverse(items.begin(), items.end());
        return;
    }
    if (items.size() < 4096) { // below the 64 K counters' own cost
        std::stable_sort(items.begin(), items.end(),
                         [](const RadixItem& a, const RadixItem& b) { return a.key < b.key; });
        return;
    }
    constexpr int kBits = 16;
    constexpr size_t kBuckets = size_t(1) << kBits;
    std::vector<RadixItem> other(items.size());
    std::vector<uint32_t> count(kBuckets);
    for (int shift = 0; shift < 64; shift += kBits) {
        std::fill(count.begin(), count.end(), 0);
        for (const auto& it : items) ++count[(it.key >> shift) & (kBuckets - 1)];
        if (count[(items.front().key >> shift) & (kBuckets - 1)] == items.size())
            continue; // one digit: nothing moves
        uint32_t sum = 0;
        for (auto& c : count) sum += std::exchange(c, sum);
        for (const auto& it : items) other[count[(it.key >> shift) & (kBuckets - 1)]++] = it;
        items.swap(other);
    }
}

uint64_t orderedKey(int64_t v) { return static_cast<uint64_t>(v) ^ (uint64_t(1) << 63); }

uint64_t orderedKey(double v) {
    if (v == 0) v = 0; // -0 equals +0
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits >> 63 ? ~bits
                      : bits | (uint64_t(1) << 63); // negatives reversed below the positives
}

} // namespace ls
