#pragma once
// A stable sort of (key, value) pairs by 64-bit key, least significant 16 bits first: four
// counting passes at most, a pass skipped where every key has the same digit. What the kernel
// table's sorts use for a million rows (a comparison sort of them took about 100 ms).
#include <cstdint>
#include <utility>
#include <vector>

namespace ls {

struct RadixItem {
    uint64_t key;
    uint32_t value;
};

// Sorts items by key, ties in their order; items already in key order or its strict reverse cost
// one pass.
void radixSortStable(std::vector<RadixItem>& items);

// Keys that order as the values do: a signed integer, a finite double (-0 as +0); and
// descendingKey, whose ascending order is the value's descending one.
uint64_t orderedKey(int64_t v);
uint64_t orderedKey(double v);
inline uint64_t descendingKey(uint64_t key) { return ~key; }

} // namespace ls
