#pragma once
// What the timeline draws from, built once per trace on the loader thread: the lanes, each
// kernel's class and lane, each API call's lane, and GPU busy time for the minimap.
#include "core/costs/kernel_class.h"
#include "core/present/kernel_labels.h"
#include "core/present/memory_lane.h"
#include "core/views/timeline_tracks.h"

#include <memory>
#include <vector>

namespace ls {

struct TimelineData {
    std::shared_ptr<const Trace> trace;
    TimelineTracks tracks;
    std::vector<KernelClass> kernelClass;
    std::vector<uint32_t> kernelLane, apiLane;        // lane of each kernel / API call
    std::vector<float> busy;                          // GPU busy fraction per minimap bucket
    std::shared_ptr<const KernelLabels> kernelLabels; // the bars' names, told apart
    // Per lane, a Memory lane's vertical scale (zero for the other kinds): computed once here,
    // not on every paint, since it is a pass over all of the lane's events.
    std::vector<MemoryLaneScale> memoryScale;
};
// Runs on the loader thread.
std::shared_ptr<const TimelineData> buildTimelineData(std::shared_ptr<const Trace> trace);
// The same over the trace's lanes built before (the view cache's, core/prepared/view_file.h).
std::shared_ptr<const TimelineData> buildTimelineData(std::shared_ptr<const Trace> trace,
                                                      TimelineTracks tracks);

} // namespace ls
