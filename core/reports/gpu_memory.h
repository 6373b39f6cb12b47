#pragma once
// GPU memory over time (Trace::memory): each device's peaks, what was live at the allocated peak,
// and the op instance that made each event. The events are the allocator's own record, so the
// peak is read from the totals it wrote, not re-added: a PyTorch trace's peak allocated is
// torch.cuda.max_memory_allocated() over the window.
#include "core/model/trace.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ls {

struct DeviceMemoryPeak {
    uint32_t device = 0;
    uint64_t events = 0;
    uint64_t allocated = 0;             // the largest allocated total
    TimeNs allocatedAt = 0;             // when it was first reached
    size_t allocatedEvent = 0;          // the event that first reached it
    uint64_t reserved = kNoMemoryTotal; // the largest reserved total; none when not recorded
};
// One per device with events, by device id.
std::vector<DeviceMemoryPeak> memoryPeaks(const Trace& t);

// The op instance around each memory event on its thread (the innermost one; invalid outside any
// op or when the event's thread is unknown), in the order of Trace::memory.
std::vector<OpId> opsOfMemoryEvents(const Trace& t);

inline constexpr size_t kBeforeRecording = SIZE_MAX;

struct LiveAllocation {
    size_t event = kBeforeRecording; // the allocation; kBeforeRecording: made before the first
                                     // event or before the capture
    uint64_t bytes = 0;              // still held at the peak
    OpId op;                         // the op that allocated it (opsOfMemoryEvents)
};
// The allocations held at the device's allocated peak: made at or before the peak's event and
// not released by then (matched by address), the largest first. They add up to the peak. What
// was allocated before the first event or before the capture started (Nsight Systems records it
// at time 0, in no useful order) is the kBeforeRecording entry, less what of it was released.
std::vector<LiveAllocation> liveAtPeak(const Trace& t, const DeviceMemoryPeak& peak,
                                       std::span<const OpId> opOfEvent);

// Paddle's memory summary, per op name (or per layer): allocations and releases the op instances
// made, their sizes, and the highest total any of their events reached.
struct OpMemoryRow {
    std::string name; // the op's name, the layer's, or "(no op)" / "(no layer)"
    MemoryPool pool = MemoryPool::Allocated;
    uint64_t allocations = 0, frees = 0;
    uint64_t allocatedBytes = 0, freedBytes = 0;
    int64_t increaseBytes() const {
        return static_cast<int64_t>(allocatedBytes) - static_cast<int64_t>(freedBytes);
    }
    // The largest total of its pool on the device (allocated, or reserved where recorded) after
    // one of its events.
    uint64_t peakTotal = 0;
};
enum class MemoryGrouping : uint8_t { Op, Layer };
// Rows by pool, then by allocated bytes descending, then name.
std::vector<OpMemoryRow> opMemoryRows(const Trace& t, std::span<const OpId> opOfEvent,
                                      MemoryGrouping by = MemoryGrouping::Op);

} // namespace ls
