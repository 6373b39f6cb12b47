#pragma once
// Findings about GPU idle time inside iterations, on one device of one trace: each gap of the
// gpu_idle report (core/reports/gpu_idle.h) that the GPU spent waiting for the host (the work
// ending it had not been launched yet when the GPU ran dry) goes to exactly one rule:
//   pageable_copy  the work ending it is a copy from or to pageable host memory, or the host was
//                  inside such a copy's call (the driver stages it through a bounce buffer)
//   idle_sync      the host was inside a synchronizing call (cudaStreamSynchronize, .item()),
//                  or, within an iteration period after one that blocked the host for B, while
//                  the GPU waits for the host to get ahead again (up to B in all: the lead lost)
//   idle_host      the host was inside a user range that did not launch the work the GPU
//                  waited for (data loading, a sleep)
//   launch_bound   anything else: the host was launching, but slower than the GPU ran
// Gaps the GPU spent on work already queued (scheduling between kernels) cost nothing here.
#include "core/findings/finding.h"
#include "core/findings/iteration_windows.h"
#include "core/reports/gpu_idle.h"

#include <vector>

namespace ls {

struct FindingScope {
    const Trace* trace = nullptr;
    uint32_t traceIndex = 0; // in the session
    uint32_t device = 0;
    ProcessId process;  // invalid: every process of the trace
    std::string prefix; // "rank 1: " in a session of several ranks, else empty
    std::vector<int> ranks;
};

std::vector<Finding> idleFindings(const FindingScope& scope, const GpuIdle& idle,
                                  const IterationWindows& windows);

} // namespace ls
