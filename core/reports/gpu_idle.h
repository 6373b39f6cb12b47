#pragma once
// Where the GPU sits idle and why. Per device, the gaps between GPU work (the union of kernels,
// copies and sets), each with what the host was doing when the gap began, told from the thread
// that launched the work ending the gap:
//   synchronization  it was inside a synchronizing call (cudaStreamSynchronize, a blocking
//                    cudaMemcpy, .item()'s aten::_local_scalar_dense): the host waited for the
//                    GPU and then took this long to give it work again
//   launch           the next launch call had started before the gap began: launch overhead
//   host range       inside a user range (data loading, logging, checkpointing): its name
//   host ops         inside framework ops only (CPU-bound PyTorch): the innermost op's name
//   nothing traced   none of the above
// HTA's idle-time breakdown names three of these: host wait (synchronization, host range, host
// ops), kernel wait (launch) and other (nothing traced).
#include "core/model/trace.h"

#include <string>
#include <string_view>
#include <vector>

namespace ls {

enum class IdleCause : uint8_t { Synchronization, Launch, HostRange, HostOps, NothingTraced };
inline constexpr int kIdleCauseCount = 5;
std::string_view idleCauseName(IdleCause c);    // "synchronization", "launch", …
std::string_view idleCauseHtaName(IdleCause c); // "host wait", "kernel wait", "other"

// Its names are views into the trace's strings (or static text), valid while the trace lives: a
// million-kernel trace has about as many gaps, and a copy of each name was most of the report.
struct GpuGap {
    uint32_t device = 0;
    TimeNs start = 0, end = 0;
    IdleCause cause = IdleCause::NothingTraced;
    std::string_view detail; // the call, user range or op named by the cause; empty otherwise
    std::string_view op;     // the innermost framework op the host was in (host range and host ops)
    std::string_view next;   // the kernel (or "memcpy"/"memset") that ended the gap
    uint32_t tid = 0;        // its launching thread, 0 when unknown
    ApiCallId launch;        // the call that launched that work; invalid when unknown
    TimeNs duration() const { return end - start; }
};

struct DeviceBusy {
    uint32_t device = 0;
    TimeNs first = 0, last = 0; // first GPU op start, last GPU op end
    TimeNs busy = 0;            // union of its GPU ops
    TimeNs span() const { return last - first; }
};

struct GpuIdle {
    std::vector<DeviceBusy> devices; // by device id
    std::vector<GpuGap> gaps;        // by device, then start
};

GpuIdle gpuIdle(const Trace& t);

struct IdleRow {
    uint32_t device = 0;
    IdleCause cause = IdleCause::NothingTraced;
    std::string detail;
    uint64_t gaps = 0;
    TimeNs idle = 0;
    double percent = 0; // of the device's idle time
};
// Idle time by device, cause and detail, largest first within a device.
std::vector<IdleRow> idleSummary(const GpuIdle& idle);

} // namespace ls
