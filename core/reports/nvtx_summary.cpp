#include "core/reports/nvtx_summary.h"

#include "core/pytorch/correlation.h"
#include "core/reports/nvtx_kern_summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace ls {
namespace {

uint64_t totalKernelTime(const Trace& t) {
    uint64_t total = 0;
    for (size_t i = 0; i < t.kernels.size(); ++i)
        total += static_cast<uint64_t>(t.kernels.duration(i));
    return total;
}

void addKernel(const Trace& t, GpuTimeRow& row, uint32_t i) {
    const auto d = static_cast<uint64_t>(t.kernels.duration(i));
    ++row.kernels;
    row.gpuTimeNs += d;
    if (std::isfinite(t.metrics.flops[i])) {
        row.flops += t.metrics.flops[i];
        ++row.kernelsWithFlops;
        row.flopsTimeNs += d;
    }
    if (t.metrics.tc[i] == TcState::Used) row.tcTimeNs += d;
}

void setShares(std::vector<GpuTimeRow>& rows, uint64_t total) {
    for (auto& r : rows)
        r.percent =
            total ? 100.0 * static_cast<double>(r.gpuTimeNs) / static_cast<double>(total) : 0.0;
    std::sort(rows.begin(), rows.end(), [](const GpuTimeRow& a, const GpuTimeRow& b) {
        return std::tie(b.gpuTimeNs, a.name, a.direction) <
               std::tie(a.gpuTimeNs, b.name, b.direction);
    });
}

} // namespace

std::vector<NvtxRangeRow> nvtxRangeSummary(const Trace& t) {
    const auto& r = t.ranges;
    std::map<std::pair<uint32_t, RangeKind>, std::vector<int64_t>> groups;
    for (uint32_t i = 0; i < r.size(); ++i)
        if (r.kind[i] != RangeKind::Mark)
            groups[{r.name[i].value, r.kind[i]}].push_back(r.end[i] - r.start[i]);
    std::vector<NvtxRangeRow> rows;
    long double all = 0;
    for (auto& [key, d] : groups) {
        NvtxRangeRow row;
        row.name = std::string(t.str(StringId(key.first)));
        row.style = rangeStyleName(key.second);
        row.stats = durationStats(d);
        all += row.stats.total;
        rows.push_back(std::move(row));
    }
    for (auto& row : rows)
        row.percent = all > 0 ? static_cast<double>(100.0L * row.stats.total / all) : 0.0;
    std::sort(rows.begin(), rows.end(), [](const NvtxRangeRow& a, const NvtxRangeRow& b) {
        return std::tie(b.stats.total, a.name, a.style) < std::tie(a.stats.total, b.name, b.style);
    });
    return rows;
}

std::vector<GpuTimeRow> layerSummary(const Trace& t) {
    std::map<std::pair<uint32_t, Direction>, GpuTimeRow> groups;
    const auto& links = t.kernelLinks;
    for (uint32_t i = 0; i < t.kernels.size(); ++i) {
        auto& row = groups[{links.layer[i].value, links.direction[i]}];
        row.direction = links.direction[i];
        row.name = links.layer[i].valid() ? std::string(t.str(links.layer[i])) : "(none)";
        addKernel(t, row, i);
    }
    std::vector<GpuTimeRow> rows;
    rows.reserve(groups.size());
    for (auto& [key, row] : groups) rows.push_back(std::move(row));
    setShares(rows, totalKernelTime(t));
    return rows;
}

std::vector<GpuTimeRow> opSummary(const Trace& t) {
    std::map<std::pair<uint32_t, Direction>, GpuTimeRow> groups;
    std::map<std::pair<uint32_t, Direction>, std::vector<uint32_t>> instances;
    const auto& links = t.kernelLinks;
    for (uint32_t i = 0; i < t.kernels.size(); ++i) {
        const OpId op = links.opInstance[i];
        const uint32_t name =
            op.valid() ? t.ranges.name[t.ops.range[op.value].value].value : UINT32_MAX;
        const auto key = std::make_pair(name, links.direction[i]);
        auto& row = groups[key];
        row.direction = links.direction[i];
        row.name = op.valid() ? std::string(t.str(StringId(name))) : "(none)";
        addKernel(t, row, i);
        if (op.valid()) instances[key].push_back(op.value);
    }
    std::vector<GpuTimeRow> rows;
    for (auto& [key, row] : groups) {
        auto& ids = instances[key];
        std::sort(ids.begin(), ids.end());
        row.instances = static_cast<uint64_t>(std::unique(ids.begin(), ids.end()) - ids.begin());
        rows.push_back(std::move(row));
    }
    setShares(rows, totalKernelTime(t));
    return rows;
}

std::vector<TcRow> tensorCoreSummary(const Trace& t) {
    std::map<std::pair<uint32_t, TcState>, TcRow> groups;
    std::map<uint32_t, uint64_t> deviceTime;
    for (uint32_t i = 0; i < t.kernels.size(); ++i) {
        const uint32_t device = t.streamOf(t.kernels, i).device;
        auto& row = groups[{device, t.metrics.tc[i]}];
        row.device = device;
        row.state = t.metrics.tc[i];
        ++row.kernels;
        row.gpuTimeNs += static_cast<uint64_t>(t.kernels.duration(i));
        deviceTime[device] += static_cast<uint64_t>(t.kernels.duration(i));
    }
    std::vector<TcRow> rows;
    for (auto& [key, row] : groups) {
        const uint64_t all = deviceTime[row.device];
        row.percent =
            all ? 100.0 * static_cast<double>(row.gpuTimeNs) / static_cast<double>(all) : 0;
        rows.push_back(row);
    }
    return rows;
}

} // namespace ls
