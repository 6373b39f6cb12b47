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
    uint32_t size; // of the whole string
    bool operator<(const Keyed& o) const { return high != o.high ? high < o.high : low < o.low; }
    bool tied(const Keyed& o) const { return high == o.high && low == o.low; }
};

inline Keyed keyAt(std::string_view s, size_t depth, uint32_t index) {
    auto word = [&](size_t from) {
        uint64_t k = 0;
        for (size_t i = from; i < from + 8; ++i) k = k << 8 | (i < s.size() ? static_cast<uint8_t>(s[i]) : 0u);
        return k;
    };
    return {word(depth), word(depth + 8), index, static_cast<uint32_t>(std::min<size_t>(s.size(), UINT32_MAX))};
}

template <typename Text> void sortFrom(Keyed* a, uint8_t* same, size_t n, size_t depth, const Text& text);

// Orders a[0, n), tied on their keys at `depth`: strings ending within these bytes first (a
// prefix of the longer ones, and equal to those of its size), then the longer ones on their next
// bytes. same[i] = 1 where a[i]'s string equals a[i - 1]'s (same[0] is left to the caller).
template <typename Text> void breakTie(Keyed* a, uint8_t* same, size_t n, size_t depth, const Text& text) {
    Keyed* longer = std::partition(a, a + n, [&](const Keyed& x) { return x.size <= depth + kChunk; });
    std::sort(a, longer, [](const Keyed& x, const Keyed& y) { return x.size < y.size; });
    for (Keyed* x = a + 1; x < longer; ++x) same[x - a] = x->size == x[-1].size;
    for (Keyed* x = longer; x < a + n; ++x) *x = keyAt(text(x->index), depth + kChunk, x->index);
    if (longer > a && longer < a + n) same[longer - a] = 0;
    if (a + n - longer > 1) sortFrom(longer, same + (longer - a), static_cast<size_t>(a + n - longer), depth + kChunk, text);
}

// Sorts a[0, n) whose strings agree on their first `depth` bytes and are keyed at `depth`.
template <typename Text> void sortFrom(Keyed* a, uint8_t* same, size_t n, size_t depth, const Text& text) {
    std::sort(a, a + n);
    for (size_t b = 0; b < n;) {
        size_t e = b + 1;
        while (e < n && a[e].tied(a[b])) ++e;
        if (e - b > 1) breakTie(a + b, same + b, e - b, depth, text);
        b = e;
    }
}

} // namespace text_sort_detail

// Reorders `order` so that text(order[i]) ascends; equal texts end up adjacent in any order.
// Returns, per position, 1 where the text equals the one before it.
template <typename Text> std::vector<uint8_t> sortByText(std::vector<uint32_t>& order, const Text& text, unsigned threads) {
    using text_sort_detail::Keyed;
    std::vector<Keyed> keyed(order.size());
    parallelFor(order.size(), threads, [&](size_t from, size_t to, unsigned) {
        for (size_t i = from; i < to; ++i) keyed[i] = text_sort_detail::keyAt(text(order[i]), 0, order[i]);
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
    std::sort(ties.begin(), ties.end(), [](auto x, auto y) { return x.second - x.first > y.second - y.first; });
    std::vector<std::function<void()>> runs;
    std::vector<uint8_t> same(keyed.size()); // runs of one element differ from both neighbours
    for (auto [b, e] : ties) runs.emplace_back([&, b, e] { text_sort_detail::breakTie(keyed.data() + b, same.data() + b, e - b, 0, text); });
    runTasks(runs, threads);
    for (auto [b, e] : ties) same[b] = 0; // a run starts where the first bytes change
    for (size_t i = 0; i < keyed.size(); ++i) order[i] = keyed[i].index;
    return same;
}

} // namespace ls
