#pragma once
// Launch and execution times of kernels as nsys stats 2022.4 kernexecsum reports them, per
// launching process, thread, device, API name and kernel name: total (launch call start to the
// later of call end and kernel end), API (the call), queue (call end to kernel start, only where
// the kernel starts after the call returns) and kernel time. The launch-bound view: a long API
// time against a short kernel time means the CPU cannot keep the GPU fed.
#include "core/reports/summary.h"

#include <string>
#include <vector>

namespace ls {

struct KernelExecRow {
    uint32_t pid = 0, tid = 0, device = 0;
    std::string api; // as nsys 2022.4 prints it (stripApiVersion)
    StringId kernel; // demangled name
    DurationStats total, call, queue, kernelTime;
    uint64_t queued = 0; // launches with a queue time (QCount)
};

// Sorted by average total time, descending (ties by pid, tid, device, API, name).
std::vector<KernelExecRow> kernelExecSummary(const Trace& t);

} // namespace ls
