#pragma once
// Roofline points: per group of kernels, the FLOPs and bytes the cost model gives them, the
// arithmetic intensity and FLOP rate they reached, and the roof of their GPU at that intensity
// (docs/roofline.md). Only kernels with known FLOPs and bytes count.
#include "core/costs/device_peaks.h"
#include "core/model/trace.h"

#include <functional>
#include <string>
#include <vector>

namespace ls {

enum class RooflineBound : uint8_t { Unknown, Memory, Compute };
std::string_view rooflineBoundName(RooflineBound b); // "memory", "compute", "" (unknown)

// Which group a kernel belongs to; Direction::Other where the grouping has none.
struct RooflineGroup {
    std::string name;
    Direction direction = Direction::Other;
};
using RooflineGroupOf = std::function<RooflineGroup(uint32_t kernel)>;

// Groups core can form by itself. Kernel families (core/compare/kernel_family.h) sit above
// reports: the caller passes kernelFamily through rooflineBy's RooflineGroupOf overload.
enum class RooflineGrouping { Kernel, Op, Layer };
RooflineGroupOf rooflineGroupOf(const Trace& t, RooflineGrouping g);

// One point: a group's kernels of one element type and Tensor Core state on one GPU model, so
// that one compute roof applies to all of them.
struct RooflinePoint {
    RooflineGroup group;
    DType dtype = DType::Unknown;
    TcState tc = TcState::NotApplicable;
    std::string gpu;                    // the device name the trace records
    const DevicePeaks* peaks = nullptr; // nullptr: a GPU the peak table does not know
    uint64_t kernels = 0, gpuTimeNs = 0;
    double flops = 0, bytes = 0; // sums over the point's kernels

    double intensity() const;     // flops / bytes (FLOP per byte); +inf when bytes are 0
    double achieved() const;      // FLOP/s: flops / GPU time
    double computeRoof() const;   // computePeak(peaks, dtype, tc); NaN unknown
    double bandwidth() const;     // bytes/s; NaN unknown
    double roof() const;          // min(computeRoof, intensity × bandwidth); NaN unknown
    double percentOfRoof() const; // 100 × achieved / roof
    RooflineBound bound() const;  // which of the two terms of roof() is the smaller
};

// Points by GPU time, largest first. A kernel counts when its FLOPs and bytes are both known
// (finite); groups without such kernels give no point.
std::vector<RooflinePoint> roofline(const Trace& t, const RooflineGroupOf& groupOf);
inline std::vector<RooflinePoint> roofline(const Trace& t, RooflineGrouping g) {
    return roofline(t, rooflineGroupOf(t, g));
}

} // namespace ls
