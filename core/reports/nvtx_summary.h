#pragma once
// Summaries over the correlation: NVTX ranges by normalized name, GPU time per layer and
// direction and per op, Tensor Core use (the kernels under each range: nvtx_kern_summary.h).
#include "core/model/trace.h"
#include "core/reports/summary.h"

#include <string>
#include <vector>

namespace ls {

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
    double percent = 0; // of all kernel time
    double flops = 0;   // sum over the kernels with a known FLOP count
    uint64_t kernelsWithFlops = 0;
    uint64_t flopsTimeNs = 0; // GPU time of those kernels: the rate is theirs, as in the layer tree
    uint64_t tcTimeNs = 0;    // GPU time of kernels that used Tensor Cores
    double tflopsPerSecond() const {
        return flopsTimeNs ? flops / static_cast<double>(flopsTimeNs) / 1e3 : 0;
    }
    double tcShare() const {
        return gpuTimeNs ? 100.0 * static_cast<double>(tcTimeNs) / static_cast<double>(gpuTimeNs)
                         : 0;
    }
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
