#pragma once
// Sorts indexes by the bytes of their strings (std::string_view's order) 16 bytes at a time:
// each pass sorts integer keys, and only strings still tied go on to the next 16 bytes. A
// comparison sort of millions of texts sharing long prefixes ("aten::addmm, seq = ") would
// compare those prefixes byte by byte again and again, with a cache miss per string each time.
#include "core/model/parallel.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace ls {
namespace text_sort_detail {

inline constexpr size_t kChunk = 16;

struct Keyed {
    uint64_t high, low; // bytes [depth, depth + 16) big-endian, zero past the end
    uint32_t index;
    uint32_t size; // of the whole string, or any size past the bytes keyed
    bool operator<(const Keyed& o) const { return high != o.high ? high < o.high : low < o.low; }
    bool tied(const Keyed& o) const { return high == o.high && low == o.low; }
};

// The key of `bytes` (up to 16 of a string's bytes from some depth on; fewer where it ends)
// for the string of `size` bytes at `index`.
inline Keyed keyOf(std::string_view bytes, uint32_t index, size_t size) {
    auto word = [&](size_t from) {
        uint64_t k = 0;
        for (size_t i = from; i < from + 8; ++i)
            k = k << 8 | (i < bytes.size() ? static_cast<uint8_t>(bytes[i]) : 0u);
        return k;
    };
    return {word(0), word(8), index, static_cast<uint32_t>(std::min<size_t>(size, UINT32_MAX))};
}

inline Keyed keyAt(std::string_view s, size_t depth, uint32_t index) {
    return keyOf(s.substr(std::min(depth, s.size()), kChunk), index, s.size());
}

template <typename Key>
void sortFrom(Keyed* a, uint8_t* same, size_t n, size_t depth, const Key& key);

// Orders a[0, n), tied on their keys at `depth`: strings ending within these bytes first (a
// prefix of the longer ones, and equal to those of its size), then the longer ones on their next
// bytes. same[i] = 1 where a[i]'s string equals a[i - 1]'s (same[0] is left to the caller).
template <typename Key>
void breakTie(Keyed* a, uint8_t* same, size_t n, size_t depth, const Key& key) {
    Keyed* longer =
        std::partition(a, a + n, [&](const Keyed& x) { return x.size <= depth + kChunk; });
    std::sort(a, longer, [](const Keyed& x, const Keyed& y) { return x.size < y.size; });
    for (Keyed* x = a + 1; x < longer; ++x) same[x - a] = x->size == x[-1].size;
    // Keyed in index order: the strings' bytes are then read in the order they lie in memory.
    if (a + n - longer > 64)
        std::sort(longer, a + n, [](const Keyed& x, const Keyed& y) { return x.index < y.index; });
    for (Keyed* x = longer; x < a + n; ++x) *x = key(x->index, depth + kChunk);
    if (longer > a && longer < a + n) same[longer - a] = 0;
    if (a + n - longer > 1)
        sortFrom(longer, same + (longer - a), static_cast<size_t>(a + n - longer), depth + kChunk,
                 key);
}

// Sorts a[0, n) whose strings agree on their first `depth` bytes and are keyed at `depth`.
template <typename Key>
void sortFrom(Keyed* a, uint8_t* same, size_t n, size_t depth, const Key& key) {
    std::sort(a, a + n);
    for (size_t b = 0; b < n;) {
        size_t e = b + 1;
        while (e < n && a[e].tied(a[b])) ++e;
        if (e - b > 1) breakTie(a + b, same + b, e - b, depth, key);
        b = e;
    }
}

// Sorts order by the strings key(index, depth) tells (keyOf their bytes from `depth` on).
template <typename Key>
std::vector<uint8_t> sortByKeys(std::vector<uint32_t>& order, const Key& key, unsigned threads) {
    std::vector<Keyed> keyed(order.size());
    parallelFor(order.size(), threads, [&](size_t from, size_t to, unsigned) {
        for (size_t i = from; i < to; ++i) keyed[i] = key(order[i], 0);
    });
    parallelSort(keyed.begin(), keyed.end(), threads, std::less<>());
    // Runs tied on their first bytes are independent: split them over the threads, the longest
    // first.
    std::vector<std::pair<size_t, size_t>> ties;
    for (size_t b = 0; b < keyed.size();) {
        size_t e = b + 1;
        while (e < keyed.size() && keyed[e].tied(keyed[b])) ++e;
        if (e - b > 1) ties.emplace_back(b, e);
        b = e;
    }
    std::sort(ties.begin(), ties.end(),
              [](auto x, auto y) { return x.second - x.first > y.second - y.first; });
    std::vector<std::function<void()>> runs;
    std::vector<uint8_t> same(keyed.size()); // runs of one element differ from both neighbours
    for (auto [b, e] : ties)
        runs.emplace_back(
            [&, b, e] { breakTie(keyed.data() + b, same.data() + b, e - b, 0, key); });
    runTasks(runs, threads);
    for (auto [b, e] : ties) same[b] = 0; // a run starts where the first bytes change
    for (size_t i = 0; i < keyed.size(); ++i) order[i] = keyed[i].index;
    return same;
}

} // namespace text_sort_detail

// The bytes a sort step looks at: sortBySlices asks for this many at a time.
inline constexpr size_t kTextSortSlice = text_sort_detail::kChunk;

// sortByText for strings that can give kTextSortSlice bytes from any offset without being made
// whole: slice(index, from, out) copies up to that many bytes of the string from byte `from` on
// into out and returns {bytes copied, the string's size}: its whole size where it ends within
// from + kTextSortSlice bytes, else any size past that (the sort asks no more of it).
template <typename Slice>
std::vector<uint8_t> sortBySlices(std::vector<uint32_t>& order, const Slice& slice,
                                  unsigned threads) {
    return text_sort_detail::sortByKeys(
        order,
        [&](uint32_t i, size_t depth) {
            char bytes[kTextSortSlice];
            const auto [got, size] = slice(i, depth, bytes);
            return text_sort_detail::keyOf(std::string_view(bytes, got), i, size);
        },
        threads);
}

// Reorders `order` so that text(order[i]) ascends; equal texts end up adjacent in any order.
// Returns, per position, 1 where the text equals the one before it.
template <typename Text>
std::vector<uint8_t> sortByText(std::vector<uint32_t>& order, const Text& text, unsigned threads) {
    return text_sort_detail::sortByKeys(
        order, [&](uint32_t i, size_t depth) { return text_sort_detail::keyAt(text(i), depth, i); },
        threads);
}

} // namespace ls
