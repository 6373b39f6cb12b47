#include "core/reports/intervals.h"

#include <algorithm>

namespace ls {

std::vector<Interval> unionOf(std::vector<Interval> intervals) {
    std::erase_if(intervals, [](const Interval& i) { return i.end <= i.start; });
    // Only the order of starts matters to the union. GPU operations come sorted by start (the
    // model's row order): a million of them need no sort.
    const auto byStart = [](const Interval& a, const Interval& b) { return a.start < b.start; };
    if (!std::is_sorted(intervals.begin(), intervals.end(), byStart))
        std::sort(intervals.begin(), intervals.end(), byStart);
    // Merged in place: a million intervals need no second vector.
    size_t kept = 0;
    for (const Interval& i : intervals) {
        if (kept && i.start <= intervals[kept - 1].end)
            intervals[kept - 1].end = std::max(intervals[kept - 1].end, i.end);
        else
            intervals[kept++] = i;
    }
    intervals.resize(kept);
    if (kept < intervals.capacity() / 2) intervals.shrink_to_fit(); // kept by callers: no idle half
    return intervals;
}

TimeNs lengthOf(const std::vector<Interval>& disjoint) {
    TimeNs total = 0;
    for (const Interval& i : disjoint) total += i.end - i.start;
    return total;
}

TimeNs intersectionLength(const std::vector<Interval>& a, const std::vector<Interval>& b) {
    TimeNs total = 0;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const TimeNs lo = std::max(a[i].start, b[j].start), hi = std::min(a[i].end, b[j].end);
        if (hi > lo) total += hi - lo;
        // Advance whichever ends first; the other may still overlap the next one.
        if (a[i].end < b[j].end)
            ++i;
        else
            ++j;
    }
    return total;
}

} // namespace ls
