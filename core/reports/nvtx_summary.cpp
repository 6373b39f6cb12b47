#include "core/reports/nvtx_summary.h"

#include "core/model/columns.h"
#include "core/pytorch/correlation.h"
#include "core/import/raw_text.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace ls {
namespace {

std::string_view styleName(RangeKind k) { return k == RangeKind::StartEnd ? "StartEnd" : "PushPop"; }

uint64_t totalKernelTime(const Trace& t) {
    uint64_t total = 0;
    for (size_t i = 0; i < t.kernels.size(); ++i) total += static_cast<uint64_t>(t.kernels.duration(i));
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
    for (auto& r : rows) r.percent = total ? 100.0 * static_cast<double>(r.gpuTimeNs) / static_cast<double>(total) : 0.0;
    std::sort(rows.begin(), rows.end(), [](const GpuTimeRow& a, const GpuTimeRow& b) {
        return std::tie(b.gpuTimeNs, a.name, a.direction) < std::tie(a.gpuTimeNs, b.name, b.direction);
    });
}

} // namespace

std::vector<NvtxKernRow> nvtxKernelSummary(const Trace& t) {
    const auto& k = t.kernels;
    const auto& r = t.ranges;
    // One (thread, range, kernel) triple per range of each kernel's stack, sorted so that equal
    // groups are adjacent: a flat sort instead of a heap-allocated group per marker instance
    // (op_id makes nearly every PyTorch marker its own group).
    struct Pair {
        uint32_t thread, range, kernel;
    };
    std::vector<Pair> pairs;
    std::vector<uint32_t> outside; // kernels under no range: (launch thread or none, kernel name)
    for (uint32_t i = 0; i < k.size(); ++i) {
        const ApiCallId call = k.launch[i];
        const auto stack = rangesContaining(t, call);
        if (stack.empty()) outside.push_back(i);
        for (RangeId j : stack) pairs.push_back({t.apiCalls.thread[call.value].value, j.value, i});
    }
    // Ranges whose texts are equal share these fields; op_id makes a PyTorch marker unique and
    // "seq" and "stashed seq" texts differ.
    constexpr uint8_t kTextFlags = kSeqIsStashed | kPytorchMarker;
    auto key = [&](const Pair& p) {
        return std::make_tuple(p.thread, r.name[p.range].value, r.sizes[p.range].value, r.seq[p.range], r.opId[p.range],
                               r.kind[p.range], static_cast<uint8_t>(r.flags[p.range] & kTextFlags), k.name[p.kernel].value);
    };
    std::sort(pairs.begin(), pairs.end(), [&](const Pair& a, const Pair& b) {
        const auto ka = key(a), kb = key(b);
        return ka != kb ? ka < kb : std::tie(a.range, a.kernel) < std::tie(b.range, b.kernel);
    });

    RawTextReader raw(t);
    std::vector<NvtxKernRow> rows;
    std::vector<int64_t> durations;
    std::vector<uint32_t> kernels;
    auto finishRow = [&](NvtxKernRow& row) {
        std::sort(kernels.begin(), kernels.end());
        row.kernelInstances = static_cast<uint64_t>(std::unique(kernels.begin(), kernels.end()) - kernels.begin());
        row.stats = durationStats(durations);
        rows.push_back(std::move(row));
    };
    for (size_t g = 0; g < pairs.size();) {
        const auto groupKey = key(pairs[g]);
        NvtxKernRow row;
        const Thread& th = t.threads[pairs[g].thread];
        row.pid = t.processes[th.process.value].pid;
        row.tid = th.tid;
        row.range = raw.text(RangeId(pairs[g].range));
        row.style = styleName(r.kind[pairs[g].range]);
        row.kernel = k.name[pairs[g].kernel];
        durations.clear();
        kernels.clear();
        uint32_t lastRange = UINT32_MAX;
        for (; g < pairs.size() && key(pairs[g]) == groupKey; ++g) {
            if (pairs[g].range != lastRange) ++row.rangeInstances; // sorted by range within the group
            lastRange = pairs[g].range;
            durations.push_back(k.duration(pairs[g].kernel));
            kernels.push_back(pairs[g].kernel);
        }
        finishRow(row);
    }
    columns::release(pairs);

    // Kernels outside every range: one "None" row per launching thread and kernel name.
    auto outsideKey = [&](uint32_t i) {
        const ApiCallId call = k.launch[i];
        return std::make_pair(call.valid() ? t.apiCalls.thread[call.value].value : UINT32_MAX, k.name[i].value);
    };
    std::sort(outside.begin(), outside.end(), [&](uint32_t a, uint32_t b) { return outsideKey(a) < outsideKey(b); });
    for (size_t g = 0; g < outside.size();) {
        const auto groupKey = outsideKey(outside[g]);
        NvtxKernRow row;
        row.noRange = true;
        if (groupKey.first != UINT32_MAX) {
            const Thread& th = t.threads[groupKey.first];
            row.pid = t.processes[th.process.value].pid;
            row.tid = th.tid;
        }
        row.kernel = StringId(groupKey.second);
        durations.clear();
        kernels.clear();
        for (; g < outside.size() && outsideKey(outside[g]) == groupKey; ++g) {
            durations.push_back(k.duration(outside[g]));
            kernels.push_back(outside[g]);
        }
        finishRow(row);
    }

    std::sort(rows.begin(), rows.end(), [&](const NvtxKernRow& a, const NvtxKernRow& b) {
        if (a.noRange != b.noRange) return a.noRange; // nsys prints kernels outside ranges first
        if (a.range != b.range) return a.range < b.range;
        if (a.pid != b.pid) return a.pid < b.pid;
        if (a.tid != b.tid) return a.tid < b.tid;
        if (a.stats.total != b.stats.total) return a.stats.total > b.stats.total;
        return t.str(a.kernel) < t.str(b.kernel);
    });
    return rows;
}

std::vector<NvtxRangeRow> nvtxRangeSummary(const Trace& t) {
    const auto& r = t.ranges;
    std::map<std::pair<uint32_t, RangeKind>, std::vector<int64_t>> groups;
    for (uint32_t i = 0; i < r.size(); ++i)
        if (r.kind[i] != RangeKind::Mark) groups[{r.name[i].value, r.kind[i]}].push_back(r.end[i] - r.start[i]);
    std::vector<NvtxRangeRow> rows;
    long double all = 0;
    for (auto& [key, d] : groups) {
        NvtxRangeRow row;
        row.name = std::string(t.str(StringId(key.first)));
        row.style = styleName(key.second);
        row.stats = durationStats(d);
        all += row.stats.total;
        rows.push_back(std::move(row));
    }
    for (auto& row : rows) row.percent = all > 0 ? static_cast<double>(100.0L * row.stats.total / all) : 0.0;
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
        const uint32_t name = op.valid() ? t.ranges.name[t.ops.range[op.value].value].value : UINT32_MAX;
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
        const uint32_t device = t.kernels.device[i];
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
        row.percent = all ? 100.0 * static_cast<double>(row.gpuTimeNs) / static_cast<double>(all) : 0;
        rows.push_back(row);
    }
    return rows;
}

} // namespace ls
