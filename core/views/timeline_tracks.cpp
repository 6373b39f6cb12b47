#include "core/views/timeline_tracks.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace ls {
namespace {

// Splits events (by start) into the fewest lanes a greedy pass gives: each event goes to the
// first lane whose last event ended at or before its start. Nested NVTX ranges land on their
// nesting level; overlapping start/end ranges and nested API calls get lanes of their own.
// `forEach(f)` calls f(id) for every event in start order, the same order each time. The greedy
// pass counts each lane's events and notes each event's lane (a byte: a stack of 255 levels is
// deeper than any trace's), so the lanes are filled at exactly their size (growing them instead
// copied and faulted in about twice the memory of millions of ranges) without choosing again.
template <typename ForEach, typename StartOf, typename EndOf>
void addLanes(TimelineTracks& tracks, uint32_t group, TimelineEventKind kind,
              const ForEach& forEach, StartOf startOf, EndOf endOf) {
    std::vector<TimeNs> laneEnd;
    const auto laneOf = [&](uint32_t id) {
        const TimeNs s = startOf(id), e = endOf(id);
        size_t l = 0;
        while (l < laneEnd.size() && laneEnd[l] > s) ++l;
        if (l == laneEnd.size()) laneEnd.push_back(e);
        laneEnd[l] = std::max(laneEnd[l], e);
        return l;
    };
    std::vector<size_t> counts;
    std::vector<uint8_t> laneOfEvent;
    bool noted = true; // every lane fits a byte
    forEach([&](uint32_t id) {
        const size_t l = laneOf(id);
        if (l == counts.size()) counts.push_back(0);
        ++counts[l];
        noted = noted && l <= 0xFF;
        if (noted) laneOfEvent.push_back(static_cast<uint8_t>(l));
    });
    if (counts.empty()) return;
    std::vector<Column<uint32_t>> lanes(counts.size());
    for (size_t l = 0; l < lanes.size(); ++l) lanes[l].reserve(counts[l]);
    if (noted) {
        size_t i = 0;
        forEach([&](uint32_t id) { lanes[laneOfEvent[i++]].push_back(id); });
    } else { // the choice made again (the same, from the same state)
        laneEnd.clear();
        forEach([&](uint32_t id) { lanes[laneOf(id)].push_back(id); });
    }
    for (size_t l = 0; l < lanes.size(); ++l)
        tracks.lanes.push_back(
            TimelineLane{group, kind, static_cast<uint32_t>(l), std::move(lanes[l])});
}

// forEach over a list of ids.
template <typename Ids> auto eachOf(const Ids& ids) {
    return [&ids](auto&& f) {
        for (const auto id : ids) f(static_cast<uint32_t>(id));
    };
}

std::string threadLabel(const Trace& t, ThreadId th) {
    const Thread& thread = t.threads[th.value];
    const Process& p = t.processes[thread.process.value];
    std::string label = (p.name.empty() ? std::string("process") : p.name) + " · pid " +
                        std::to_string(p.pid) + " · tid " + std::to_string(thread.tid);
    if (!thread.name.empty() && thread.name != p.name) label += " (" + thread.name + ")";
    return label;
}

std::string streamLabel(const Trace& t, StreamId s) {
    const Stream& st = t.streams[s.value];
    std::string label = "GPU " + std::to_string(st.device);
    for (const Device& d : t.devices)
        if (d.id == st.device && !d.name.empty()) label += " · " + d.name;
    label += " · stream " + std::to_string(st.stream);
    if (t.processes.size() > 1)
        label += " · pid " + std::to_string(t.processes[st.process.value].pid);
    return label;
}

template <typename Columns>
std::vector<std::vector<uint32_t>> byStream(const Columns& c, size_t streams) {
    std::vector<std::vector<uint32_t>> out(streams);
    for (uint32_t i = 0; i < c.size(); ++i)
        if (c.streamIndex[i].valid() && c.streamIndex[i].value < streams)
            out[c.streamIndex[i].value].push_back(i);
    return out;
}

} // namespace

namespace {

// One time column of any event kind: plain (GPU work), packed (TimeColumn: starts of calls and
// ranges) or durations (EndColumn: their ends).
struct Times {
    const TimeNs* plain = nullptr;
    const TimeColumn* packed = nullptr;
    const EndColumn* ends = nullptr;
    TimeNs operator[](size_t i) const {
        return plain ? plain[i] : packed ? (*packed)[i] : (*ends)[i];
    }
};

struct Columns {
    Times start, end;
};

Columns columnsOf(const Trace& t, TimelineEventKind kind) {
    auto plain = [](const GpuOpColumns& c) {
        return Columns{{c.start.data(), nullptr}, {c.end.data(), nullptr}};
    };
    switch (kind) {
    case TimelineEventKind::Range:
        return {{nullptr, &t.ranges.start}, {nullptr, nullptr, &t.ranges.end}};
    case TimelineEventKind::ApiCall:
        return {{nullptr, &t.apiCalls.start}, {nullptr, nullptr, &t.apiCalls.end}};
    case TimelineEventKind::Kernel:
        return plain(t.kernels);
    case TimelineEventKind::Memcpy:
        return plain(t.memcpys);
    case TimelineEventKind::Memset:
        return plain(t.memsets);
    case TimelineEventKind::Memory:
        return {{t.memory.time.data(), nullptr}, {t.memory.time.data(), nullptr}};
    }
    return {};
}

} // namespace

TimeNs eventStart(const Trace& t, TimelineEventKind kind, uint32_t id) {
    return columnsOf(t, kind).start[id];
}
TimeNs eventEnd(const Trace& t, TimelineEventKind kind, uint32_t id) {
    return columnsOf(t, kind).end[id];
}

namespace {

// Per device with GPU memory events, a group of one lane after the streams.
void addMemoryLanes(const Trace& t, TimelineTracks& tracks) {
    std::vector<std::pair<uint32_t, Column<uint32_t>>> byDevice; // a few devices: a list
    for (uint32_t i = 0; i < t.memory.size(); ++i) {
        auto it = std::find_if(byDevice.begin(), byDevice.end(),
                               [&](const auto& d) { return d.first == t.memory.device[i]; });
        if (it == byDevice.end()) it = byDevice.insert(byDevice.end(), {t.memory.device[i], {}});
        it->second.push_back(i);
    }
    std::sort(byDevice.begin(), byDevice.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [device, events] : byDevice) {
        std::string label = "GPU " + std::to_string(device) + " memory";
        for (const Device& d : t.devices)
            if (d.id == device && !d.name.empty()) label += " · " + d.name;
        // The process of the first event's thread, for a session to place it under its rank.
        const ThreadId th = t.memory.thread[events.front()];
        const ProcessId process =
            th.valid() && th.value < t.threads.size() ? t.threads[th.value].process : ProcessId();
        const auto group = static_cast<uint32_t>(tracks.groups.size());
        tracks.groups.push_back(TimelineGroup{label, true, process, ThreadId(), StreamId()});
        tracks.lanes.push_back(
            TimelineLane{group, TimelineEventKind::Memory, 0, std::move(events)});
    }
}

} // namespace

TimelineTracks buildTimelineTracks(const Trace& t) {
    TimelineTracks tracks;
    tracks.start = t.captureStart;
    tracks.end = t.captureEnd;
    // CPU: per thread that has ranges or API calls, NVTX lanes then API lanes.
    for (uint32_t th = 0; th < t.threads.size(); ++th) {
        const uint32_t rangesBegin = t.threadRangeBegin[th], rangesEnd = t.threadRangeBegin[th + 1];
        bool anyRange = false;
        for (uint32_t r = rangesBegin; r < rangesEnd && !anyRange; ++r)
            anyRange = t.ranges.kind[r] != RangeKind::Mark;
        const auto [callsBegin, callsEnd] = t.threadApiCalls.of(ThreadId(th));
        if (!anyRange && callsBegin == callsEnd) continue;
        const auto group = static_cast<uint32_t>(tracks.groups.size());
        tracks.groups.push_back(TimelineGroup{threadLabel(t, ThreadId(th)), false,
                                              t.threads[th].process, ThreadId(th), StreamId()});
        const auto eachRange = [&](auto&& f) {
            for (uint32_t r = rangesBegin; r < rangesEnd; ++r)
                if (t.ranges.kind[r] != RangeKind::Mark) f(r);
        };
        addLanes(
            tracks, group, TimelineEventKind::Range, eachRange,
            [&](uint32_t i) { return t.ranges.start[i]; },
            [&](uint32_t i) { return t.ranges.end[i]; });
        const auto eachCall = [&, b = callsBegin, e = callsEnd](auto&& f) {
            for (auto* c = b; c != e; ++c) f(c->value);
        };
        addLanes(
            tracks, group, TimelineEventKind::ApiCall, eachCall,
            [&](uint32_t i) { return t.apiCalls.start[i]; },
            [&](uint32_t i) { return t.apiCalls.end[i]; });
    }
    // GPU: per stream, kernels then memcpy then memset.
    const auto memcpys = byStream(t.memcpys, t.streams.size());
    const auto memsets = byStream(t.memsets, t.streams.size());
    for (uint32_t s = 0; s < t.streams.size(); ++s) {
        const auto [kernelsBegin, kernelsEnd] = t.streamKernels.of(StreamId(s));
        if (kernelsBegin == kernelsEnd && memcpys[s].empty() && memsets[s].empty()) continue;
        const auto group = static_cast<uint32_t>(tracks.groups.size());
        tracks.groups.push_back(TimelineGroup{streamLabel(t, StreamId(s)), true,
                                              t.streams[s].process, ThreadId(), StreamId(s)});
        const auto eachKernel = [&, b = kernelsBegin, e = kernelsEnd](auto&& f) {
            for (auto* k = b; k != e; ++k) f(k->value);
        };
        addLanes(
            tracks, group, TimelineEventKind::Kernel, eachKernel,
            [&](uint32_t i) { return t.kernels.start[i]; },
            [&](uint32_t i) { return t.kernels.end[i]; });
        addLanes(
            tracks, group, TimelineEventKind::Memcpy, eachOf(memcpys[s]),
            [&](uint32_t i) { return t.memcpys.start[i]; },
            [&](uint32_t i) { return t.memcpys.end[i]; });
        addLanes(
            tracks, group, TimelineEventKind::Memset, eachOf(memsets[s]),
            [&](uint32_t i) { return t.memsets.start[i]; },
            [&](uint32_t i) { return t.memsets.end[i]; });
    }
    addMemoryLanes(t, tracks);
    return tracks;
}

TimeWindow fitWindow(double from, double to, int widthPx) {
    TimeWindow w;
    w.widthPx = std::max(1, widthPx);
    w.startNs = from;
    w.nsPerPixel = std::max(1e-3, (to - from) / w.widthPx);
    return w;
}

TimeWindow zoomAt(const TimeWindow& w, double x, double factor) {
    TimeWindow z = w;
    const double anchor = w.toTime(x);
    z.nsPerPixel = std::max(1e-3, w.nsPerPixel * factor); // 1 ps per pixel is deep enough
    z.startNs = anchor - x * z.nsPerPixel;
    return z;
}

namespace {

// First index in [from, n) whose end is after t (ends are monotonic within a lane).
size_t firstEndingAfter(const Trace& t, const TimelineLane& lane, size_t from, double time) {
    const auto it = std::partition_point(
        lane.events.begin() + static_cast<std::ptrdiff_t>(from), lane.events.end(),
        [&](uint32_t id) { return static_cast<double>(eventEnd(t, lane.kind, id)) <= time; });
    return static_cast<size_t>(it - lane.events.begin());
}

// First index in [from, n) whose start is at or after t.
size_t firstStartingAt(const Trace& t, const TimelineLane& lane, size_t from, double time) {
    const auto it = std::partition_point(
        lane.events.begin() + static_cast<std::ptrdiff_t>(from), lane.events.end(),
        [&](uint32_t id) { return static_cast<double>(eventStart(t, lane.kind, id)) < time; });
    return static_cast<size_t>(it - lane.events.begin());
}

} // namespace

namespace {

// First index in (i, n) whose start is at or after time: gallop from i, then bisect. The next
// pixel column usually begins a few events ahead, so this stays near i in memory.
size_t gallopToStart(const uint32_t* ids, size_t i, size_t n, const Times& start, double time) {
    size_t lo = i + 1, step = 1, hi = lo;
    while (hi < n && static_cast<double>(start[ids[hi]]) < time) {
        lo = hi + 1;
        hi = lo + step;
        step *= 2;
    }
    hi = std::min(hi, n);
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (static_cast<double>(start[ids[mid]]) < time)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

} // namespace

void foldLane(const Trace& t, const TimelineLane& lane, const TimeWindow& w,
              std::vector<TimelineBar>& out) {
    const size_t n = lane.events.size();
    const uint32_t* ids = lane.events.data();
    const Columns c = columnsOf(t, lane.kind);
    const double endNs = w.endNs();
    size_t i = firstEndingAfter(t, lane, 0, w.startNs);
    while (i < n) {
        const double s = static_cast<double>(c.start[ids[i]]);
        if (s >= endNs) break;
        const double x0 = w.toX(s), x1 = w.toX(static_cast<double>(c.end[ids[i]]));
        if (x1 - x0 >= 1.0) {
            out.push_back(TimelineBar{x0, x1, static_cast<uint32_t>(i), 1});
            ++i;
            continue;
        }
        // Sub-pixel: take every event starting within this pixel column.
        size_t j = gallopToStart(ids, i, n, c.start, w.toTime(std::floor(x0) + 1.0));
        if (j - 1 > i) {
            const uint32_t last = ids[j - 1];
            if (w.toX(static_cast<double>(c.end[last])) -
                    w.toX(static_cast<double>(c.start[last])) >=
                1.0)
                --j; // a wide event starting in the column is drawn on its own
        }
        const double endX = w.toX(static_cast<double>(c.end[ids[j - 1]]));
        out.push_back(TimelineBar{x0, std::max(endX, x0 + 1.0), static_cast<uint32_t>(i),
                                  static_cast<uint32_t>(j - i)});
        i = j;
    }
}

int64_t eventAt(const Trace& t, const TimelineLane& lane, double timeNs, double toleranceNs) {
    size_t i = firstEndingAfter(t, lane, 0, timeNs - toleranceNs);
    int64_t best = -1;
    double bestDistance = 0;
    for (; i < lane.events.size(); ++i) {
        const uint32_t id = lane.events[i];
        const double s = static_cast<double>(eventStart(t, lane.kind, id)),
                     e = static_cast<double>(eventEnd(t, lane.kind, id));
        if (s > timeNs + toleranceNs) break;
        const double distance = timeNs < s ? s - timeNs : timeNs > e ? timeNs - e : 0;
        if (best < 0 || distance < bestDistance) {
            best = static_cast<int64_t>(i);
            bestDistance = distance;
        }
        if (distance == 0) break;
    }
    return best;
}

std::pair<size_t, size_t> eventRange(const Trace& t, const TimelineLane& lane, double from,
                                     double to) {
    const size_t a = firstEndingAfter(t, lane, 0, from);
    return {a, std::max(a, firstStartingAt(t, lane, a, to))};
}

size_t eventsInWindow(const Trace& t, const TimelineLane& lane, double from, double to) {
    const auto [a, b] = eventRange(t, lane, from, to);
    return b - a;
}

} // namespace ls
