#include "app/cli/commands.h"
#include "core/cache/model_breakdown.h"
#include "core/import/ncu/ncu_metrics.h"
#include "core/model/rank_labels.h"
#include "core/reports/summary.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace ls::cli {
namespace {

std::string milliseconds(TimeNs ns) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
    return buf;
}

void printReport(const Trace& t, std::ostream& out) {
    out << "load report:\n";
    if (t.report.empty()) {
        out << "  (nothing to report)\n";
        return;
    }
    for (size_t i = 0; i < static_cast<size_t>(Anomaly::Count_); ++i) {
        const auto a = static_cast<Anomaly>(i);
        if (!t.report.count(a)) continue;
        const auto& info = anomalyInfo(a);
        out << "  " << severityName(info.severity) << " " << info.key << ": " << t.report.count(a)
            << " - " << info.sentence;
        const auto& details = t.report.details(a);
        for (size_t d = 0; d < details.size(); ++d) out << (d ? ", " : " [") << details[d];
        if (!details.empty()) out << "]";
        out << "\n";
    }
}

void printTraceInfo(const Trace& t, const NcuMetrics* ncu, std::ostream& out) {
    out << "file: " << t.displayPath() << "\n";
    out << "format: " << t.info.format << "\n";
    const auto meta = [&](std::string_view key) -> std::string {
        for (const auto& [k, v] : t.info.metadata)
            if (k == key) return v;
        return {};
    };
    if (t.info.format == "nvprof database")
        out << "exporter: nvprof (converted on load)\n";
    else if (t.info.format.starts_with("PyTorch profiler")) {
        const std::string cupti = meta("cupti_version");
        out << "exporter: PyTorch profiler (Kineto)" << (cupti.empty() ? "" : ", CUPTI " + cupti)
            << "\n";
    } else if (t.info.format.starts_with("PaddlePaddle profiler")) {
        out << "exporter: PaddlePaddle profiler (span " << meta("span_indx") << ")\n";
    } else
        out << "exporter: NVIDIA Nsight Systems "
            << (t.info.productVersion.empty() ? "(unknown version)" : t.info.productVersion)
            << "\n";
    out << "schema version: " << (t.info.schemaVersion.empty() ? "(unknown)" : t.info.schemaVersion)
        << "\n";
    if (!t.info.host.empty()) out << "host: " << t.info.host << "\n";
    if (const std::string rank = meta("distributedInfo.rank"); !rank.empty()) {
        const std::string world = meta("distributedInfo.world_size"),
                          backend = meta("distributedInfo.backend"),
                          nccl = meta("distributedInfo.nccl_version");
        out << "distributed: rank " << rank << (world.empty() ? "" : " of " + world)
            << (backend.empty() ? "" : ", backend " + backend)
            << (nccl.empty() ? "" : ", NCCL " + nccl) << "\n";
    }
    out << "capture span: " << t.captureStart << " .. " << t.captureEnd << " ns ("
        << milliseconds(t.captureEnd - t.captureStart) << ")\n";

    uint64_t runtime = 0, driver = 0, marks = 0;
    for (auto k : t.apiCalls.kind)
        (k == ApiKind::Runtime ? runtime : driver) += k != ApiKind::Other;
    for (auto k : t.ranges.kind) marks += k == RangeKind::Mark;
    out << "kernels: " << t.kernels.size() << "\n";
    out << "memcpy: " << t.memcpys.size() << "\n";
    out << "memset: " << t.memsets.size() << "\n";
    out << "api calls: " << t.apiCalls.size() << " (runtime " << runtime << ", driver " << driver
        << ")\n";
    out << "nvtx ranges: " << t.ranges.size() - marks << " (plus " << marks << " marks)\n";

    out << "processes: " << t.processes.size() << "\n";
    for (size_t p = 0; p < t.processes.size(); ++p) {
        const auto threads = std::count_if(t.threads.begin(), t.threads.end(),
                                           [&](const Thread& th) { return th.process.value == p; });
        out << "  pid " << t.processes[p].pid << " "
            << (t.processes[p].name.empty() ? "(unnamed)" : t.processes[p].name) << ": " << threads
            << " threads\n";
    }
    out << "threads: " << t.threads.size() << "\n";
    for (const auto& th : t.threads)
        out << "  tid " << th.tid << " (pid " << t.processes[th.process.value].pid << ") "
            << (th.name.empty() ? "(unnamed)" : th.name) << "\n";
    out << "devices: " << t.devices.size() << "\n";
    for (const auto& d : t.devices) {
        out << "  " << d.id << ": " << d.name;
        if (d.smCount) out << ", " << d.smCount << " SMs";
        if (d.memoryBytes) out << ", " << (d.memoryBytes >> 20) << " MiB";
        if (d.computeMajor) out << ", compute " << d.computeMajor << "." << d.computeMinor;
        out << "\n";
    }
    out << "streams: " << t.streams.size() << "\n";
    for (const auto& s : t.streams) {
        const auto [first, last] =
            t.streamKernels.of(StreamId(static_cast<uint32_t>(&s - t.streams.data())));
        out << "  device " << s.device << " context " << s.context << " stream " << s.stream << ": "
            << (last - first) << " kernels\n";
    }
    printReport(t, out);
    if (ncu)
        for (const auto& line : ncu->report()) out << line << "\n";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f s", t.loadSeconds);
    const bool cached = !t.loadPhases.empty() && t.loadPhases.front().first == "read model cache";
    out << "load time: " << buf
        << (cached ? " (from the model cache; --no-cache reads the file)" : "") << "\n";
}

// Which rank each process's work on each GPU is, where the number came from, and how the
// traces' clocks were aligned.
void printRanks(const Session& s, std::ostream& out) {
    out << "ranks: " << s.ranks.size() << "\n";
    for (const auto& r : s.ranks) {
        const Trace& t = *s.traces[r.trace].trace;
        out << "  rank " << r.rank << ": host " << (r.host.empty() ? "(unknown)" : r.host);
        if (r.process.valid() && r.process.value < t.processes.size())
            out << ", pid " << t.processes[r.process.value].pid;
        out << ", device " << r.device;
        for (const auto& d : t.devices)
            if (d.id == r.device && !d.name.empty()) out << " (" << d.name << ")";
        out << ", numbered by " << rankSourceName(r.source);
        if (s.traces.size() > 1) out << ", file " << s.traces[r.trace].file;
        out << "\n";
    }
    out << "clock alignment: " << s.clockAlignment << "\n";
}

// The model's bytes column by column (docs/performance.md): what a compaction is measured on.
void printMemory(const Trace& t, std::ostream& out) {
    const auto rows = modelBytesBreakdown(t);
    uint64_t total = 0;
    for (const auto& r : rows) total += r.bytes;
    const double kernels = static_cast<double>(std::max<size_t>(1, t.kernels.size()));
    char buf[160];
    std::snprintf(buf, sizeof buf, "model memory: %.1f MB, %.1f bytes per kernel\n",
                  static_cast<double>(total) / 1e6, static_cast<double>(total) / kernels);
    out << buf;
    out << "  table,column,rows,bytes,bytes_per_kernel\n";
    for (const auto& r : rows) {
        if (r.bytes == 0) continue;
        std::snprintf(buf, sizeof buf, "  %s,%s,%llu,%llu,%.2f\n", r.table.c_str(),
                      r.column.c_str(), static_cast<unsigned long long>(r.rows),
                      static_cast<unsigned long long>(r.bytes),
                      static_cast<double>(r.bytes) / kernels);
        out << buf;
    }
}

} // namespace

int commandInfo(const Options& o, Context& c) {
    int rc = kOk;
    std::shared_ptr<const NcuMetrics> ncu;
    std::optional<Session> s;
    if (o.values.count("ncu")) {
        auto loaded = loadWithNcu(o, c, rc);
        if (!loaded.trace) return rc;
        ncu = loaded.ncu;
        s = Session{};
        s->traces.push_back({o.positional.front(), loaded.trace, 0});
        labelRanks(*s);
        alignClocks(*s);
    } else if (!(s = loadSessionForCommand(o, c, rc))) {
        return rc;
    }
    for (size_t i = 0; i < s->traces.size(); ++i) {
        if (s->traces.size() > 1)
            c.out << (i ? "\n" : "") << "== " << s->traces[i].file << " (" << i + 1 << " of "
                  << s->traces.size() << ")\n";
        printTraceInfo(*s->traces[i].trace, ncu.get(), c.out);
        if (o.flags.count("memory")) printMemory(*s->traces[i].trace, c.out);
    }
    if (s->traces.size() > 1) c.out << "\n== session\n";
    printRanks(*s, c.out);
    return rc;
}

} // namespace ls::cli
