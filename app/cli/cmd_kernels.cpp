#include "app/cli/commands.h"
#include "core/correlation.h"
#include "core/kernel_metrics.h"
#include "core/raw_text.h"
#include "core/table_writer.h"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace ls::cli {
namespace {

std::string dim(const Dim3& d) { return std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z); }
std::string orEmpty(int64_t v) { return v < 0 ? std::string() : std::to_string(v); }

// A measured or computed quantity: empty when unknown, never a made-up zero.
std::string number(double v, int decimals) {
    if (!std::isfinite(v)) return {};
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::vector<std::string> metricFields(const Trace& t, uint32_t i) {
    const auto& m = t.metrics;
    const double flops = m.flops[i], bytes = m.bytes[i], ns = static_cast<double>(t.kernels.duration(i));
    const double intensity = bytes > 0 ? flops / bytes : NAN;
    const double tflops = ns > 0 ? flops / ns / 1e3 : NAN; // FLOP/ns = GFLOP/s
    const double gbytes = ns > 0 ? bytes / ns : NAN;       // byte/ns = GB/s
    std::string dtype(dtypeName(m.dtype[i]));
    return {number(flops, 0), number(bytes, 0), dtype, number(intensity, 3), number(tflops, 3), number(gbytes, 3),
            std::string(tcStateName(m.tc[i])), std::string(tcReason(tensorCoreVerdict(t, KernelId(i)))),
            std::string(t.str(m.rule[i])), m.dtypeSource[i] == DTypeSource::KernelName ? "kernel name" : m.dtypeSource[i] == DTypeSource::Marker ? "marker" : ""};
}

// Normalized names of the kernel's stack, outermost first.
std::string nvtxPath(const Trace& t, KernelId k) {
    const auto stack = rangeStack(t, k);
    std::string path;
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
        if (!path.empty()) path += kNvtxPathSeparator;
        path += t.str(t.ranges.name[it->value]);
    }
    return path;
}

} // namespace

int commandKernels(const Options& o, Context& c) {
    const auto format = formatOption(o, c);
    if (!format) return kUsage;
    if (o.values.count("layer") && o.values.count("range")) {
        c.err << "error: give --layer or --range, not both\n";
        return kUsage;
    }
    int rc = kOk;
    auto t = loadForCommand(o, c, rc);
    if (!t) return rc;
    const auto& k = t->kernels;
    const auto& links = t->kernelLinks;
    const auto& r = t->ranges;

    std::vector<KernelId> selected;
    if (o.values.count("layer")) {
        const StringId layer = t->strings.find(o.get("layer", ""));
        if (layer.valid()) selected = kernelsOfLayer(*t, layer);
    } else if (o.values.count("range")) {
        selected = kernelsUnderRangesNamed(*t, o.get("range", ""));
    } else {
        selected.resize(k.size());
        for (uint32_t i = 0; i < k.size(); ++i) selected[i] = KernelId(i);
    }

    RawTextReader raw(*t);
    TableWriter w(c.out, *format);
    w.header({"id", "start_ns", "end_ns", "duration_ns", "device", "context", "stream", "pid", "tid", "correlation_id",
              "api", "name", "short_name", "grid", "block", "registers", "static_smem", "dynamic_smem", "nvtx_range",
              "nvtx_path", "layer", "op", "seq", "op_id", "direction", "fwd_op_id", "sizes", "flops", "bytes", "dtype",
              "intensity", "tflops_s", "gbytes_s", "tc", "tc_reason", "flops_rule", "dtype_source"});
    for (KernelId id : selected) {
        const uint32_t i = id.value;
        const ApiCallId call = k.launch[i];
        std::string tid, api;
        if (call.valid()) {
            tid = std::to_string(t->threads[t->apiCalls.thread[call.value].value].tid);
            api = std::string(t->str(t->apiCalls.name[call.value]));
        }
        const RangeId range = links.range[i], op = links.op[i];
        const OpId inst = links.opInstance[i];
        std::string seq, fwdOpId;
        if (inst.valid()) {
            seq = orEmpty(r.seq[t->ops.range[inst.value].value]);
            const OpId fwd = t->ops.paired[inst.value];
            if (t->ops.direction[inst.value] == Direction::Backward && fwd.valid())
                fwdOpId = orEmpty(r.opId[t->ops.range[fwd.value].value]);
        }
        std::vector<std::string> row = {std::to_string(i), std::to_string(k.start[i]), std::to_string(k.end[i]), std::to_string(k.duration(i)),
               std::to_string(k.device[i]), std::to_string(k.context[i]), std::to_string(k.stream[i]),
               std::to_string(t->processes[k.process[i].value].pid), tid, std::to_string(k.correlation[i]), api,
               std::string(t->str(k.name[i])), std::string(t->str(k.shortName[i])), dim(k.grid[i]), dim(k.block[i]),
               std::to_string(k.registers[i]), std::to_string(k.staticSmem[i]), std::to_string(k.dynamicSmem[i]),
               range.valid() ? raw.text(range) : std::string(), nvtxPath(*t, id),
               links.layer[i].valid() ? std::string(t->str(links.layer[i])) : std::string(),
               op.valid() ? std::string(t->str(r.name[op.value])) : std::string(), seq,
               op.valid() ? orEmpty(r.opId[op.value]) : std::string(), std::string(directionName(links.direction[i])), fwdOpId,
               op.valid() ? std::string(t->str(r.sizes[op.value])) : std::string()};
        for (auto& f : metricFields(*t, i)) row.push_back(std::move(f));
        w.row(std::move(row));
    }
    w.finish();
    return kOk;
}

int commandOps(const Options& o, Context& c) {
    const auto format = formatOption(o, c);
    if (!format) return kUsage;
    int rc = kOk;
    auto t = loadForCommand(o, c, rc);
    if (!t) return rc;
    const auto& ops = t->ops;
    const auto& r = t->ranges;
    // Each kernel counts under its innermost op instance only, so the rows add up (as op_sum).
    std::vector<uint64_t> opKernels(ops.size()), opTime(ops.size());
    for (uint32_t k = 0; k < t->kernels.size(); ++k)
        if (const OpId op = t->kernelLinks.opInstance[k]; op.valid()) {
            ++opKernels[op.value];
            opTime[op.value] += static_cast<uint64_t>(t->kernels.duration(k));
        }
    TableWriter w(c.out, *format);
    w.header({"op_id", "name", "seq", "direction", "layer", "tid", "start_ns", "end_ns", "kernels", "gpu_time_ns",
              "paired_op_id", "sizes"});
    for (uint32_t i = 0; i < ops.size(); ++i) {
        const uint32_t range = ops.range[i].value, extent = ops.extent[i].value;
        const uint64_t count = opKernels[i];
        const uint64_t gpu = opTime[i];
        const OpId paired = ops.paired[i];
        w.row({orEmpty(r.opId[range]), std::string(t->str(r.name[range])), orEmpty(r.seq[range]),
               std::string(directionName(ops.direction[i])), ops.layer[i].valid() ? std::string(t->str(ops.layer[i])) : std::string(),
               std::to_string(t->threads[threadOfRange(*t, RangeId(extent)).value].tid), std::to_string(r.start[extent]),
               std::to_string(r.end[extent]), std::to_string(count), std::to_string(gpu),
               paired.valid() ? orEmpty(r.opId[ops.range[paired.value].value]) : std::string(), std::string(t->str(r.sizes[range]))});
    }
    w.finish();
    return kOk;
}

} // namespace ls::cli
