#pragma once
// Paddle's [memory] instant events (profile_memory=True): one per allocation or release, with the
// allocator's running totals. Those on a GPU ("Place(gpu:0)") become the model's memory events
// (Trace::memory); those on host memory are counted in the load report.
#include "core/import/kineto/kineto_builder.h"
#include "core/import/paddle/paddle_event.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ls {

enum class PaddleMemoryKind : uint8_t { Allocate, Free, ReservedAllocate, ReservedFree, Other };

class PaddleMemoryLog {
  public:
    // e: an instant event whose category is a memory kind ("Allocate" …); a GPU one goes to
    // builder.memoryEvent.
    void add(const PaddleEvent& e, KinetoBuilder& builder);
    uint64_t count(PaddleMemoryKind k) const { return counts_[static_cast<size_t>(k)]; }
    // "3 [memory] events not on a GPU (Place(cpu) …) or without a usable ts: only GPU memory is
    // kept"; empty when every event was kept.
    std::string reportLine() const;
    uint64_t notKept() const { return host_ + withoutTime_; }

  private:
    uint64_t counts_[5] = {};
    uint64_t host_ = 0, withoutTime_ = 0;
};

PaddleMemoryKind paddleMemoryKind(std::string_view category);
// The device of "Place(gpu:1)" (1); nullopt for host places (cpu, gpu_pinned) and unknown text.
std::optional<uint32_t> paddleGpuOfPlace(std::string_view place);

} // namespace ls
