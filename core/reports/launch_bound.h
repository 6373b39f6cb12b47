#pragma once
// Launch-bound kernels: those whose GPU time is shorter than the CPU time of the call that
// launched them. A run of them leaves the GPU waiting for the host between kernels; fusing them or
// capturing them in a CUDA graph is the usual cure. Counted per layer, direction and op.
#include "core/model/trace.h"

#include <string>
#include <vector>

namespace ls {

struct LaunchBoundRow {
    std::string layer; // empty outside layers
    Direction direction = Direction::Other;
    std::string op; // the kernel's op instance name; empty outside ops
    uint64_t kernels = 0, launchBound = 0;
    TimeNs kernelTime = 0; // GPU time of the launch-bound kernels
    TimeNs launchTime = 0; // CPU time of their launch calls
};

bool isLaunchBound(const Trace& t, KernelId k);
// Rows with at least one launch-bound kernel, most launch-bound kernels first.
std::vector<LaunchBoundRow> launchBoundSummary(const Trace& t);

} // namespace ls
