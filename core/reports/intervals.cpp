#include "core/reports/intervals.h"

#include <algorithm>
#include <array>
#include <bit>

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

TimeNs unionLengthOfSorted(const std::vector<const std::vector<Interval>*>& lists) {
    UnionLength u;
    std::vector<size_t> next(lists.size(), 0);
    for (;;) {
        size_t from = lists.size();
        for (size_t k = 0; k < lists.size(); ++k)
            if (next[k] < lists[k]->size() &&
                (from == lists.size() ||
                 (*lists[k])[next[k]].start < (*lists[from])[next[from]].start))
                from = k;
        if (from == lists.size()) return u.length();
        const Interval& i = (*lists[from])[next[from]++];
        u.add(i.start, i.end);
    }
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

std::vector<Interval> coarsened(std::vector<Interval> disjoint, size_t maxCount) {
    if (disjoint.size() <= maxCount || disjoint.empty()) return disjoint;
    if (maxCount == 0) return {};
    // Closing the (n - maxCount) shortest of the n - 1 gaps leaves maxCount intervals: close every
    // gap no longer than the (n - maxCount)th shortest, and of those equal to it only as many as
    // are still needed, earliest first, so the count is exact.
    std::vector<TimeNs> gaps;
    gaps.reserve(disjoint.size() - 1);
    for (size_t i = 1; i < disjoint.size(); ++i)
        gaps.push_back(disjoint[i].start - disjoint[i - 1].end);
    const size_t toClose = disjoint.size() - maxCount;
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(toClose - 1),
                     gaps.end());
    const TimeNs limit = gaps[toClose - 1];
    size_t shorter = 0;
    for (size_t i = 1; i < disjoint.size(); ++i)
        shorter += disjoint[i].start - disjoint[i - 1].end < limit;
    size_t equalToClose = toClose - shorter;
    size_t kept = 0;
    for (size_t i = 0; i < disjoint.size(); ++i) {
        bool close = false;
        if (kept) {
            const TimeNs gap = disjoint[i].start - disjoint[kept - 1].end;
            close = gap < limit || (gap == limit && equalToClose > 0);
            if (close && gap == limit) --equalToClose;
        }
        if (close)
            disjoint[kept - 1].end = disjoint[i].end;
        else
            disjoint[kept++] = disjoint[i];
    }
    disjoint.resize(kept);
    disjoint.shrink_to_fit();
    return disjoint;
}

IntervalLevels intervalLevels(std::vector<Interval> disjoint) {
    // The thresholds are powers of two, so the gaps at least as long as each are counted from one
    // histogram of the gaps' bit widths; only the levels kept are built (most thresholds are not).
    std::array<size_t, 65> longer{}; // longer[b]: gaps of at least 2^(b-1) ns, i.e. bit width >= b
    for (size_t i = 1; i < disjoint.size(); ++i) {
        const TimeNs gap = disjoint[i].start - disjoint[i - 1].end;
        ++longer[gap > 0 ? static_cast<size_t>(std::bit_width(static_cast<uint64_t>(gap))) : 0];
    }
    for (size_t b = longer.size() - 1; b-- > 0;) longer[b] += longer[b + 1];
    IntervalLevels out;
    out.minGap.push_back(0);
    out.levels.push_back(std::move(disjoint));
    // Thresholds from 256 ns doubling: a gap shorter than the first is never a pixel of its own
    // unless the view is zoomed to a few hundred ns, where level 0 is drawn anyway.
    int width = 9; // the bit width of 256
    for (TimeNs gap = 256; out.levels.back().size() > 16 && gap < (TimeNs(1) << 50);
         gap *= 2, ++width) {
        const size_t open = longer[static_cast<size_t>(width)]; // gaps >= gap stay open
        const std::vector<Interval>& last = out.levels.back();
        if ((open + 1) * 4 > last.size() * 3) continue; // too little gained: not kept
        std::vector<Interval> merged;
        merged.reserve(open + 1);
        for (const Interval& i : last) {
            if (!merged.empty() && i.start - merged.back().end < gap)
                merged.back().end = i.end;
            else
                merged.push_back(i);
        }
        out.minGap.push_back(gap);
        out.levels.push_back(std::move(merged));
    }
    return out;
}

const std::vector<Interval>& IntervalLevels::forPixel(double nsPerPixel) const {
    size_t k = 0;
    while (k + 1 < levels.size() && static_cast<double>(minGap[k + 1]) <= nsPerPixel) ++k;
    return levels[k];
}

} // namespace ls
