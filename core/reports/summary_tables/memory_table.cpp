#include "core/reports/summary_tables/memory_table.h"

#include "core/reports/summary_tables/paddle_text.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ls {
namespace {

std::string_view poolName(MemoryPool p) {
    return p == MemoryPool::Allocated ? "Allocated" : "Reserved";
}

std::string megabytes(double bytes) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.2f", bytes / (1024.0 * 1024.0));
    return buf;
}

std::string opName(const Trace& t, OpId op) {
    return op.valid() ? std::string(t.str(t.ranges.name[t.ops.range[op.value].value])) : "";
}

std::string layerName(const Trace& t, OpId op) {
    const StringId layer = op.valid() ? t.ops.layer[op.value] : StringId();
    return layer.valid() ? std::string(t.str(layer)) : "";
}

} // namespace

void writeMemoryRows(TableWriter& w, const Trace& t, MemoryGrouping by) {
    w.header({"name", "memory_type", "allocation_count", "free_count", "allocation_bytes",
              "free_bytes", "increased_bytes", "peak_total_bytes"});
    for (const auto& r : opMemoryRows(t, opsOfMemoryEvents(t), by))
        w.row({r.name, std::string(poolName(r.pool)), std::to_string(r.allocations),
               std::to_string(r.frees), std::to_string(r.allocatedBytes),
               std::to_string(r.freedBytes), std::to_string(r.increaseBytes()),
               std::to_string(r.peakTotal)});
}

void writeLiveAtPeakRows(TableWriter& w, const Trace& t) {
    w.header({"device", "peak_time_ns", "allocation_time_ns", "bytes", "op", "layer", "address"});
    const auto ops = opsOfMemoryEvents(t);
    for (const auto& peak : memoryPeaks(t))
        for (const auto& a : liveAtPeak(t, peak, ops)) {
            const bool known = a.event != kBeforeRecording;
            w.row({std::to_string(peak.device), std::to_string(peak.allocatedAt),
                   known ? std::to_string(t.memory.time[a.event]) : "", std::to_string(a.bytes),
                   opName(t, a.op), layerName(t, a.op),
                   known ? std::to_string(t.memory.address[a.event]) : ""});
        }
}

std::string formatMemoryText(const Trace& t, MemoryGrouping by) {
    const auto peaks = memoryPeaks(t);
    const auto ops = opsOfMemoryEvents(t);
    std::string out;
    {
        PaddleText text({12, 24, 24});
        text.title("Memory Summary");
        text.line("Memory unit: MB");
        text.separator();
        text.row({"Device", "Peak Allocated Memory", "Peak Reserved Memory"});
        text.separator();
        for (const auto& p : peaks)
            text.row({"gpu:" + std::to_string(p.device), megabytes(double(p.allocated)),
                      p.reserved == kNoMemoryTotal ? "-" : megabytes(double(p.reserved))});
        if (peaks.empty()) text.line("(the trace records no GPU memory events)");
        text.rule();
        out += std::move(text).text() + "\n";
    }
    const auto rows = opMemoryRows(t, ops, by);
    size_t nameWidth = 24;
    for (const auto& r : rows) nameWidth = std::max(nameWidth, std::min<size_t>(r.name.size(), 60));
    {
        PaddleText text({nameWidth, 12, 16, 12, 16, 16, 16, 16});
        text.title(by == MemoryGrouping::Op ? "Memory Manipulation Summary (per op)"
                                            : "Memory Manipulation Summary (per layer)");
        text.line("Memory unit: MB");
        text.separator();
        text.row({by == MemoryGrouping::Op ? "Event" : "Layer", "Memory Type", "Allocation Count",
                  "Free Count", "Allocation Size", "Free Size", "Increased Size", "Peak Total"});
        text.separator();
        for (const auto& r : rows)
            text.row({r.name, std::string(poolName(r.pool)), std::to_string(r.allocations),
                      std::to_string(r.frees), megabytes(double(r.allocatedBytes)),
                      megabytes(double(r.freedBytes)), megabytes(double(r.increaseBytes())),
                      megabytes(double(r.peakTotal))});
        text.rule();
        out += std::move(text).text() + "\n";
    }
    for (const auto& p : peaks) {
        // What the peak is made of, grouped by the op that allocated it.
        std::map<std::string, std::pair<uint64_t, uint64_t>> byOp; // name -> (bytes, count)
        for (const auto& a : liveAtPeak(t, p, ops)) {
            const std::string name = a.event == kBeforeRecording ? "(allocated before the trace)"
                                     : a.op.valid()              ? opName(t, a.op)
                                                                 : "(no op)";
            auto& [bytes, count] = byOp[name];
            bytes += a.bytes;
            ++count;
        }
        std::vector<std::pair<std::string, std::pair<uint64_t, uint64_t>>> sorted(byOp.begin(),
                                                                                  byOp.end());
        std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
            return a.second.first > b.second.first;
        });
        PaddleText text({nameWidth, 16, 12});
        text.title("Held at the Peak of gpu:" + std::to_string(p.device));
        char at[96];
        std::snprintf(at, sizeof at, "Peak %.3f ms into the capture (%lld ns); memory unit: MB",
                      static_cast<double>(p.allocatedAt - t.captureStart) / 1e6,
                      static_cast<long long>(p.allocatedAt));
        text.line(at);
        text.separator();
        text.row({"Allocated by", "Size", "Allocations"});
        text.separator();
        for (size_t i = 0; i < sorted.size() && i < 10; ++i)
            text.row({sorted[i].first, megabytes(double(sorted[i].second.first)),
                      std::to_string(sorted[i].second.second)});
        text.rule();
        out += std::move(text).text() + "\n";
    }
    return out;
}

} // namespace ls
