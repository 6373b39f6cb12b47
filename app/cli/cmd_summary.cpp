#include "app/cli/commands.h"
#include "app/cli/report_roofline.h"
#include "core/import/ncu/ncu_metrics.h"
#include "core/job/job_file.h"
#include "core/reports/collectives.h"
#include "core/reports/gpu_idle.h"
#include "core/reports/gpu_trace.h"
#include "core/reports/iteration_summary.h"
#include "core/reports/kernel_exec_summary.h"
#include "core/reports/launch_bound.h"
#include "core/reports/memory_summary.h"
#include "core/reports/nvtx_gpu_projection.h"
#include "core/reports/nvtx_kern_summary.h"
#include "core/reports/nvtx_summary.h"
#include "core/reports/rank_summary.h"
#include "core/reports/report_parts.h"
#include "core/reports/summary.h"
#include "core/reports/summary_tables/memory_table.h"
#include "core/reports/summary_tables/summary_table_writer.h"
#include "core/reports/table_writer.h"
#include "core/views/layer_tree.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <thread>

namespace ls::cli {
namespace {

std::vector<std::string> statsFields(const DurationStats& s) {
    return {std::to_string(s.total),    std::to_string(s.count), formatOneDecimal(s.avg),
            formatOneDecimal(s.median), std::to_string(s.min),   std::to_string(s.max),
            formatOneDecimal(s.stddev)};
}

std::string percent(double p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", p);
    return buf;
}

void writeDurationRows(TableWriter& w, const std::vector<SummaryRow>& rows, bool api, bool byDims) {
    std::vector<std::string> header = {
        "Time (%)", "Total Time (ns)", api ? "Num Calls" : "Instances",
        "Avg (ns)", "Med (ns)",        "Min (ns)",
        "Max (ns)", "StdDev (ns)"};
    if (byDims) header.insert(header.end(), {"GridXYZ", "BlockXYZ"});
    header.emplace_back("Name");
    w.header(header);
    for (const auto& r : rows) {
        std::vector<std::string> f = {formatOneDecimal(r.percent)};
        for (auto& s : statsFields(r.stats)) f.push_back(std::move(s));
        if (byDims) f.insert(f.end(), {r.grid, r.block});
        f.push_back(r.name);
        w.row(std::move(f));
    }
}

void writeDurationSummary(TableWriter& w, const Trace& t, const std::string& report) {
    const bool osrt = report == "osrt_sum";
    const bool api = report == "api_sum" || osrt;
    const bool byDims = report == "gpukernsum";
    writeDurationRows(
        w,
        osrt  ? osRuntimeSummary(t)
        : api ? apiSummary(t)
              : kernelSummary(t, byDims ? KernelGrouping::NameGridBlock : KernelGrouping::Name,
                              KernelNaming::Demangled),
        api, byDims);
}

void writeNvtxKernRow(TableWriter& w, const Trace& t, const NvtxKernRow& r) {
    const auto& s = r.stats;
    char numbers[10][32]; // the ten numbers of a row
    size_t used = 0;
    auto integer = [&](auto v) {
        char* n = numbers[used++];
        return std::string_view(n, static_cast<size_t>(std::to_chars(n, n + 32, v).ptr - n));
    };
    auto real = [&](double v) {
        const std::string text = formatOneDecimal(v);
        char* n = numbers[used++];
        const size_t size = std::min<size_t>(text.size(), 32);
        std::memcpy(n, text.data(), size);
        return std::string_view(n, size);
    };
    const std::string_view pid = r.pid ? integer(*r.pid) : "", tid = r.tid ? integer(*r.tid) : "";
    const std::string_view fields[] = {r.noRange ? "None" : r.range,
                                       r.noRange ? "None" : r.style,
                                       pid,
                                       tid,
                                       integer(r.rangeInstances),
                                       integer(r.kernelInstances),
                                       integer(s.total),
                                       real(s.avg),
                                       real(s.median),
                                       integer(s.min),
                                       integer(s.max),
                                       real(s.stddev),
                                       t.str(r.kernel)};
    w.row(fields); // views: millions of rows on a 1M-kernel trace
}

void writeNvtxKernSummary(TableWriter& w, const Trace& t) {
    w.header({"NVTX Range", "Style", "PID", "TID", "NVTX Inst", "Kern Inst", "Total Time (ns)",
              "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Kernel Name"});
    // Rows are formatted where they are made, on every core, each part into lines of its own
    // that are written in order: a 1M-kernel trace gives millions of rows.
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    nvtxKernelSummaryInParts(t, kNvtxKernPartTexts, [&](size_t count, const auto& make) {
        w.rowsInChunks(count, 1, cores, [&](size_t from, size_t to, TableWriter& into) {
            for (size_t p = from; p < to; ++p)
                make(p, [&](const NvtxKernRow& r) { writeNvtxKernRow(into, t, r); });
        });
    });
}

void writeNvtxSummary(TableWriter& w, const Trace& t) {
    w.header({"Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)",
              "Max (ns)", "StdDev (ns)", "Style", "Range"});
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
    if (ops) header.emplace_back("instances");
    header.insert(header.end(),
                  {"kernels", "gpu_time_ns", "gpu_time_pct", "flops", "tflops_s", "tc_time_pct"});
    w.header(header);
    for (const auto& r : rows) {
        std::vector<std::string> f = {r.name, std::string(directionName(r.direction))};
        if (ops) f.push_back(std::to_string(r.instances));
        char flops[64], tflops[32];
        std::snprintf(flops, sizeof flops, "%.0f", r.flops);
        std::snprintf(tflops, sizeof tflops, "%.3f", r.tflopsPerSecond());
        const bool known = r.kernelsWithFlops > 0; // no formula for any kernel: empty, not zero
        f.insert(f.end(),
                 {std::to_string(r.kernels), std::to_string(r.gpuTimeNs), percent(r.percent),
                  known ? flops : "", known ? tflops : "", percent(r.tcShare())});
        w.row(std::move(f));
    }
}

void writeTcSummary(TableWriter& w, const Trace& t) {
    w.header({"device", "gpu", "tc", "kernels", "gpu_time_ns", "gpu_time_pct"});
    for (const auto& r : tensorCoreSummary(t)) {
        std::string gpu;
        for (const auto& d : t.devices)
            if (d.id == r.device) gpu = d.name;
        w.row({std::to_string(r.device), gpu, std::string(tcStateName(r.state)),
               std::to_string(r.kernels), std::to_string(r.gpuTimeNs), percent(r.percent)});
    }
}

// The layer tree (core/views/layer_tree.h) in preorder: one row per node, path of names from the
// top.
void writeLayerTree(TableWriter& w, const Trace& t) {
    const LayerTree tree = buildLayerTree(t);
    w.header({"path", "depth", "kind", "name", "kernels", "gpu_time_ns", "gpu_time_pct", "flops",
              "tflops_s", "tc_time_pct"});
    std::vector<std::string> paths(tree.size());
    const double all = static_cast<double>(tree.gpuTimeNs[0]);
    std::vector<uint32_t> stack{0};
    while (!stack.empty()) {
        const uint32_t n = stack.back();
        stack.pop_back();
        const std::string name(layerNodeName(t, tree, n));
        if (n != 0) paths[n] = tree.parent[n] == 0 ? name : paths[tree.parent[n]] + " > " + name;
        const auto c = layerTreeChildren(tree, n);
        stack.insert(stack.end(), c.rbegin(), c.rend());
        const auto ns = static_cast<double>(tree.gpuTimeNs[n]);
        const double flops = tree.flops[n], flopsNs = static_cast<double>(tree.flopsTimeNs[n]);
        char f[64] = "", tf[32] = "";
        if (std::isfinite(flops)) std::snprintf(f, sizeof f, "%.0f", flops);
        if (std::isfinite(flops) && flopsNs > 0)
            std::snprintf(tf, sizeof tf, "%.3f", flops / flopsNs / 1e3);
        w.row({paths[n], std::to_string(tree.depth[n]),
               std::string(layerNodeKindName(tree.kind[n])), name, std::to_string(tree.kernels[n]),
               std::to_string(tree.gpuTimeNs[n]), percent(all > 0 ? 100.0 * ns / all : 0), f, tf,
               percent(ns > 0 ? 100.0 * static_cast<double>(tree.tcUsedTimeNs[n]) / ns : 0)});
    }
}

// One row per Nsight Compute kernel: how it matched the trace, and why not.
void writeNcuMatch(TableWriter& w, const NcuMetrics& ncu) {
    w.header({"ncu_id", "pid", "kernel_name", "grid", "block", "state", "kernel_id", "reason"});
    const auto& m = ncu.match();
    for (size_t i = 0; i < ncu.csv().kernels.size(); ++i) {
        const NcuKernel& k = ncu.csv().kernels[i];
        w.row({std::to_string(k.id), std::to_string(k.pid), k.name,
               k.hasDims ? formatDim3(k.grid) : "", k.hasDims ? formatDim3(k.block) : "",
               std::string(ncuMatchStateName(m.state[i])),
               m.kernelOfNcu[i].valid() ? std::to_string(m.kernelOfNcu[i].value) : "",
               m.reason[i]});
    }
}

std::string ns(TimeNs v) { return std::to_string(v); }

// rank_sum: per rank, GPU time split into compute, communication, hidden and exposed
// communication and idle (core/reports/rank_summary.h).
void writeRankSummary(TableWriter& w, const std::vector<RankTimeRow>& rows) {
    w.header({"rank", "host", "pid", "device", "kernels", "span_ns", "busy_ns", "compute_ns",
              "comm_ns", "overlap_ns", "exposed_comm_ns", "idle_ns"});
    for (const auto& r : rows)
        w.row({std::to_string(r.rank), r.host, std::to_string(r.pid), std::to_string(r.device),
               std::to_string(r.kernels), ns(r.span), ns(r.busy), ns(r.compute), ns(r.comm),
               ns(r.overlap), ns(r.exposedComm), ns(r.idle)});
}

// collective_sum: one row per collective matched across ranks, in session time.
void writeCollectiveSummary(TableWriter& w, const CollectiveMatch& m) {
    w.header({"collective", "type", "comm", "seq", "ranks", "bytes", "first_start_ns",
              "last_start_ns", "skew_ns", "last_rank", "wait_ns", "end_ns", "max_duration_ns"});
    for (size_t i = 0; i < m.collectives.size(); ++i) {
        const auto& x = m.collectives[i];
        w.row({std::to_string(i), std::string(collectiveName(x.type)), x.comm,
               std::to_string(x.sequence), std::to_string(x.members.size()),
               x.bytes ? std::to_string(x.bytes) : std::string(), ns(x.firstStart), ns(x.lastStart),
               ns(x.skew()), std::to_string(x.lastRank), ns(x.waited), ns(x.end),
               ns(x.maxDuration)});
    }
}

// rank_iter_sum: each rank's time per iteration (its range, and the GPU span of the work it
// launched inside), the slowest rank of each (on the GPU) marked.
void writeRankIterations(TableWriter& w, const std::vector<RankIterationRow>& rows) {
    w.header({"iteration", "rank", "name", "start_ns", "end_ns", "gpu_start_ns", "gpu_end_ns",
              "gpu_duration_ns", "slowest"});
    for (const auto& r : rows)
        w.row({std::to_string(r.iteration), std::to_string(r.rank), r.name, ns(r.start), ns(r.end),
               ns(r.gpuStart), ns(r.gpuEnd), ns(r.duration()), r.slowest ? "yes" : ""});
}

// mem_time_sum, mem_size_sum, gpu_sum: nsys 2022.4 gpumemtimesum, gpumemsizesum, gpusum.
void writeMemorySummary(TableWriter& w, const Trace& t, const std::string& report) {
    if (report == "mem_size_sum") {
        w.header({"Total (MB)", "Count", "Avg (MB)", "Med (MB)", "Min (MB)", "Max (MB)",
                  "StdDev (MB)", "Operation"});
        for (const auto& r : memorySizeSummary(t)) {
            const auto& b = r.bytes;
            w.row({formatMegabytes(static_cast<double>(b.total)), std::to_string(b.count),
                   formatMegabytes(b.avg), formatMegabytes(b.median),
                   formatMegabytes(static_cast<double>(b.min)),
                   formatMegabytes(static_cast<double>(b.max)), formatMegabytes(b.stddev),
                   r.operation});
        }
        return;
    }
    const bool gpu = report == "gpu_sum";
    std::vector<std::string> header = {"Time (%)", "Total Time (ns)", gpu ? "Instances" : "Count",
                                       "Avg (ns)", "Med (ns)",        "Min (ns)",
                                       "Max (ns)", "StdDev (ns)"};
    if (gpu) header.emplace_back("Category");
    header.emplace_back("Operation");
    w.header(header);
    auto fields = [](const SummaryRow& r) {
        std::vector<std::string> f = {formatOneDecimal(r.percent)};
        for (auto& s : statsFields(r.stats)) f.push_back(std::move(s));
        return f;
    };
    if (gpu) {
        for (const auto& r : gpuSummary(t)) {
            auto f = fields(r.row);
            f.push_back(r.kernel ? "CUDA_KERNEL" : "MEMORY_OPER");
            f.push_back(r.row.name);
            w.row(std::move(f));
        }
        return;
    }
    for (const auto& r : memoryTimeSummary(t)) {
        auto f = fields(r);
        f.push_back(r.name);
        w.row(std::move(f));
    }
}

// kern_exec_sum: nsys 2022.4 kernexecsum. Statistics over no value (no launch was queued) print
// as nsys prints them: None, and 0.0 for the deviation.
void writeKernelExecSummary(TableWriter& w, const Trace& t) {
    std::vector<std::string> header = {"PID", "TID", "DevId", "Count", "QCount"};
    for (const char* p : {"T", "A", "Q", "K"})
        for (const char* s : {"Avg", "Med", "Min", "Max", "StdDev"})
            header.push_back(std::string(p) + s + " (ns)");
    header.insert(header.end(), {"API Name", "Kernel Name"});
    w.header(header);
    for (const auto& r : kernelExecSummary(t)) {
        std::vector<std::string> f = {std::to_string(r.pid), std::to_string(r.tid),
                                      std::to_string(r.device), std::to_string(r.total.count),
                                      std::to_string(r.queued)};
        for (const DurationStats* s : {&r.total, &r.call, &r.queue, &r.kernelTime}) {
            if (s->count == 0) {
                f.insert(f.end(), {"None", "None", "None", "None", "0.0"});
                continue;
            }
            f.insert(f.end(),
                     {formatOneDecimal(s->avg), formatOneDecimal(s->median), std::to_string(s->min),
                      std::to_string(s->max), formatOneDecimal(s->stddev)});
        }
        f.push_back(r.api);
        f.push_back(std::string(t.str(r.kernel)));
        w.row(std::move(f));
    }
}

// launch_sum: launch-bound kernels (shorter on the GPU than their launch call on the CPU) per
// layer, direction and op.
void writeLaunchBound(TableWriter& w, const Trace& t) {
    w.header({"layer", "direction", "op", "kernels", "launch_bound", "launch_bound_pct",
              "kernel_time_ns", "launch_time_ns"});
    for (const auto& r : launchBoundSummary(t))
        w.row({r.layer, std::string(directionName(r.direction)), r.op, std::to_string(r.kernels),
               std::to_string(r.launchBound),
               percent(100.0 * static_cast<double>(r.launchBound) / static_cast<double>(r.kernels)),
               std::to_string(r.kernelTime), std::to_string(r.launchTime)});
}

// iter_sum: one row per iteration (its CPU span, then the GPU span of the work it launched and
// how the GPU spent it), an outlier column, then the median row (no start or end).
void writeIterationSummary(TableWriter& w, const Trace& t) {
    w.header({"iteration", "start_ns", "end_ns", "gpu_start_ns", "gpu_end_ns", "gpu_duration_ns",
              "kernels", "gpu_busy_ns", "gpu_busy_pct", "forward_ns", "backward_ns", "optimizer_ns",
              "comm_ns", "idle_ns", "outlier"});
    const IterationSummary s = iterationSummary(t);
    auto fields = [](const IterationRow& r, bool median) {
        auto at = [median](TimeNs v) { return median ? std::string() : std::to_string(v); };
        return std::vector<std::string>{r.name,
                                        at(r.start),
                                        at(r.end),
                                        at(r.gpuStart),
                                        at(r.gpuEnd),
                                        std::to_string(r.duration()),
                                        std::to_string(r.kernels),
                                        std::to_string(r.busy),
                                        percent(r.busyPercent()),
                                        std::to_string(r.forward),
                                        std::to_string(r.backward),
                                        std::to_string(r.optimizer),
                                        std::to_string(r.comm),
                                        std::to_string(r.idle),
                                        median ? "" : (r.outlier ? "yes" : "no")};
    };
    for (const auto& r : s.rows) w.row(fields(r, false));
    if (!s.rows.empty()) w.row(fields(s.median, true));
}

// idle_sum: idle time per device by cause and detail, with the device's busy time and span
// repeated on each of its rows (idle + busy = span per device).
void writeIdleSummary(TableWriter& w, const Trace& t) {
    w.header({"device", "cause", "hta_category", "detail", "gaps", "idle_ns", "idle_pct",
              "device_busy_ns", "device_span_ns"});
    const GpuIdle idle = gpuIdle(t);
    for (const IdleRow& r : idleSummary(idle)) {
        const auto d = std::find_if(idle.devices.begin(), idle.devices.end(),
                                    [&](const DeviceBusy& b) { return b.device == r.device; });
        w.row({std::to_string(r.device), std::string(idleCauseName(r.cause)),
               std::string(idleCauseHtaName(r.cause)), r.detail, std::to_string(r.gaps),
               std::to_string(r.idle), percent(r.percent), std::to_string(d->busy),
               std::to_string(d->span())});
    }
}

// gaps: the largest gaps (at most kMaxGaps), longest first.
void writeGaps(TableWriter& w, const Trace& t) {
    constexpr size_t kMaxGaps = 100;
    w.header(
        {"device", "start_ns", "end_ns", "duration_ns", "cause", "detail", "op", "tid", "next"});
    GpuIdle idle = gpuIdle(t);
    auto& gaps = idle.gaps;
    const size_t n = std::min(kMaxGaps, gaps.size());
    std::partial_sort(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(n), gaps.end(),
                      [](const GpuGap& a, const GpuGap& b) {
                          return a.duration() != b.duration()
                                     ? a.duration() > b.duration()
                                     : std::pair(a.device, a.start) < std::pair(b.device, b.start);
                      });
    for (size_t i = 0; i < n; ++i) {
        const GpuGap& g = gaps[i];
        w.row({std::to_string(g.device), std::to_string(g.start), std::to_string(g.end),
               std::to_string(g.duration()), std::string(idleCauseName(g.cause)),
               std::string(g.detail), std::string(g.op), g.tid ? std::to_string(g.tid) : "",
               std::string(g.next)});
    }
}

// rank_sum, collective_sum, rank_iter_sum and kern_sum over a session, from each trace's summary
// (core/job): from a job file, or from the traces loaded one after another with only the
// report's parts, each released once summarised.
int writeSessionReport(const Options& o, Context& c, TableFormat format,
                       const std::string& report) {
    int rc = kOk;
    job::SummarySession s;
    if (o.positional.size() == 1 && job::isJobFile(o.positional.front())) {
        job::JobFile f = job::readJobFile(o.positional.front());
        if (!f.error.empty()) {
            c.err << "error: " << f.error << "\n";
            return kUnreadable;
        }
        s = std::move(f.summaries);
    } else {
        std::vector<SessionFailure> failed;
        const auto files = expandSessionInputs(o.positional, failed);
        job::SummariseOptions options;
        const LoadOptions load = cliLoadOptions(o);
        options.useCache = !load.cacheDir.empty();
        options.cacheDir = load.cacheDir;
        s = job::assembleSummaries(job::summariseFiles(files, options, report),
                                   report == "kern_sum");
        failed.insert(failed.end(), s.session.failed.begin(), s.session.failed.end());
        s.session.failed = std::move(failed);
    }
    for (const auto& f : s.session.failed) c.err << "error: " << f.file << ": " << f.reason << "\n";
    rc = s.session.failed.empty() ? kOk : kUnreadable;
    if (s.traces.empty()) return rc;
    TableWriter w(c.out, format);
    if (report == "rank_sum")
        writeRankSummary(w, job::rankTimeSummary(s));
    else if (report == "collective_sum")
        writeCollectiveSummary(w, job::matchCollectives(s));
    else if (report == "rank_iter_sum")
        writeRankIterations(w, job::rankIterations(s));
    else {
        const Session labels = job::kernelRankSession(s);
        for (uint32_t i = 0; i < s.traces.size(); ++i) {
            if (s.traces.size() > 1)
                w.setLeadingColumns({"file", "rank"}, {s.traces[i].file, rankText(labels, i)});
            writeDurationRows(w, s.traces[i].kernSum, false, false);
        }
    }
    w.finish();
    return rc;
}

// overview, model, distribution, operator, kernel_table: Paddle's summary tables
// (core/reports/summary_tables), as CSV/TSV rows or, with --format table, as Paddle prints them.
int writeSummaryTables(const Options& o, Context& c, TableFormat format,
                       const std::string& report) {
    if (!isSummaryTableReport(report)) {
        c.err << "error: --sort and --time-unit go with --report overview, model, distribution, "
                 "operator or kernel_table\n";
        return kUsage;
    }
    const std::string sortText =
        o.get("sort", report == "kernel_table" ? "gpu_total" : "cpu_total");
    const auto sort = parseSummarySort(sortText);
    if (!sort) {
        c.err << "error: --sort must be one of cpu_total, cpu_avg, cpu_max, cpu_min, gpu_total, "
                 "gpu_avg, gpu_max, gpu_min\n";
        return kUsage;
    }
    const auto unit = parseSummaryTimeUnit(o.get("time-unit", "ms"));
    if (!unit) {
        c.err << "error: --time-unit must be s, ms, us or ns\n";
        return kUsage;
    }
    int rc = kOk;
    const auto session = loadSessionForCommand(o, c, rc, reportLoadParts(report));
    if (!session) return rc;
    TableWriter w(c.out, format);
    for (uint32_t i = 0; i < session->traces.size(); ++i) {
        const SummaryTable table = summaryTable(*session->traces[i].trace, report, *sort);
        if (format == TableFormat::Text) {
            if (session->traces.size() > 1)
                c.out << session->traces[i].file << " (rank " << rankText(*session, i) << ")\n";
            c.out << formatSummaryTableText(table, *unit) << "\n";
            continue;
        }
        if (session->traces.size() > 1)
            w.setLeadingColumns({"file", "rank"}, {session->traces[i].file, rankText(*session, i)});
        writeSummaryTableRows(w, table);
    }
    w.finish();
    return rc;
}

} // namespace

int commandSummary(const Options& o, Context& c) {
    const auto format = formatOption(o, c);
    const std::string report = o.get("report", "");
    if (!format) return kUsage;
    static const std::set<std::string> reports = {
        "kern_sum",     "gpukernsum",     "api_sum",       "nvtx_kern_sum", "nvtx_sum",
        "layer_sum",    "op_sum",         "tc_sum",        "layer_tree",    "ncu_match",
        "rank_sum",     "collective_sum", "rank_iter_sum", "iter_sum",      "idle_sum",
        "gaps",         "mem_time_sum",   "mem_size_sum",  "gpu_sum",       "kern_exec_sum",
        "launch_sum",   "osrt_sum",       "roofline",      "nvtx_gpu_proj", "gpu_trace",
        "api_trace",    "overview",       "model",         "distribution",  "operator",
        "kernel_table", "memory",         "memory_live"};
    if (!reports.count(report)) {
        c.err << "error: --report must be one of kern_sum, gpukernsum, api_sum, nvtx_kern_sum, "
                 "nvtx_sum, layer_sum, op_sum, tc_sum, "
                 "layer_tree, ncu_match, rank_sum, collective_sum, rank_iter_sum, iter_sum, "
                 "idle_sum, gaps, mem_time_sum, mem_size_sum, gpu_sum, kern_exec_sum, launch_sum, "
                 "osrt_sum, roofline, "
                 "nvtx_gpu_proj, gpu_trace, api_trace, overview, model, distribution, operator, "
                 "kernel_table, memory, memory_live\n";
        return kUsage;
    }
    if (o.values.count("by") && report == "memory") {
        if (o.get("by", "") != "op" && o.get("by", "") != "layer") {
            c.err << "error: --by goes with --report memory as op or layer\n";
            return kUsage;
        }
    } else if (o.values.count("by") &&
               (report != "roofline" || !isRooflineGrouping(o.get("by", "")))) {
        c.err << "error: --by goes with --report roofline (family, op, layer or kernel) or "
                 "memory (op or layer)\n";
        return kUsage;
    }
    if ((report == "ncu_match") != (o.values.count("ncu") > 0)) {
        c.err << "error: --report ncu_match and --ncu CSV go together\n";
        return kUsage;
    }
    for (const auto& input : o.positional)
        if (job::isJobFile(input) && (o.positional.size() > 1 || !job::isSummaryReport(report))) {
            c.err << "error: " << input << ": a job file answers --report " << job::kSummaryReports
                  << ", alone\n";
            return kUsage;
        }
    if (isSummaryTableReport(report) || o.values.count("sort") || o.values.count("time-unit"))
        return writeSummaryTables(o, c, *format, report);
    if (job::isSummaryReport(report)) return writeSessionReport(o, c, *format, report);
    int rc = kOk;
    if (report == "ncu_match") {
        const auto loaded = loadWithNcu(o, c, rc);
        if (!loaded.trace) return rc;
        TableWriter w(c.out, *format);
        writeNcuMatch(w, *loaded.ncu);
        w.finish();
        return kOk;
    }
    const auto session = loadSessionForCommand(o, c, rc, reportLoadParts(report));
    if (!session) return rc;
    const MemoryGrouping memoryGrouping =
        o.get("by", "op") == "layer" ? MemoryGrouping::Layer : MemoryGrouping::Op;
    TableWriter w(c.out, *format);
    for (uint32_t i = 0; i < session->traces.size(); ++i) {
        // Several traces: one table, each trace's rows led by its file and ranks.
        if (session->traces.size() > 1)
            w.setLeadingColumns({"file", "rank"}, {session->traces[i].file, rankText(*session, i)});
        const Trace& t = *session->traces[i].trace;
        if (report == "nvtx_kern_sum")
            writeNvtxKernSummary(w, t);
        else if (report == "nvtx_sum")
            writeNvtxSummary(w, t);
        else if (report == "layer_sum")
            writeGpuTimeSummary(w, layerSummary(t), false);
        else if (report == "op_sum")
            writeGpuTimeSummary(w, opSummary(t), true);
        else if (report == "tc_sum")
            writeTcSummary(w, t);
        else if (report == "layer_tree")
            writeLayerTree(w, t);
        else if (report == "iter_sum")
            writeIterationSummary(w, t);
        else if (report == "roofline")
            writeRooflineReport(w, t, o.get("by", "family"));
        else if (report == "idle_sum")
            writeIdleSummary(w, t);
        else if (report == "gaps")
            writeGaps(w, t);
        else if (report == "mem_time_sum" || report == "mem_size_sum" || report == "gpu_sum")
            writeMemorySummary(w, t, report);
        else if (report == "kern_exec_sum")
            writeKernelExecSummary(w, t);
        else if (report == "launch_sum")
            writeLaunchBound(w, t);
        else if (report == "nvtx_gpu_proj")
            writeNvtxGpuProjection(w, t);
        else if (report == "gpu_trace")
            writeGpuTrace(w, t);
        else if (report == "api_trace")
            writeApiTrace(w, t);
        else if (report == "memory" && *format == TableFormat::Text)
            c.out << formatMemoryText(t, memoryGrouping);
        else if (report == "memory")
            writeMemoryRows(w, t, memoryGrouping);
        else if (report == "memory_live")
            writeLiveAtPeakRows(w, t);
        else
            writeDurationSummary(w, t, report);
    }
    w.finish();
    return rc;
}

} // namespace ls::cli
