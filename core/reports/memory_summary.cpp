#include "core/reports/memory_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace ls {
namespace {

std::string operationOf(CopyKind k) { return "[CUDA memcpy " + std::string(copyKindName(k)) + "]"; }
const std::string kMemset = "[CUDA memset]";

// Durations and sizes per operation name.
struct Samples {
    std::vector<int64_t> durations, bytes;
};

std::map<std::string, Samples> memorySamples(const Trace& t) {
    std::map<std::string, Samples> out;
    for (size_t i = 0; i < t.memcpys.size(); ++i) {
        auto& s = out[operationOf(t.memcpys.kind[i])];
        s.durations.push_back(t.memcpys.duration(i));
        s.bytes.push_back(static_cast<int64_t>(t.memcpys.bytes[i]));
    }
    for (size_t i = 0; i < t.memsets.size(); ++i) {
        auto& s = out[kMemset];
        s.durations.push_back(t.memsets.duration(i));
        s.bytes.push_back(static_cast<int64_t>(t.memsets.bytes[i]));
    }
    return out;
}

void setPercent(std::vector<SummaryRow>& rows) {
    uint64_t all = 0;
    for (const auto& r : rows) all += r.stats.total;
    for (auto& r : rows)
        r.percent = all ? 100.0 * static_cast<double>(r.stats.total) / static_cast<double>(all) : 0;
}

bool byTotalThenName(const SummaryRow& a, const SummaryRow& b) {
    return a.stats.total != b.stats.total ? a.stats.total > b.stats.total : a.name < b.name;
}

} // namespace

std::vector<SummaryRow> memoryTimeSummary(const Trace& t) {
    std::vector<SummaryRow> rows;
    for (auto& [name, s] : memorySamples(t)) {
        SummaryRow r;
        r.name = name;
        r.stats = durationStats(s.durations);
        rows.push_back(std::move(r));
    }
    setPercent(rows);
    std::sort(rows.begin(), rows.end(), byTotalThenName);
    return rows;
}

std::vector<MemorySizeRow> memorySizeSummary(const Trace& t) {
    std::vector<MemorySizeRow> rows;
    for (auto& [name, s] : memorySamples(t)) rows.push_back({name, durationStats(s.bytes)});
    std::sort(rows.begin(), rows.end(), [](const MemorySizeRow& a, const MemorySizeRow& b) {
        return a.bytes.total != b.bytes.total ? a.bytes.total > b.bytes.total
                                              : a.operation < b.operation;
    });
    return rows;
}

std::vector<GpuSumRow> gpuSummary(const Trace& t) {
    std::vector<GpuSumRow> rows;
    for (auto& r : kernelSummary(t, KernelGrouping::Name, KernelNaming::Demangled))
        rows.push_back({std::move(r), true});
    for (auto& r : memoryTimeSummary(t)) rows.push_back({std::move(r), false});
    uint64_t all = 0;
    for (const auto& r : rows) all += r.row.stats.total;
    for (auto& r : rows)
        r.row.percent =
            all ? 100.0 * static_cast<double>(r.row.stats.total) / static_cast<double>(all) : 0;
    std::stable_sort(rows.begin(), rows.end(), [](const GpuSumRow& a, const GpuSumRow& b) {
        return byTotalThenName(a.row, b.row);
    });
    return rows;
}

std::string formatMegabytes(double bytes) {
    const double mb =
        std::round(bytes / 1e6 * 1000.0) / 1000.0; // SQLite's ROUND: halves away from zero
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", mb);
    return buf;
}

} // namespace ls
