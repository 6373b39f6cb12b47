#include "core/present/timeline_data.h"

#include <algorithm>

namespace ls {
namespace {

constexpr size_t kBusyBuckets = 2048;

} // namespace

std::shared_ptr<const TimelineData> buildTimelineData(std::shared_ptr<const Trace> trace) {
    TimelineTracks tracks = buildTimelineTracks(*trace);
    return buildTimelineData(std::move(trace), std::move(tracks));
}

std::shared_ptr<const TimelineData> buildTimelineData(std::shared_ptr<const Trace> trace,
                                                      TimelineTracks tracks) {
    auto d = std::make_shared<TimelineData>();
    const Trace& t = *trace;
    d->tracks = std::move(tracks);
    d->kernelClass = classifyKernels(t);
    d->kernelLabels = std::make_shared<const KernelLabels>(t);
    d->kernelLane.assign(t.kernels.size(), UINT32_MAX);
    d->apiLane.assign(t.apiCalls.size(), UINT32_MAX);
    for (uint32_t l = 0; l < d->tracks.lanes.size(); ++l) {
        const auto& lane = d->tracks.lanes[l];
        if (lane.kind == TimelineEventKind::Kernel)
            for (uint32_t id : lane.events) d->kernelLane[id] = l;
        if (lane.kind == TimelineEventKind::ApiCall)
            for (uint32_t id : lane.events) d->apiLane[id] = l;
    }
    d->memoryScale.assign(d->tracks.lanes.size(), MemoryLaneScale{});
    for (uint32_t l = 0; l < d->tracks.lanes.size(); ++l)
        if (d->tracks.lanes[l].kind == TimelineEventKind::Memory)
            d->memoryScale[l] = memoryLaneScale(t, d->tracks.lanes[l]);
    // GPU busy time per bucket of the capture, summed over streams, as a fraction of one GPU.
    d->busy.assign(kBusyBuckets, 0.f);
    const double span = std::max<double>(1, static_cast<double>(t.captureEnd - t.captureStart));
    const double bucket = span / kBusyBuckets;
    for (size_t k = 0; k < t.kernels.size(); ++k) {
        double s = static_cast<double>(t.kernels.start[k] - t.captureStart),
               e = static_cast<double>(t.kernels.end[k] - t.captureStart);
        while (s < e) {
            const auto b = std::min<size_t>(kBusyBuckets - 1, static_cast<size_t>(s / bucket));
            const double bucketEnd = (static_cast<double>(b) + 1) * bucket;
            const double part = std::min(e, bucketEnd) - s;
            d->busy[b] += static_cast<float>(part / bucket);
            if (b == kBusyBuckets - 1) break;
            s = bucketEnd;
        }
    }
    d->trace = std::move(trace);
    return d;
}

} // namespace ls
