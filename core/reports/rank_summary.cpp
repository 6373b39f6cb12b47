#include "core/reports/rank_summary.h"

#include "core/reports/intervals.h"

#include <algorithm>

namespace ls {

KernelCollectives::KernelCollectives(const Trace& t) : t_(t), byName_(t.strings.size(), Collective::None) {
    std::vector<uint8_t> seen(byName_.size(), 0);
    for (const StringId name : t.kernels.name) {
        if (!name.valid() || name.value >= byName_.size() || seen[name.value]) continue;
        seen[name.value] = 1;
        byName_[name.value] = collectiveOfKernel(t.str(name));
    }
}

std::vector<RankTimeRow> rankTimeSummary(const Session& session) {
    std::vector<RankTimeRow> rows;
    std::vector<std::unique_ptr<KernelCollectives>> collectives(session.traces.size());
    for (const SessionRank& r : session.ranks) {
        const Trace& t = *session.traces[r.trace].trace;
        if (!collectives[r.trace]) collectives[r.trace] = std::make_unique<KernelCollectives>(t);
        RankTimeRow row;
        row.rank = r.rank;
        row.host = r.host;
        row.pid = r.process.valid() && r.process.value < t.processes.size() ? t.processes[r.process.value].pid : 0;
        row.device = r.device;
        std::vector<Interval> compute, comm;
        TimeNs first = 0, last = 0;
        const auto& k = t.kernels;
        for (uint32_t i = 0; i < k.size(); ++i) {
            if (k.process[i] != r.process || k.device[i] != r.device) continue;
            first = row.kernels ? std::min(first, k.start[i]) : k.start[i];
            last = row.kernels ? std::max(last, k.end[i]) : k.end[i];
            ++row.kernels;
            if (collectives[r.trace]->of(KernelId(i)) != Collective::None) {
                comm.push_back({k.start[i], k.end[i]});
                ++row.commKernels;
            } else {
                compute.push_back({k.start[i], k.end[i]});
            }
        }
        const auto computeUnion = unionOf(std::move(compute)), commUnion = unionOf(std::move(comm));
        row.span = row.kernels ? last - first : 0;
        row.compute = lengthOf(computeUnion);
        row.comm = lengthOf(commUnion);
        row.overlap = intersectionLength(computeUnion, commUnion);
        row.exposedComm = row.comm - row.overlap;
        row.busy = row.compute + row.exposedComm;
        row.idle = row.span - row.busy;
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace ls
