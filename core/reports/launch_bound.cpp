#include "core/reports/launch_bound.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace ls {

bool isLaunchBound(const Trace& t, KernelId k) {
    const ApiCallId call = t.kernels.launch[k.value];
    if (!call.valid()) return false;
    return t.kernels.duration(k.value) < t.apiCalls.end[call.value] - t.apiCalls.start[call.value];
}

std::vector<LaunchBoundRow> launchBoundSummary(const Trace& t) {
    std::map<std::tuple<uint32_t, Direction, uint32_t>, LaunchBoundRow>
        groups; // layer, direction, op name ids
    const auto& links = t.kernelLinks;
    for (uint32_t k = 0; k < t.kernels.size(); ++k) {
        const OpId op = links.opInstance[k];
        const StringId opName =
            op.valid() ? t.ranges.name[t.ops.range[op.value].value] : StringId();
        auto& row = groups[{links.layer[k].value, links.direction[k], opName.value}];
        if (row.kernels == 0) {
            row.layer = links.layer[k].valid() ? std::string(t.str(links.layer[k])) : std::string();
            row.direction = links.direction[k];
            row.op = opName.valid() ? std::string(t.str(opName)) : std::string();
        }
        ++row.kernels;
        if (!isLaunchBound(t, KernelId(k))) continue;
        const ApiCallId call = t.kernels.launch[k];
        ++row.launchBound;
        row.kernelTime += t.kernels.duration(k);
        row.launchTime += t.apiCalls.end[call.value] - t.apiCalls.start[call.value];
    }
    std::vector<LaunchBoundRow> rows;
    for (auto& [key, row] : groups)
        if (row.launchBound) rows.push_back(std::move(row));
    std::sort(rows.begin(), rows.end(), [](const LaunchBoundRow& a, const LaunchBoundRow& b) {
        if (a.launchBound != b.launchBound) return a.launchBound > b.launchBound;
        return std::tie(a.layer, a.direction, a.op) < std::tie(b.layer, b.direction, b.op);
    });
    return rows;
}

} // namespace ls
