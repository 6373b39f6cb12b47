#pragma once
// Paddle's [memory] instant events (profile_memory=True): one per allocation or release, with the
// allocator's running totals. The model has no memory columns yet, so the importer keeps them
// here and reports them (counted per kind, with the peaks) in the load report.
//
// Hook for GPU memory over time: PaddleMemoryLog::events holds every event in file order with its
// time in ns; moving them into the model's memory columns (once core/model/trace.h has them) is a
// copy in readPaddleJson (paddle_importer.cpp), where the log is filled.
#include "core/import/paddle/paddle_event.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ls {

enum class PaddleMemoryKind : uint8_t { Allocate, Free, ReservedAllocate, ReservedFree, Other };

struct PaddleMemoryEvent {
    TimeNs time = 0;
    PaddleMemoryKind kind = PaddleMemoryKind::Other;
    uint32_t pid = 0, tid = 0;
    std::string place; // "Place(gpu:0)", "Place(cpu)", "Place(gpu_pinned)"
    uint64_t addr = 0;
    int64_t increaseBytes = 0;
    uint64_t currentAllocated = 0, currentReserved = 0, peakAllocated = 0, peakReserved = 0;
};

class PaddleMemoryLog {
  public:
    // e: an instant event whose category is a memory kind ("Allocate" …).
    void add(const PaddleEvent& e);
    const std::vector<PaddleMemoryEvent>& events() const { return events_; }
    uint64_t count(PaddleMemoryKind k) const { return counts_[static_cast<size_t>(k)]; }
    uint64_t withoutTime() const { return withoutTime_; }
    // "12 [memory] events (5 Allocate, 5 Free, 1 ReservedAllocate, 1 ReservedFree; peak
    // allocated 4096 B, peak reserved 8192 B): …"; empty when there were none.
    std::string reportLine() const;

  private:
    std::vector<PaddleMemoryEvent> events_;
    uint64_t counts_[5] = {};
    uint64_t withoutTime_ = 0;
};

PaddleMemoryKind paddleMemoryKind(std::string_view category);

} // namespace ls
