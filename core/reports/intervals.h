#pragma once
// Interval arithmetic over time: the union of possibly overlapping intervals (a kernel on two
// streams overlapping another counts once) and the length of the intersection of two unions.
#include "core/model/trace.h"

#include <vector>

namespace ls {

struct Interval {
    TimeNs start = 0, end = 0;
    auto operator<=>(const Interval&) const =
        default; // NOLINT(modernize-use-nullptr): clang-tidy 14 misreads defaulted <=>
};

// Sorted, disjoint, non-touching intervals covering the same time as `intervals` (empty ones
// dropped).
std::vector<Interval> unionOf(std::vector<Interval> intervals);

// Total length of a union (disjoint intervals).
TimeNs lengthOf(const std::vector<Interval>& disjoint);

// Length of the time covered by both unions (each sorted and disjoint, as unionOf returns).
TimeNs intersectionLength(const std::vector<Interval>& a, const std::vector<Interval>& b);

// A union of at most maxCount intervals drawn from `disjoint` (sorted, disjoint): the shortest gaps
// are closed until that many remain, so what a lane draws at a pixel per gap is kept and only
// gaps too short to see go. Unchanged when it already has at most maxCount.
std::vector<Interval> coarsened(std::vector<Interval> disjoint, size_t maxCount);

// A union at several resolutions, for drawing: level k has every gap shorter than minGap[k] closed
// (level 0 is the union itself, minGap 0). A view whose pixel is P ns wide draws the level with
// the largest minGap <= P: the same pixels, at most about one interval per pixel to visit. A
// level is kept only when it has at most 3/4 of the intervals of the one before.
struct IntervalLevels {
    std::vector<TimeNs> minGap;
    std::vector<std::vector<Interval>> levels;
    const std::vector<Interval>& forPixel(double nsPerPixel) const;
};
IntervalLevels intervalLevels(std::vector<Interval> disjoint);

} // namespace ls
