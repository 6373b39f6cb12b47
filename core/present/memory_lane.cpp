#include "core/present/memory_lane.h"

#include <algorithm>
#include <cmath>

namespace ls {

int64_t memoryEventAt(const Trace& t, const TimelineLane& lane, double timeNs) {
    const auto& time = t.memory.time;
    const auto it = std::upper_bound(lane.events.begin(), lane.events.end(), timeNs,
                                     [&](double x, uint32_t id) { return x < double(time[id]); });
    return it - lane.events.begin() - 1;
}

std::vector<MemoryLaneColumn> memoryLaneColumns(const Trace& t, const TimelineLane& lane,
                                                const TimeWindow& w) {
    std::vector<MemoryLaneColumn> out;
    const auto& m = t.memory;
    if (lane.events.empty() || w.widthPx <= 0) return out;
    auto reservedMax = [](uint64_t a, uint64_t b) {
        return a == kNoMemoryTotal ? b : b == kNoMemoryTotal ? a : std::max(a, b);
    };
    // The event in force at the window's left edge, then every event inside it.
    int64_t i = std::max<int64_t>(0, memoryEventAt(t, lane, w.startNs));
    const auto n = static_cast<int64_t>(lane.events.size());
    int firstX = static_cast<int>(std::floor(w.toX(double(m.time[lane.events[size_t(i)]]))));
    firstX = std::clamp(firstX, 0, w.widthPx);
    for (int x = firstX; x < w.widthPx; ++x) {
        const double columnStart = w.toTime(x), columnEnd = w.toTime(x + 1);
        while (i + 1 < n && double(m.time[lane.events[size_t(i + 1)]]) <= columnStart) ++i;
        const uint32_t held = lane.events[size_t(i)]; // in force as the column starts
        MemoryLaneColumn c{x, m.allocated[held], m.reserved[held]};
        while (i + 1 < n && double(m.time[lane.events[size_t(i + 1)]]) < columnEnd) {
            ++i;
            const uint32_t id = lane.events[size_t(i)];
            c.allocated = std::max(c.allocated, m.allocated[id]);
            c.reserved = reservedMax(c.reserved, m.reserved[id]);
        }
        out.push_back(c);
        // Up to the column of the next event nothing changes: those columns are copies. The
        // column is found with toTime, as above, so that rounding cannot move an event.
        const uint32_t now = lane.events[size_t(i)];
        int nextX = w.widthPx;
        if (i + 1 < n) {
            const double next = double(m.time[lane.events[size_t(i + 1)]]);
            nextX = std::clamp(static_cast<int>(std::floor(w.toX(next))), x + 1, w.widthPx);
            while (nextX > x + 1 && w.toTime(nextX) > next) --nextX;
            while (nextX < w.widthPx && w.toTime(nextX + 1) <= next) ++nextX;
        }
        for (int y = x + 1; y < nextX; ++y) out.push_back({y, m.allocated[now], m.reserved[now]});
        x = nextX - 1;
    }
    return out;
}

MemoryLaneScale memoryLaneScale(const Trace& t, const TimelineLane& lane) {
    MemoryLaneScale s;
    for (uint32_t id : lane.events) {
        s.allocated = std::max(s.allocated, t.memory.allocated[id]);
        if (t.memory.reserved[id] != kNoMemoryTotal)
            s.reserved = std::max(s.reserved, t.memory.reserved[id]);
    }
    return s;
}

} // namespace ls
