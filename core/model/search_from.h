#pragma once
// A binary search that starts where the caller's last one ended. Passes over rows in time order
// (kernels by start, looking up their launch calls and the ranges around them) ask for nearly
// rising values: steps doubling away from the last answer reach the next one in a few reads,
// where a search of the whole column reads ~20 rows scattered over megabytes.
#include <algorithm>
#include <cstddef>
#include <iterator>

namespace ls {

// std::partition_point(first, last, pred), searched outward from `hint` (any position; one
// outside [first, last) searches the whole range). pred must hold for a prefix of the range.
template <typename It, typename Pred> It partitionPointFrom(It first, It last, It hint, Pred pred) {
    if (hint < first || hint >= last) return std::partition_point(first, last, pred);
    using Step = typename std::iterator_traits<It>::difference_type;
    It at = hint, lo = first, hi = last;
    Step step = 1;
    if (pred(*at)) { // the answer is after `at`
        while (last - at > step && pred(*(at + step))) {
            at += step;
            step *= 2;
        }
        lo = at + 1;
        hi = last - at > step ? at + step : last;
    } else { // the answer is `at` or before it
        while (at - first >= step && !pred(*(at - step))) {
            at -= step;
            step *= 2;
        }
        lo = at - first >= step ? at - step + 1 : first;
        hi = at;
    }
    return std::partition_point(lo, hi, pred);
}

} // namespace ls
