#include "core/reports/gpu_memory.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace ls {

std::vector<DeviceMemoryPeak> memoryPeaks(const Trace& t) {
    const auto& m = t.memory;
    std::map<uint32_t, DeviceMemoryPeak> byDevice;
    for (size_t i = 0; i < m.size(); ++i) {
        auto [it, inserted] = byDevice.try_emplace(m.device[i]);
        DeviceMemoryPeak& p = it->second;
        if (inserted) {
            p.device = m.device[i];
            p.allocatedEvent = i;
            p.allocatedAt = m.time[i];
            p.allocated = m.allocated[i];
        }
        ++p.events;
        if (m.allocated[i] > p.allocated) {
            p.allocated = m.allocated[i];
            p.allocatedAt = m.time[i];
            p.allocatedEvent = i;
        }
        if (m.reserved[i] != kNoMemoryTotal)
            p.reserved =
                p.reserved == kNoMemoryTotal ? m.reserved[i] : std::max(p.reserved, m.reserved[i]);
    }
    std::vector<DeviceMemoryPeak> out;
    for (auto& [device, p] : byDevice) out.push_back(p);
    return out;
}

namespace {

struct Extent {
    TimeNs start, end;
    OpId op;
};

// Each thread's op extents by start, outer before inner (longer first on equal starts).
std::vector<std::vector<Extent>> extentsByThread(const Trace& t) {
    std::vector<std::vector<Extent>> out(t.threads.size());
    for (uint32_t o = 0; o < t.ops.size(); ++o) {
        const RangeId r = t.ops.extent[o];
        if (!r.valid()) continue;
        const ThreadId th = t.rangeThread(r);
        if (!th.valid() || th.value >= out.size()) continue;
        out[th.value].push_back({t.ranges.start[r.value], t.ranges.end[r.value], OpId(o)});
    }
    for (auto& v : out)
        std::sort(v.begin(), v.end(), [](const Extent& a, const Extent& b) {
            return std::tie(a.start, b.end) < std::tie(b.start, a.end);
        });
    return out;
}

} // namespace

std::vector<OpId> opsOfMemoryEvents(const Trace& t) {
    const auto& m = t.memory;
    std::vector<OpId> out(m.size());
    if (!m.size() || !t.ops.size()) return out;
    const auto extents = extentsByThread(t);
    // Per thread, a sweep in time order with the stack of open extents: op extents on one thread
    // nest (they are ranges of its push/pop stack), so the top of the stack is the innermost.
    std::vector<std::vector<uint32_t>> eventsOf(t.threads.size());
    for (uint32_t i = 0; i < m.size(); ++i)
        if (m.thread[i].valid() && m.thread[i].value < eventsOf.size())
            eventsOf[m.thread[i].value].push_back(i); // in time order: the rows are
    for (size_t th = 0; th < eventsOf.size(); ++th) {
        const auto& ext = extents[th];
        std::vector<const Extent*> open;
        size_t next = 0;
        for (uint32_t i : eventsOf[th]) {
            const TimeNs x = m.time[i];
            for (; next < ext.size() && ext[next].start <= x; ++next) {
                while (!open.empty() && open.back()->end <= ext[next].start) open.pop_back();
                open.push_back(&ext[next]);
            }
            while (!open.empty() && open.back()->end <= x) open.pop_back();
            if (!open.empty()) out[i] = open.back()->op;
        }
    }
    return out;
}

std::vector<LiveAllocation> liveAtPeak(const Trace& t, const DeviceMemoryPeak& peak,
                                       std::span<const OpId> opOfEvent) {
    const auto& m = t.memory;
    std::vector<LiveAllocation> live;
    std::unordered_map<uint64_t, size_t> byAddress; // address -> index into live
    bool first = true;
    int64_t before = 0;
    for (size_t i = 0; i <= peak.allocatedEvent && i < m.size(); ++i) {
        if (m.device[i] != peak.device || m.pool[i] != MemoryPool::Allocated) continue;
        if (first) {
            before = static_cast<int64_t>(m.allocated[i]) - m.bytes[i];
            first = false;
        }
        // Before the capture (Nsight Systems writes time 0 for what was allocated and released
        // before it) the order of the events is not theirs: only their sum counts.
        if (m.time[i] < t.captureStart) {
            before += m.bytes[i];
            continue;
        }
        if (m.bytes[i] > 0) {
            const OpId op = i < opOfEvent.size() ? opOfEvent[i] : OpId();
            byAddress[m.address[i]] = live.size();
            live.push_back({i, static_cast<uint64_t>(m.bytes[i]), op});
            continue;
        }
        const uint64_t freed = static_cast<uint64_t>(-m.bytes[i]);
        const auto it = byAddress.find(m.address[i]);
        if (it == byAddress.end()) {
            before -= static_cast<int64_t>(freed);
            continue;
        }
        LiveAllocation& a = live[it->second];
        a.bytes -= std::min(a.bytes, freed);
        byAddress.erase(it);
    }
    std::erase_if(live, [](const LiveAllocation& a) { return a.bytes == 0; });
    if (before > 0) live.push_back({kBeforeRecording, static_cast<uint64_t>(before), OpId()});
    std::stable_sort(
        live.begin(), live.end(),
        [](const LiveAllocation& a, const LiveAllocation& b) { return a.bytes > b.bytes; });
    return live;
}

std::vector<OpMemoryRow> opMemoryRows(const Trace& t, std::span<const OpId> opOfEvent,
                                      MemoryGrouping by) {
    const auto& m = t.memory;
    std::map<std::pair<MemoryPool, std::string>, OpMemoryRow> rows;
    for (size_t i = 0; i < m.size(); ++i) {
        const OpId op = i < opOfEvent.size() ? opOfEvent[i] : OpId();
        std::string name;
        if (by == MemoryGrouping::Op)
            name = op.valid() ? std::string(t.str(t.ranges.name[t.ops.range[op.value].value]))
                              : "(no op)";
        else {
            const StringId layer = op.valid() ? t.ops.layer[op.value] : StringId();
            name = layer.valid() ? std::string(t.str(layer)) : "(no layer)";
        }
        OpMemoryRow& r = rows[{m.pool[i], name}];
        r.name = name;
        r.pool = m.pool[i];
        if (m.bytes[i] >= 0) {
            ++r.allocations;
            r.allocatedBytes += static_cast<uint64_t>(m.bytes[i]);
        } else {
            ++r.frees;
            r.freedBytes += static_cast<uint64_t>(-m.bytes[i]);
        }
        const uint64_t total = m.pool[i] == MemoryPool::Allocated ? m.allocated[i] : m.reserved[i];
        if (total != kNoMemoryTotal) r.peakTotal = std::max(r.peakTotal, total);
    }
    std::vector<OpMemoryRow> out;
    for (auto& [key, r] : rows) out.push_back(std::move(r));
    std::stable_sort(out.begin(), out.end(), [](const OpMemoryRow& a, const OpMemoryRow& b) {
        return std::tuple(a.pool, b.allocatedBytes) < std::tuple(b.pool, a.allocatedBytes);
    });
    return out;
}

} // namespace ls
