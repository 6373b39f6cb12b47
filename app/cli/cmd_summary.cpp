#include "app/cli/commands.h"
#include "core/nvtx_summary.h"
#include "core/summary.h"
#include "core/table_writer.h"

#include <cstdio>
#include <ostream>

namespace ls::cli {
namespace {

std::vector<std::string> statsFields(const DurationStats& s) {
    return {std::to_string(s.total), std::to_string(s.count), formatOneDecimal(s.avg), formatOneDecimal(s.median),
            std::to_string(s.min), std::to_string(s.max), formatOneDecimal(s.stddev)};
}

std::string percent(double p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", p);
    return buf;
}

void writeDurationSummary(TableWriter& w, const Trace& t, const std::string& report) {
    const bool api = report == "api_sum";
    const bool byDims = report == "gpukernsum";
    const auto rows = api ? apiSummary(t)
                          : kernelSummary(t, byDims ? KernelGrouping::NameGridBlock : KernelGrouping::Name, KernelNaming::Demangled);
    std::vector<std::string> header = {"Time (%)", "Total Time (ns)", api ? "Num Calls" : "Instances", "Avg (ns)",
                                       "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)"};
    if (byDims) header.insert(header.end(), {"GridXYZ", "BlockXYZ"});
    header.push_back("Name");
    w.header(header);
    for (const auto& r : rows) {
        std::vector<std::string> f = {formatOneDecimal(r.percent)};
        for (auto& s : statsFields(r.stats)) f.push_back(std::move(s));
        if (byDims) f.insert(f.end(), {r.grid, r.block});
        f.push_back(r.name);
        w.row(std::move(f));
    }
}

void writeNvtxKernSummary(TableWriter& w, const Trace& t) {
    w.header({"NVTX Range", "Style", "PID", "TID", "NVTX Inst", "Kern Inst", "Total Time (ns)", "Avg (ns)", "Med (ns)",
              "Min (ns)", "Max (ns)", "StdDev (ns)", "Kernel Name"});
    for (const auto& r : nvtxKernelSummary(t)) {
        const auto& s = r.stats;
        w.row({r.noRange ? "None" : r.range, r.noRange ? "None" : r.style, r.pid ? std::to_string(*r.pid) : "",
               r.tid ? std::to_string(*r.tid) : "", std::to_string(r.rangeInstances), std::to_string(r.kernelInstances),
               std::to_string(s.total), formatOneDecimal(s.avg), formatOneDecimal(s.median), std::to_string(s.min),
               std::to_string(s.max), formatOneDecimal(s.stddev), std::string(t.str(r.kernel))});
    }
}

void writeNvtxSummary(TableWriter& w, const Trace& t) {
    w.header({"Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)",
              "Style", "Range"});
    for (const auto& r : nvtxRangeSummary(t)) {
        std::vector<std::string> f = {formatOneDecimal(r.percent)};
        for (auto& s : statsFields(r.stats)) f.push_back(std::move(s));
        f.push_back(r.style);
        f.push_back(r.name);
        w.row(std::move(f));
    }
}

void writeGpuTimeSummary(TableWriter& w, const std::vector<GpuTimeRow>& rows, bool ops) {
    std::vector<std::string> header = {ops ? "op" : "layer", "direction"};
    if (ops) header.push_back("instances");
    header.insert(header.end(), {"kernels", "gpu_time_ns", "gpu_time_pct", "flops", "tflops_s", "tc_time_pct"});
    w.header(header);
    for (const auto& r : rows) {
        std::vector<std::string> f = {r.name, std::string(directionName(r.direction))};
        if (ops) f.push_back(std::to_string(r.instances));
        char flops[64], tflops[32];
        std::snprintf(flops, sizeof flops, "%.0f", r.flops);
        std::snprintf(tflops, sizeof tflops, "%.3f", r.tflopsPerSecond());
        const bool known = r.kernelsWithFlops > 0; // no formula for any kernel: empty, not zero
        f.insert(f.end(), {std::to_string(r.kernels), std::to_string(r.gpuTimeNs), percent(r.percent), known ? flops : "",
                           known ? tflops : "", percent(r.tcShare())});
        w.row(std::move(f));
    }
}

void writeTcSummary(TableWriter& w, const Trace& t) {
    w.header({"device", "gpu", "tc", "kernels", "gpu_time_ns", "gpu_time_pct"});
    for (const auto& r : tensorCoreSummary(t)) {
        std::string gpu;
        for (const auto& d : t.devices)
            if (d.id == r.device) gpu = d.name;
        w.row({std::to_string(r.device), gpu, std::string(tcStateName(r.state)), std::to_string(r.kernels),
               std::to_string(r.gpuTimeNs), percent(r.percent)});
    }
}

} // namespace

int commandSummary(const Options& o, Context& c) {
    const auto format = formatOption(o, c);
    const std::string report = o.get("report", "");
    if (!format) return kUsage;
    static const std::set<std::string> reports = {"kern_sum", "gpukernsum", "api_sum", "nvtx_kern_sum", "nvtx_sum", "layer_sum", "op_sum", "tc_sum"};
    if (!reports.count(report)) {
        c.err << "error: --report must be one of kern_sum, gpukernsum, api_sum, nvtx_kern_sum, nvtx_sum, layer_sum, op_sum, tc_sum\n";
        return kUsage;
    }
    int rc = kOk;
    auto t = loadForCommand(o, c, rc);
    if (!t) return rc;
    TableWriter w(c.out, *format);
    if (report == "nvtx_kern_sum") writeNvtxKernSummary(w, *t);
    else if (report == "nvtx_sum") writeNvtxSummary(w, *t);
    else if (report == "layer_sum") writeGpuTimeSummary(w, layerSummary(*t), false);
    else if (report == "op_sum") writeGpuTimeSummary(w, opSummary(*t), true);
    else if (report == "tc_sum") writeTcSummary(w, *t);
    else writeDurationSummary(w, *t, report);
    w.finish();
    return kOk;
}

} // namespace ls::cli
