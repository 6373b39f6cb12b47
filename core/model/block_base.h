#pragma once
// The base of a block of values kept as distances above it (the narrow columns' blocks of 64
// rows): the one that puts the most of the values within `reach` (value - base in [0, reach)).
// That is the least value when all are within reach of it (the usual block), else the start of
// the fullest window of the sorted values. The values are sorted in place in that case.
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace ls {

template <typename T> T reachingBase(T* first, T* last, int64_t reach) {
    if (first == last) return T();
    const auto [lo, hi] = std::minmax_element(first, last);
    if (int64_t(*hi) - int64_t(*lo) < reach) return *lo;
    std::sort(first, last);
    const size_t n = static_cast<size_t>(last - first);
    size_t best = 0, most = 0;
    for (size_t a = 0, b = 0; a < n; ++a) {
        while (b < n && int64_t(first[b]) - int64_t(first[a]) < reach) ++b;
        if (b - a > most) most = b - a, best = a;
    }
    return first[best];
}

} // namespace ls
