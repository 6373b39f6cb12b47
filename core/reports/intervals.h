#pragma once
// Interval arithmetic over time: the union of possibly overlapping intervals (a kernel on two
// streams overlapping another counts once) and the length of the intersection of two unions.
#include "core/model/trace.h"

#include <algorithm>
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

// The length of the union of intervals handed over in order of their starts, kept as they come
// (the merged stretch open now, and the length of those closed before it): no interval is held.
// Empty intervals count for nothing, as in unionOf.
class UnionLength {
  public:
    void add(TimeNs start, TimeNs end) {
        if (end <= start) return;
        if (open_ && start <= end_) {
            end_ = std::max(end_, end);
            return;
        }
        if (open_) closed_ += end_ - start_;
        start_ = start;
        end_ = end;
        open_ = true;
    }
    TimeNs length() const { return closed_ + (open_ ? end_ - start_ : 0); }

  private:
    TimeNs start_ = 0, end_ = 0, closed_ = 0;
    bool open_ = false;
};

// The length of the union of several lists, each sorted by start: merged as they are read, where
// unionOf over their concatenation would sort it.
TimeNs unionLengthOfSorted(const std::vector<const std::vector<Interval>*>& lists);

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
