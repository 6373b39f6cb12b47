#include "app/cli/report_roofline.h"

#include "core/compare/roofline_families.h"
#include "core/reports/roofline.h"

#include <cmath>
#include <cstdio>

namespace ls::cli {
namespace {

// Counts (FLOPs, bytes) whole, as every other report prints them; empty when unknown.
std::string whole(double v) {
    if (std::isnan(v)) return {};
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
}

// Six significant digits; empty when unknown, "inf" for a point without bytes.
std::string number(double v) {
    if (std::isnan(v)) return {};
    if (std::isinf(v)) return "inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

} // namespace

bool isRooflineGrouping(const std::string& by) {
    return by == "family" || by == "op" || by == "layer" || by == "kernel";
}

void writeRooflineReport(TableWriter& w, const Trace& t, const std::string& by) {
    RooflineGroupOf groupOf;
    if (by == "op")
        groupOf = rooflineGroupOf(t, RooflineGrouping::Op);
    else if (by == "layer")
        groupOf = rooflineGroupOf(t, RooflineGrouping::Layer);
    else if (by == "kernel")
        groupOf = rooflineGroupOf(t, RooflineGrouping::Kernel);
    else
        groupOf = rooflineFamilyGroups(t);
    const bool directed = by == "op" || by == "layer";

    std::vector<std::string> header = {isRooflineGrouping(by) ? by : "family"};
    if (directed) header.push_back("direction");
    header.insert(header.end(),
                  {"dtype", "tensor_core", "gpu", "peak_model", "kernels", "gpu_time_ns", "flops",
                   "bytes", "intensity_flop_per_byte", "achieved_tflops", "compute_peak_tflops",
                   "bandwidth_gbps", "roof_tflops", "roof_percent", "bound"});
    w.header(std::move(header));
    for (const RooflinePoint& p : roofline(t, groupOf)) {
        std::vector<std::string> f = {p.group.name};
        if (directed) f.emplace_back(directionName(p.group.direction));
        f.insert(f.end(), {std::string(dtypeName(p.dtype)), std::string(tcStateName(p.tc)), p.gpu,
                           p.peaks ? std::string(p.peaks->model) : std::string(),
                           std::to_string(p.kernels), std::to_string(p.gpuTimeNs), whole(p.flops),
                           whole(p.bytes), number(p.intensity()), number(p.achieved() / 1e12),
                           number(p.computeRoof() / 1e12), number(p.bandwidth() / 1e9),
                           number(p.roof() / 1e12), number(p.percentOfRoof()),
                           std::string(rooflineBoundName(p.bound()))});
        w.row(std::move(f));
    }
}

} // namespace ls::cli
