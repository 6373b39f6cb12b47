#pragma once
// Summaries over the correlation: NVTX ranges with their kernels (nsys nvtxkernsum semantics),
// ranges by normalized name, and GPU time per layer and direction and per op.
#include "core/reports/summary.h"
#include "core/model/trace.h"

#include <optional>
#include <string>
#include <vector>

namespace ls {

struct NvtxKernRow {
    std::string range; // raw text as nsys prints it; empty with noRange for kernels outside any range
    bool noRange = false;
    std::string style; // PushPop or StartEnd
    std::optional<uint32_t> pid, tid; // of the launching thread; empty for kernels without a launch call
    uint64_t rangeInstances = 0, kernelInstances = 0;
    DurationStats stats; // over (range instance, kernel) pairs, as nsys sums them
    StringId kernel;     // its name (an id: a 1M-kernel trace gives millions of rows)
};

// nsys nvtxkernsum: each kernel counted under every range of its launch call's stack, once per
// range instance (nsys 2022.4 counts it twice where the export has two runtime rows per call).
// Sorted by range text (kernels outside ranges first), pid, tid, total time descending.
std::vector<NvtxKernRow> nvtxKernelSummary(const Trace& t);

struct NvtxRangeRow {
    std::string name, style;
    double percent = 0;
    DurationStats stats; // range durations
};
// Ranges grouped by normalized name and style, by total time.
std::vector<NvtxRangeRow> nvtxRangeSummary(const Trace& t);

struct GpuTimeRow {
    std::string name; // layer or op name; "(none)" for kernels without one
    Direction direction = Direction::Other;
    uint64_t instances = 0; // op instances (op_sum only)
    uint64_t kernels = 0;
    uint64_t gpuTimeNs = 0;
    double percent = 0;       // of all kernel time
    double flops = 0;         // sum over the kernels with a known FLOP count
    uint64_t kernelsWithFlops = 0;
    uint64_t flopsTimeNs = 0; // GPU time of those kernels: the rate is theirs, as in the layer tree
    uint64_t tcTimeNs = 0;    // GPU time of kernels that used Tensor Cores
    double tflopsPerSecond() const { return flopsTimeNs ? flops / static_cast<double>(flopsTimeNs) / 1e3 : 0; }
    double tcShare() const { return gpuTimeNs ? 100.0 * static_cast<double>(tcTimeNs) / static_cast<double>(gpuTimeNs) : 0; }
};
// Per layer and direction; the rows add up to the total kernel time.
std::vector<GpuTimeRow> layerSummary(const Trace& t);
// Per op instance name and direction; kernels outside any op form the "(none)" row.
std::vector<GpuTimeRow> opSummary(const Trace& t);

struct TcRow {
    uint32_t device = 0;
    TcState state = TcState::NotApplicable;
    uint64_t kernels = 0, gpuTimeNs = 0;
    double percent = 0; // of the device's kernel time
};
// GPU time by Tensor Core state, per device.
std::vector<TcRow> tensorCoreSummary(const Trace& t);

} // namespace ls
