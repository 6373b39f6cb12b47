#pragma once
// What the timeline's GPU memory lane draws: a device's allocated and reserved totals, a step
// function of time (each event's totals hold until the device's next event), folded to one
// column per pixel that keeps the highest value under it, so a short spike stays visible at any
// zoom.
#include "core/views/timeline_tracks.h"

#include <cstdint>
#include <vector>

namespace ls {

struct MemoryLaneColumn {
    int x = 0;                          // the pixel column, from the window's left edge
    uint64_t allocated = 0;             // the highest allocated total in the column
    uint64_t reserved = kNoMemoryTotal; // the highest reserved total; none where unrecorded
};

// The columns of the window from the lane's first event on (before it nothing is known): lane is
// a Memory lane (its events one device's rows of Trace::memory, by time).
std::vector<MemoryLaneColumn> memoryLaneColumns(const Trace& t, const TimelineLane& lane,
                                                const TimeWindow& w);

// The highest allocated and reserved totals of the lane's events: the lane's vertical scale.
struct MemoryLaneScale {
    uint64_t allocated = 0, reserved = 0;
    uint64_t top() const { return std::max(allocated, reserved); }
};
MemoryLaneScale memoryLaneScale(const Trace& t, const TimelineLane& lane);

// The lane's event in force at time ns (the last at or before it), or -1 before the first:
// an index into lane.events.
int64_t memoryEventAt(const Trace& t, const TimelineLane& lane, double timeNs);

} // namespace ls
