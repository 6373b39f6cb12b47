#pragma once
// The timeline's rows and what the painter asks of them, without Qt: per process and thread the
// NVTX ranges and the CUDA API calls, per device and stream the kernels, memcpys and memsets, per
// device its GPU memory.
// Each lane holds events sorted by start that never overlap (greedy lane assignment), so both
// ends are monotonic and two binary searches find the events of a time window. Folding turns
// the events of a window into at most about one bar per pixel, whatever their number.
#include "core/model/trace.h"

#include <string>
#include <vector>

namespace ls {

// Memory: a device's GPU memory events (Trace::memory), instants whose totals hold until the next
// (core/present/memory_lane.h draws them as a step chart).
enum class TimelineEventKind : uint8_t { Range, ApiCall, Kernel, Memcpy, Memset, Memory };

struct TimelineGroup {
    std::string
        label; // "python3 · pid 654 · tid 683 (pt_autograd_0)", "GPU 0 · NVIDIA H200 · stream 7"
    bool gpu = false;
    ProcessId process;
    ThreadId thread; // CPU groups
    StreamId stream; // GPU groups
};

struct TimelineLane {
    uint32_t group = 0;
    TimelineEventKind kind = TimelineEventKind::Kernel;
    uint32_t level = 0;      // 0 for the first lane of its kind in the group (NVTX: nesting level)
    Column<uint32_t> events; // ids into the kind's columns, by start, non-overlapping (a column:
                             // the view cache maps it)
};

struct TimelineTracks {
    std::vector<TimelineGroup> groups;
    std::vector<TimelineLane> lanes; // grouped: a group's lanes are contiguous, CPU groups first
    TimeNs start = 0, end = 0;       // capture span
};

TimelineTracks buildTimelineTracks(const Trace& t);

TimeNs eventStart(const Trace& t, TimelineEventKind kind, uint32_t id);
TimeNs eventEnd(const Trace& t, TimelineEventKind kind, uint32_t id);

// The mapping between time and pixels of a view: x = (t - startNs) / nsPerPixel.
struct TimeWindow {
    double startNs = 0;
    double nsPerPixel = 1;
    int widthPx = 0;
    double endNs() const { return startNs + nsPerPixel * widthPx; }
    double toX(double t) const { return (t - startNs) / nsPerPixel; }
    double toTime(double x) const { return startNs + x * nsPerPixel; }
};
// The window showing [from, to] in width pixels.
TimeWindow fitWindow(double from, double to, int widthPx);
// Zoom by factor (< 1 zooms in) keeping the time under pixel x fixed.
TimeWindow zoomAt(const TimeWindow& w, double x, double factor);

// A drawn bar: one event (count 1) or `count` consecutive events of the lane folded into one bar
// because each is narrower than a pixel. first indexes lane.events.
struct TimelineBar {
    double x0 = 0, x1 = 0;
    uint32_t first = 0, count = 0;
};

// Appends the bars of the lane's events that intersect the window. Every event in the window is
// in exactly one bar; bars are at least one pixel wide.
void foldLane(const Trace& t, const TimelineLane& lane, const TimeWindow& w,
              std::vector<TimelineBar>& out);
// Index into lane.events of the event under time t (within tolerance ns), or -1.
int64_t eventAt(const Trace& t, const TimelineLane& lane, double timeNs, double toleranceNs);
// The lane events intersecting [from, to): indexes [first, last) into lane.events.
std::pair<size_t, size_t> eventRange(const Trace& t, const TimelineLane& lane, double from,
                                     double to);
size_t eventsInWindow(const Trace& t, const TimelineLane& lane, double from, double to);

} // namespace ls
