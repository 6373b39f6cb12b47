#include "core/reports/rank_summary.h"

#include "core/reports/intervals.h"

#include <algorithm>
#include <memory>

namespace ls {

KernelCollectives::KernelCollectives(const Trace& t)
    : t_(t), byName_(t.strings.size(), Collective::None) {
    std::vector<uint8_t> seen(byName_.size(), 0);
    for (const StringId name : t.kernels.name) {
        if (!name.valid() || name.value >= byName_.size() || seen[name.value]) continue;
        seen[name.value] = 1;
        byName_[name.value] = collectiveOfKernel(t.str(name));
    }
}

namespace {

// One rank's GPU work: kernel counts, the first start and last end and the length of the union of
// all its work (kernels, copies and sets: a copy keeps the GPU busy, as in gpu_idle and HTA), and
// the unions of compute and of communication kernel intervals on the trace's own clock.
struct RankKernels {
    uint64_t kernels = 0, commKernels = 0;
    bool any = false; // any GPU work at all
    TimeNs first = 0, last = 0, busyTime = 0;
    RankBusy busy;
};

RankKernels kernelsOfRank(const Trace& t, ProcessId process, uint32_t device,
                          const KernelCollectives& kc) {
    RankKernels out;
    std::vector<Interval> compute, comm, copies;
    const auto ofRank = [&](const GpuOpColumns& c, uint32_t i) {
        if (const Stream& st = t.streamOf(c, i); st.process != process || st.device != device)
            return false;
        out.first = out.any ? std::min(out.first, c.start[i]) : c.start[i];
        out.last = out.any ? std::max(out.last, c.end[i]) : c.end[i];
        return out.any = true;
    };
    const auto& k = t.kernels;
    compute.reserve(k.size()); // pages are touched only as far as they are filled
    for (uint32_t i = 0; i < k.size(); ++i) {
        if (!ofRank(k, i)) continue;
        ++out.kernels;
        if (kc.of(KernelId(i)) != Collective::None) {
            comm.push_back({k.start[i], k.end[i]});
            ++out.commKernels;
        } else {
            compute.push_back({k.start[i], k.end[i]});
        }
    }
    std::vector<Interval> sets;
    for (uint32_t i = 0; i < t.memcpys.size(); ++i)
        if (ofRank(t.memcpys, i)) copies.push_back({t.memcpys.start[i], t.memcpys.end[i]});
    for (uint32_t i = 0; i < t.memsets.size(); ++i)
        if (ofRank(t.memsets, i)) sets.push_back({t.memsets.start[i], t.memsets.end[i]});
    out.busy = {unionOf(std::move(compute)), unionOf(std::move(comm))};
    // Four lists, each in order of starts (the model keeps GPU tables so; unions are): merged
    // as read, not concatenated and sorted (a second per 5M kernels).
    const auto sorted = [](std::vector<Interval>& v) {
        if (!std::is_sorted(v.begin(), v.end(),
                            [](const Interval& a, const Interval& b) { return a.start < b.start; }))
            v = unionOf(std::move(v));
        return &v;
    };
    out.busyTime =
        unionLengthOfSorted({sorted(copies), sorted(sets), &out.busy.compute, &out.busy.comm});
    return out;
}

template <typename F> void forEachRank(const Session& session, F&& f) {
    std::vector<std::unique_ptr<KernelCollectives>> collectives(session.traces.size());
    for (const SessionRank& r : session.ranks) {
        const Trace& t = *session.traces[r.trace].trace;
        if (!collectives[r.trace]) collectives[r.trace] = std::make_unique<KernelCollectives>(t);
        f(r, t, *collectives[r.trace]);
    }
}

} // namespace

RankTimes rankTimesOf(const Trace& t, ProcessId process, uint32_t device,
                      const KernelCollectives& kc, RankBusy* busy) {
    RankKernels k = kernelsOfRank(t, process, device, kc);
    RankTimes out;
    out.kernels = k.kernels;
    out.commKernels = k.commKernels;
    out.span = k.any ? k.last - k.first : 0;
    out.compute = lengthOf(k.busy.compute);
    out.comm = lengthOf(k.busy.comm);
    out.overlap = intersectionLength(k.busy.compute, k.busy.comm);
    out.busy = k.busyTime;
    if (busy) *busy = std::move(k.busy);
    return out;
}

uint32_t pidOf(const Trace& t, ProcessId process) {
    return process.valid() && process.value < t.processes.size() ? t.processes[process.value].pid
                                                                 : 0;
}

RankTimeRow rankTimeRow(const SessionRank& r, uint32_t pid, const RankTimes& k) {
    RankTimeRow row;
    row.rank = r.rank;
    row.host = r.host;
    row.pid = pid;
    row.device = r.device;
    row.kernels = k.kernels;
    row.commKernels = k.commKernels;
    row.span = k.span;
    row.compute = k.compute;
    row.comm = k.comm;
    row.overlap = k.overlap;
    row.exposedComm = row.comm - row.overlap;
    row.busy = k.busy;
    row.idle = row.span - row.busy;
    return row;
}

std::vector<RankTimeRow> rankTimeSummary(const Session& session, std::vector<RankBusy>* busy) {
    std::vector<RankTimeRow> rows;
    if (busy) busy->clear();
    forEachRank(session, [&](const SessionRank& r, const Trace& t, const KernelCollectives& kc) {
        RankBusy lanes;
        rows.push_back(
            rankTimeRow(r, pidOf(t, r.process), rankTimesOf(t, r.process, r.device, kc, &lanes)));
        if (!busy) return;
        const TimeNs offset = session.traces[r.trace].offsetNs;
        for (auto* lane : {&lanes.compute, &lanes.comm})
            for (Interval& i : *lane) {
                i.start += offset;
                i.end += offset;
            }
        busy->push_back(std::move(lanes));
    });
    return rows;
}

std::vector<RankBusy> rankBusyIntervals(const Session& session) {
    std::vector<RankBusy> busy;
    rankTimeSummary(session, &busy);
    return busy;
}

} // namespace ls
