#include "core/job/trace_summary.h"

#include "core/job/bytes.h"
#include "core/model/load_parts.h"
#include "core/model/rank_labels.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>

namespace ls::job {
namespace {

constexpr uint32_t kSummaryMagic = 0x4d55534c; // "LSUM"

void put(ByteWriter& w, const DurationStats& s) {
    w.u64(s.total);
    w.u64(s.count);
    w.f64(s.avg);
    w.f64(s.median);
    w.f64(s.stddev);
    w.i64(s.min);
    w.i64(s.max);
}
void get(ByteReader& r, DurationStats& s) {
    s.total = r.u64();
    s.count = r.u64();
    s.avg = r.f64();
    s.median = r.f64();
    s.stddev = r.f64();
    s.min = r.i64();
    s.max = r.i64();
}

void put(ByteWriter& w, const RankUnit& u) {
    w.u32(u.process);
    w.u32(u.pid);
    w.u32(u.device);
    w.u8(u.hasKernels ? 1 : 0);
    const RankTimes& t = u.times;
    w.u64(t.kernels);
    w.u64(t.commKernels);
    for (const TimeNs v : {t.span, t.busy, t.compute, t.comm, t.overlap}) w.i64(v);
    // Communication kernels, the bulk of a summary: deltas from the previous kernel in
    // variable-length integers, process groups as indexes into a table of their names.
    std::vector<GroupName> groups;
    std::vector<uint64_t> groupOf;
    for (const CollectiveKernel& k : u.collectives) {
        auto it = std::find(groups.begin(), groups.end(), k.group);
        groupOf.push_back(static_cast<uint64_t>(it - groups.begin()));
        if (it == groups.end()) groups.push_back(k.group);
    }
    w.u64(groups.size());
    for (const GroupName& g : groups) w.text(g.name());
    w.u64(u.collectives.size());
    CollectiveKernel prev;
    prev.kernel = KernelId(0);
    for (size_t i = 0; i < u.collectives.size(); ++i) {
        const CollectiveKernel& k = u.collectives[i];
        w.u8(static_cast<uint8_t>(k.type));
        w.uvar(k.stream.value);
        // Differences in unsigned arithmetic (wrapping, never overflowing), read back the same way.
        w.svar(int64_t(k.correlation) - int64_t(prev.correlation));
        w.svar(int64_t(k.kernel.value) - int64_t(prev.kernel.value));
        w.svar(static_cast<int64_t>(uint64_t(k.start) - uint64_t(prev.start)));
        w.svar(static_cast<int64_t>(uint64_t(k.end) - uint64_t(k.start)));
        w.uvar(k.bytes);
        w.uvar(groupOf[i]);
        prev = k;
    }
    w.u64(u.iterations.size());
    for (const RankIterationRow& i : u.iterations) {
        w.pod<int32_t>(i.iteration);
        w.text(i.name);
        for (const TimeNs v : {i.start, i.end, i.gpuStart, i.gpuEnd}) w.i64(v);
    }
    // Lanes: each interval as its gap from the previous end and its length.
    for (const auto* lane : {&u.lanes.compute, &u.lanes.comm}) {
        w.u64(lane->size());
        TimeNs prevEnd = 0;
        for (const Interval& i : *lane) {
            w.svar(static_cast<int64_t>(uint64_t(i.start) - uint64_t(prevEnd)));
            w.svar(static_cast<int64_t>(uint64_t(i.end) - uint64_t(i.start)));
            prevEnd = i.end;
        }
    }
}

void get(ByteReader& r, RankUnit& u) {
    u.process = r.u32();
    u.pid = r.u32();
    u.device = r.u32();
    u.hasKernels = r.u8() != 0;
    RankTimes& t = u.times;
    t.kernels = r.u64();
    t.commKernels = r.u64();
    for (TimeNs* v : {&t.span, &t.busy, &t.compute, &t.comm, &t.overlap}) *v = r.i64();
    std::vector<GroupName> groups(r.count(4));
    for (GroupName& g : groups) g = GroupName::of(r.take(r.u32()));
    u.collectives.resize(r.count(8));
    CollectiveKernel prev;
    prev.kernel = KernelId(0);
    for (CollectiveKernel& k : u.collectives) {
        const uint8_t type = r.u8();
        if (type > static_cast<uint8_t>(Collective::Other)) r.fail();
        k.type = static_cast<Collective>(type);
        k.stream = StreamId(static_cast<uint32_t>(r.uvar()));
        k.correlation = static_cast<uint32_t>(prev.correlation + static_cast<uint64_t>(r.svar()));
        k.kernel =
            KernelId(static_cast<uint32_t>(prev.kernel.value + static_cast<uint64_t>(r.svar())));
        k.start = static_cast<TimeNs>(static_cast<uint64_t>(prev.start) +
                                      static_cast<uint64_t>(r.svar()));
        k.end =
            static_cast<TimeNs>(static_cast<uint64_t>(k.start) + static_cast<uint64_t>(r.svar()));
        k.bytes = r.uvar();
        const uint64_t g = r.uvar();
        if (g >= groups.size()) {
            r.fail();
            break;
        }
        k.group = groups[g];
        prev = k;
    }
    u.iterations.resize(r.count(40));
    for (RankIterationRow& i : u.iterations) {
        i.iteration = r.i32();
        i.name = r.text();
        for (TimeNs* v : {&i.start, &i.end, &i.gpuStart, &i.gpuEnd}) *v = r.i64();
    }
    for (auto* lane : {&u.lanes.compute, &u.lanes.comm}) {
        lane->resize(r.count(2));
        TimeNs prevEnd = 0;
        for (Interval& i : *lane) {
            i.start = static_cast<TimeNs>(static_cast<uint64_t>(prevEnd) +
                                          static_cast<uint64_t>(r.svar()));
            i.end = static_cast<TimeNs>(static_cast<uint64_t>(i.start) +
                                        static_cast<uint64_t>(r.svar()));
            prevEnd = i.end;
        }
    }
}

void putPairs(ByteWriter& w, const std::vector<std::pair<std::string, std::string>>& v) {
    w.u64(v.size());
    for (const auto& [a, b] : v) {
        w.text(a);
        w.text(b);
    }
}
void getPairs(ByteReader& r, std::vector<std::pair<std::string, std::string>>& v) {
    v.resize(r.count(8));
    for (auto& [a, b] : v) {
        a = r.text();
        b = r.text();
    }
}

// A stand-in trace for rank numbering and clock alignment: the processes, one stream per rank,
// the export's host, start time, environment and metadata.
std::shared_ptr<const Trace> standIn(const TraceSummary& s, bool kernelUnitsOnly) {
    auto t = std::make_shared<Trace>();
    t->info.host = s.host;
    t->info.epochNs = s.epochNs;
    t->info.epochKnown = s.epochKnown;
    t->info.environment = s.environment;
    t->info.metadata = s.metadata;
    for (const RankUnit& u : s.units) {
        if (kernelUnitsOnly && !u.hasKernels) continue;
        if (u.process != ProcessId::kInvalid) {
            if (t->processes.size() <= u.process) t->processes.resize(size_t(u.process) + 1);
            t->processes[u.process].pid = u.pid;
        }
        Stream st;
        st.process = ProcessId(u.process);
        st.device = u.device;
        t->streams.push_back(st);
    }
    return t;
}

Session standInSession(const std::vector<TraceSummary>& traces, bool kernelUnitsOnly) {
    Session s;
    for (const TraceSummary& t : traces)
        s.traces.push_back({t.file, standIn(t, kernelUnitsOnly), 0});
    labelRanks(s);
    alignClocks(s);
    return s;
}

RankUnit* mutableUnitOf(SummarySession& s, const SessionRank& r) {
    for (RankUnit& u : s.traces[r.trace].units)
        if (u.process == r.process.value && u.device == r.device) return &u;
    return nullptr;
}

void toSessionTime(RankBusy& busy, TimeNs offset) {
    for (auto* lane : {&busy.compute, &busy.comm})
        for (Interval& i : *lane) {
            i.start += offset;
            i.end += offset;
        }
}

const RankUnit& unitOf(const SummarySession& s, const SessionRank& r) {
    for (const RankUnit& u : s.traces[r.trace].units)
        if (u.process == r.process.value && u.device == r.device) return u;
    static const RankUnit none;
    return none;
}

} // namespace

bool TraceSummary::operator==(const TraceSummary& o) const {
    auto rowsEqual = [](const std::vector<SummaryRow>& a, const std::vector<SummaryRow>& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
            const DurationStats &p = x.stats, &q = y.stats;
            return x.name == y.name && x.grid == y.grid && x.block == y.block &&
                   x.percent == y.percent && p.total == q.total && p.count == q.count &&
                   p.avg == q.avg && p.median == q.median && p.stddev == q.stddev &&
                   p.min == q.min && p.max == q.max;
        });
    };
    auto idEqual = [](const FileIdentity& a, const FileIdentity& b) {
        return a.absolutePath == b.absolutePath && a.size == b.size && a.mtimeNs == b.mtimeNs &&
               a.device == b.device && a.inode == b.inode;
    };
    return file == o.file && identityKnown == o.identityKnown && idEqual(identity, o.identity) &&
           error == o.error && parts == o.parts && host == o.host && epochNs == o.epochNs &&
           epochKnown == o.epochKnown && environment == o.environment && metadata == o.metadata &&
           units == o.units && rowsEqual(kernSum, o.kernSum);
}

uint32_t summaryLoadParts(std::string_view report) {
    // Rank numbering counts every process and device with GPU work: copies and sets too.
    if (report == "kern_sum") return kLoadKernels; // as `summary --report kern_sum` always read
    if (report == "rank_sum") return kLoadKernels | kLoadMemory;
    if (report == "rank_iter_sum") // iteration ranges by name, GPU work by its launch call
        return kLoadKernels | kLoadMemory | kLoadApiCalls | kLoadNvtx | kLoadNvtxNames;
    // collective_sum: a generic NCCL kernel takes its collective from the op that launched it.
    return kLoadKernels | kLoadMemory | kLoadCorrelation;
}

bool isSummaryReport(std::string_view report) {
    return report == "rank_sum" || report == "collective_sum" || report == "rank_iter_sum" ||
           report == "kern_sum";
}

TraceSummary summariseTrace(const Trace& t, const std::string& file, std::string_view report) {
    auto wants = [&](std::string_view r) { return report.empty() || report == r; };
    TraceSummary s;
    s.file = file;
    if (auto id = fileIdentity(file)) {
        s.identity = std::move(*id);
        s.identityKnown = true;
    }
    s.parts = t.parts;
    s.host = t.info.host;
    s.epochNs = t.info.epochNs;
    s.epochKnown = t.info.epochKnown;
    s.environment = t.info.environment;
    for (const auto& kv : t.info.metadata)
        if (kv.first.starts_with("distributedInfo.")) s.metadata.push_back(kv);
    std::set<std::pair<uint32_t, uint32_t>> units, withKernels;
    for (const Stream& st : t.streams) units.emplace(st.process.value, st.device);
    std::vector<uint8_t> kernelStream(t.streams.size(), 0);
    for (const StreamId id : t.kernels.streamIndex)
        if (id.value < kernelStream.size()) kernelStream[id.value] = 1;
    for (size_t i = 0; i < t.streams.size(); ++i)
        if (kernelStream[i]) withKernels.emplace(t.streams[i].process.value, t.streams[i].device);
    std::optional<KernelCollectives> kc;
    if (wants("rank_sum") || wants("collective_sum")) kc.emplace(t);
    for (const auto& [process, device] : units) {
        RankUnit u;
        u.process = process;
        u.pid = pidOf(t, ProcessId(process));
        u.device = device;
        u.hasKernels = withKernels.count({process, device}) > 0;
        if (report.empty()) {
            u.times = rankTimesOf(t, ProcessId(process), device, *kc, &u.lanes);
            u.lanes.compute = coarsened(std::move(u.lanes.compute), kLaneIntervals);
            u.lanes.comm = coarsened(std::move(u.lanes.comm), kLaneIntervals);
        } else if (wants("rank_sum")) {
            u.times = rankTimesOf(t, ProcessId(process), device, *kc);
        }
        if (wants("collective_sum"))
            u.collectives = collectiveKernelsOf(t, ProcessId(process), device, *kc, 0);
        if (wants("rank_iter_sum"))
            u.iterations = iterationsOfRank(t, ProcessId(process), device, 0, 0);
        s.units.push_back(std::move(u));
    }
    if (wants("kern_sum"))
        s.kernSum = kernelSummary(t, KernelGrouping::Name, KernelNaming::Demangled);
    return s;
}

std::string encodeSummary(const TraceSummary& s) {
    ByteWriter w;
    w.u32(kSummaryMagic);
    w.text(s.file);
    w.u8(s.identityKnown ? 1 : 0);
    w.text(s.identity.absolutePath);
    w.u64(s.identity.size);
    w.i64(s.identity.mtimeNs);
    w.u64(s.identity.device);
    w.u64(s.identity.inode);
    w.text(s.error);
    w.u32(s.parts);
    w.text(s.host);
    w.i64(s.epochNs);
    w.u8(s.epochKnown ? 1 : 0);
    putPairs(w, s.environment);
    putPairs(w, s.metadata);
    w.u64(s.units.size());
    for (const RankUnit& u : s.units) put(w, u);
    w.u64(s.kernSum.size());
    for (const SummaryRow& r : s.kernSum) {
        w.text(r.name);
        w.text(r.grid);
        w.text(r.block);
        w.f64(r.percent);
        put(w, r.stats);
    }
    return std::move(w.str());
}

std::string decodeSummary(std::string_view bytes, TraceSummary& s) {
    s = {};
    ByteReader r(bytes);
    if (r.u32() != kSummaryMagic) return "not a trace summary";
    s.file = r.text();
    s.identityKnown = r.u8() != 0;
    s.identity.absolutePath = r.text();
    s.identity.size = r.u64();
    s.identity.mtimeNs = r.i64();
    s.identity.device = r.u64();
    s.identity.inode = r.u64();
    s.error = r.text();
    s.parts = r.u32();
    s.host = r.text();
    s.epochNs = r.i64();
    s.epochKnown = r.u8() != 0;
    getPairs(r, s.environment);
    getPairs(r, s.metadata);
    s.units.resize(r.count(69));
    for (RankUnit& u : s.units) get(r, u);
    s.kernSum.resize(r.count(76));
    for (SummaryRow& row : s.kernSum) {
        row.name = r.text();
        row.grid = r.text();
        row.block = r.text();
        row.percent = r.f64();
        get(r, row.stats);
    }
    if (!r.ok()) return "a trace summary ends early or holds an impossible length";
    if (!r.atEnd()) return "a trace summary has bytes after its end";
    return {};
}

SummarySession assembleSummaries(std::vector<TraceSummary> summaries, bool kernelUnitsOnly) {
    SummarySession out;
    std::vector<SessionFailure> failed;
    for (TraceSummary& s : summaries) {
        if (!s.error.empty())
            failed.push_back({s.file, s.error});
        else
            out.traces.push_back(std::move(s));
    }
    out.session = standInSession(out.traces, kernelUnitsOnly);
    out.session.failed = std::move(failed);
    return out;
}

Session kernelRankSession(const SummarySession& s) { return standInSession(s.traces, true); }

std::vector<RankTimeRow> rankTimeSummary(const SummarySession& s) {
    std::vector<RankTimeRow> rows;
    for (const SessionRank& r : s.session.ranks) {
        const RankUnit& u = unitOf(s, r);
        rows.push_back(rankTimeRow(r, u.pid, u.times));
    }
    return rows;
}

CollectiveMatch matchCollectives(const SummarySession& s) {
    std::vector<std::vector<CollectiveKernel>> perRank;
    for (const SessionRank& r : s.session.ranks) {
        perRank.push_back(unitOf(s, r).collectives);
        const TimeNs offset = s.session.traces[r.trace].offsetNs;
        for (CollectiveKernel& k : perRank.back()) {
            k.start += offset;
            k.end += offset;
        }
    }
    return matchCollectiveKernels(s.session.ranks, perRank);
}

std::vector<RankIterationRow> rankIterations(const SummarySession& s) {
    std::vector<RankIterationRow> rows;
    for (const SessionRank& r : s.session.ranks) {
        const TimeNs offset = s.session.traces[r.trace].offsetNs;
        for (RankIterationRow row : unitOf(s, r).iterations) {
            row.rank = r.rank;
            row.start += offset;
            row.end += offset;
            row.gpuStart += offset;
            row.gpuEnd += offset;
            rows.push_back(std::move(row));
        }
    }
    return orderRankIterations(std::move(rows));
}

std::vector<RankBusy> rankLanes(const SummarySession& s) {
    std::vector<RankBusy> lanes;
    for (const SessionRank& r : s.session.ranks) {
        RankBusy busy = unitOf(s, r).lanes;
        toSessionTime(busy, s.session.traces[r.trace].offsetNs);
        lanes.push_back(std::move(busy));
    }
    return lanes;
}

std::vector<RankBusy> takeLanes(SummarySession& s) {
    std::vector<RankBusy> lanes;
    for (const SessionRank& r : s.session.ranks) {
        RankBusy busy;
        if (RankUnit* u = mutableUnitOf(s, r)) busy = std::move(u->lanes);
        toSessionTime(busy, s.session.traces[r.trace].offsetNs);
        lanes.push_back(std::move(busy));
    }
    return lanes;
}

CollectiveMatch takeCollectives(SummarySession& s) {
    std::vector<std::vector<CollectiveKernel>> perRank;
    for (const SessionRank& r : s.session.ranks) {
        RankUnit* u = mutableUnitOf(s, r);
        perRank.push_back(u ? std::move(u->collectives) : std::vector<CollectiveKernel>{});
        const TimeNs offset = s.session.traces[r.trace].offsetNs;
        for (CollectiveKernel& k : perRank.back()) {
            k.start += offset;
            k.end += offset;
        }
    }
    return matchCollectiveKernels(s.session.ranks, perRank);
}

} // namespace ls::job
