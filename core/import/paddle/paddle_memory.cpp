#include "core/import/paddle/paddle_memory.h"

#include <algorithm>
#include <cctype>

namespace ls {

PaddleMemoryKind paddleMemoryKind(std::string_view category) {
    std::string key;
    for (char c : category)
        if (c != '_') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (key == "allocate") return PaddleMemoryKind::Allocate;
    if (key == "free") return PaddleMemoryKind::Free;
    if (key == "reservedallocate") return PaddleMemoryKind::ReservedAllocate;
    if (key == "reservedfree") return PaddleMemoryKind::ReservedFree;
    return PaddleMemoryKind::Other;
}

void PaddleMemoryLog::add(const PaddleEvent& p) {
    const KinetoEvent& e = p.base;
    const PaddleMemoryKind kind = paddleMemoryKind(e.cat);
    ++counts_[static_cast<size_t>(kind)];
    if (!e.ts) {
        ++withoutTime_;
        return;
    }
    auto u32 = [](int64_t v) {
        return v < 0 ? 0u : static_cast<uint32_t>(std::min<int64_t>(v, UINT32_MAX));
    };
    events_.push_back({*e.ts, kind, u32(e.pid), u32(e.tid), std::string(p.memory.place),
                       p.memory.addr, p.memory.increaseBytes, p.memory.currentAllocated,
                       p.memory.currentReserved, p.memory.peakAllocated, p.memory.peakReserved});
}

std::string PaddleMemoryLog::reportLine() const {
    uint64_t all = 0;
    for (uint64_t c : counts_) all += c;
    if (all == 0) return {};
    uint64_t peakAllocated = 0, peakReserved = 0;
    for (const auto& m : events_) {
        peakAllocated = std::max(peakAllocated, m.peakAllocated);
        peakReserved = std::max(peakReserved, m.peakReserved);
    }
    static constexpr const char* kNames[] = {"Allocate", "Free", "ReservedAllocate", "ReservedFree",
                                             "other"};
    std::string line = std::to_string(all) + " [memory] events (";
    bool first = true;
    for (size_t k = 0; k < 5; ++k) {
        if (!counts_[k]) continue;
        line += (first ? "" : ", ") + std::to_string(counts_[k]) + " " + kNames[k];
        first = false;
    }
    line += "; peak allocated " + std::to_string(peakAllocated) + " B, peak reserved " +
            std::to_string(peakReserved) + " B): GPU memory over time is not in the model yet";
    if (withoutTime_) line += "; " + std::to_string(withoutTime_) + " without a usable ts";
    return line;
}

} // namespace ls
