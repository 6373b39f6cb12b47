#include "core/reports/collectives.h"

#include "core/pytorch/iterations.h"
#include "core/pytorch/range_roles.h"
#include "core/reports/rank_summary.h"
#include "core/reports/small_map.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <tuple>

namespace ls {
namespace {

using CommKernel = CollectiveKernel;

// The PyTorch profiler's args of the kernel starting at `start` with this correlation id.
const CollectiveArgs* argsOf(const Trace& t, TimeNs start, uint32_t correlation) {
    const auto key = std::pair(start, correlation);
    const auto it =
        std::lower_bound(t.collectiveArgs.begin(), t.collectiveArgs.end(), key,
                         [](const CollectiveArgs& a, const auto& k) { return a.key() < k; });
    return it != t.collectiveArgs.end() && it->key() == key ? &*it : nullptr;
}

void finish(MatchedCollective& m, const std::vector<SessionRank>& ranks) {
    auto& x = m.members;
    std::sort(x.begin(), x.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
    auto byStart = [](const auto& a, const auto& b) { return a.start < b.start; };
    const auto last =
        std::max_element(x.begin(), x.end(), byStart); // the first of equals: lowest rank
    m.firstStart = std::min_element(x.begin(), x.end(), byStart)->start;
    m.lastStart = last->start;
    m.lastRank = ranks[last->rank].rank;
    m.end = x.front().end;
    for (const auto& k : x) {
        m.bytes = std::max(m.bytes, k.bytes);
        m.end = std::max(m.end, k.end);
        m.maxDuration = std::max(m.maxDuration, k.end - k.start);
        m.waited += m.lastStart - k.start;
    }
}

} // namespace

// The communication kernels of one rank, by start. A generic kernel (ncclDevKernel_Generic)
// takes its collective from the op that launched it (c10d::allreduce_, nccl:all_reduce).
std::vector<CollectiveKernel> collectiveKernelsOf(const Trace& t, ProcessId process,
                                                  uint32_t device, const KernelCollectives& kc,
                                                  TimeNs offset) {
    std::vector<CommKernel> out;
    for (uint32_t i = 0; i < t.kernels.size(); ++i) {
        if (const Stream& on = t.streamOf(t.kernels, i);
            on.process != process || on.device != device)
            continue;
        Collective c = kc.of(KernelId(i));
        if (c == Collective::None) continue;
        if (c == Collective::Other && i < t.kernelLinks.op.size())
            if (const RangeId op = t.kernelLinks.op[i]; op.valid())
                if (const Collective named = collectiveOfOp(t.str(t.ranges.name[op.value]));
                    named != Collective::None)
                    c = named;
        const CollectiveArgs* args = argsOf(t, t.kernels.start[i], t.kernels.correlation[i]);
        out.push_back(
            {c, t.kernels.streamIndex[i], t.kernels.correlation[i], KernelId(i),
             t.kernels.start[i] + offset, t.kernels.end[i] + offset, args ? args->bytes : 0,
             args && args->group.valid() ? GroupName::of(t.str(args->group)) : GroupName()});
    }
    return out; // kernels are sorted by start already
}

CollectiveMatch matchCollectives(const Session& s) {
    std::vector<std::unique_ptr<KernelCollectives>> kc(s.traces.size());
    std::vector<std::vector<CommKernel>> perRank(s.ranks.size());
    for (uint32_t r = 0; r < s.ranks.size(); ++r) {
        const SessionRank& rank = s.ranks[r];
        const SessionTrace& st = s.traces[rank.trace];
        if (!kc[rank.trace]) kc[rank.trace] = std::make_unique<KernelCollectives>(*st.trace);
        perRank[r] =
            collectiveKernelsOf(*st.trace, rank.process, rank.device, *kc[rank.trace], st.offsetNs);
    }
    return matchCollectiveKernels(s.ranks, perRank);
}

CollectiveMatch matchCollectiveKernels(const std::vector<SessionRank>& ranks,
                                       const std::vector<std::vector<CollectiveKernel>>& perRank) {
    CollectiveMatch match;
    std::map<std::pair<uint32_t, ProcessId>, std::vector<uint32_t>> ranksOfProcess;
    for (uint32_t r = 0; r < ranks.size(); ++r) {
        match.commKernels += perRank[r].size();
        ranksOfProcess[{ranks[r].trace, ranks[r].process}].push_back(r);
    }

    // One process driving several GPUs launches a collective on all of them with one call (a
    // group launch): its kernels share the call's correlation id.
    std::vector<uint32_t> separate; // ranks that are alone in their process
    bool grouped = false;
    for (const auto& [key, members] : ranksOfProcess) {
        if (members.size() == 1) {
            separate.push_back(members.front());
            continue;
        }
        grouped = true;
        std::map<std::pair<uint32_t, Collective>, MatchedCollective> byLaunch;
        for (const uint32_t r : members)
            for (const CommKernel& k : perRank[r]) {
                auto& m = byLaunch[{k.correlation, k.type}];
                m.type = k.type;
                m.comm = "launch " + std::to_string(k.correlation);
                if (std::none_of(m.members.begin(), m.members.end(),
                                 [&](const auto& x) { return x.rank == r; }))
                    m.members.push_back({r, k.kernel, k.start, k.end, k.bytes});
            }
        std::map<Collective, uint32_t> sequence;
        std::vector<MatchedCollective> found;
        found.reserve(byLaunch.size());
        for (auto& [launch, m] : byLaunch) found.push_back(std::move(m));
        std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
            auto first = [](const MatchedCollective& m) {
                TimeNs t = m.members.front().start;
                for (const auto& x : m.members) t = std::min(t, x.start);
                return t;
            };
            return first(a) < first(b);
        });
        for (auto& m : found) {
            m.sequence = sequence[m.type]++;
            finish(m, ranks);
            if (m.members.size() < members.size()) ++match.unmatched;
            match.collectives.push_back(std::move(m));
        }
    }

    // One rank per process (a file per rank): the k-th collective of a type on a communicator is
    // the same collective on every rank. The communicator is the rank's k-th stream carrying that
    // collective (NCCL runs each communicator on its own stream); if the ranks disagree on how
    // many each such stream holds, by type alone.
    // A PyTorch profiler trace names each collective's process group: then that is the
    // communicator, the same name on every rank.
    bool byGroup = !separate.empty();
    for (const uint32_t r : separate)
        for (const CommKernel& k : perRank[r]) byGroup &= !k.group.empty();
    using Key = std::pair<Collective, uint32_t>; // type, communicator
    std::vector<GroupName> groupNames;           // communicator number -> its group
    auto keysOf = [&](uint32_t r, bool withStream) {
        // A rank has a few (type, stream) pairs and groups: found by a scan, not a tree.
        SmallMap<std::pair<Collective, StreamId>, uint32_t> ordinal;
        SmallMap<Collective, uint32_t> nextOrdinal;
        std::vector<Key> keys;
        keys.reserve(perRank[r].size());
        for (const CommKernel& k : perRank[r]) {
            uint32_t comm = 0;
            if (byGroup) {
                const auto it = std::find(groupNames.begin(), groupNames.end(), k.group);
                comm = static_cast<uint32_t>(it - groupNames.begin());
                if (it == groupNames.end()) groupNames.push_back(k.group);
            } else if (withStream) {
                auto [slot, inserted] = ordinal.tryEmplace({k.type, k.stream});
                if (inserted) *slot = (*nextOrdinal.tryEmplace(k.type).first)++;
                comm = *slot;
            }
            keys.emplace_back(k.type, comm);
        }
        return keys;
    };
    std::vector<std::vector<Key>> keys(separate.size());
    bool byStream = true;
    if (separate.size() > 1 && !byGroup) {
        for (size_t i = 0; i < separate.size(); ++i) keys[i] = keysOf(separate[i], true);
        auto counts = [&](size_t i) {
            SmallMap<Key, uint32_t> c;
            for (const Key& key : keys[i]) ++*c.tryEmplace(key).first;
            return c.sorted();
        };
        const auto first = counts(0);
        for (size_t i = 1; i < separate.size() && byStream; ++i) byStream = counts(i) == first;
    }
    // Each (type, communicator) holds its collectives in sequence order: the k-th kernel of that
    // key on a rank joins the k-th. A job has a few such keys and millions of kernels, so a kernel
    // finds its collective by index, not by a search.
    SmallMap<Key, uint32_t> slotOf;
    std::vector<std::vector<MatchedCollective>> slots;
    std::vector<uint32_t> seen; // per slot, the current rank's kernels so far
    for (size_t i = 0; i < separate.size(); ++i) {
        const uint32_t r = separate[i];
        if (keys[i].empty() || !byStream || byGroup) keys[i] = keysOf(r, byStream);
        std::fill(seen.begin(), seen.end(), 0);
        for (size_t j = 0; j < keys[i].size(); ++j) {
            const auto [type, comm] = keys[i][j];
            const auto [slot, added] = slotOf.tryEmplace(keys[i][j]);
            if (added) {
                *slot = static_cast<uint32_t>(slots.size());
                slots.emplace_back();
                seen.push_back(0);
            }
            std::vector<MatchedCollective>& list = slots[*slot];
            const uint32_t k = seen[*slot]++;
            if (k == list.size()) {
                MatchedCollective& m = list.emplace_back();
                m.type = type;
                m.comm = byGroup    ? "group " + std::string(groupNames[comm].name())
                         : byStream ? "stream #" + std::to_string(comm)
                                    : "";
                m.sequence = k;
                m.members.reserve(separate.size());
            }
            const CommKernel& kernel = perRank[r][j];
            list[k].members.push_back({r, kernel.kernel, kernel.start, kernel.end, kernel.bytes});
        }
        keys[i] = {};
    }
    for (const auto& [key, slot] : slotOf.sorted()) // by type, communicator, then sequence
        for (MatchedCollective& m : slots[slot]) {
            finish(m, ranks);
            if (m.members.size() < separate.size()) ++match.unmatched;
            match.collectives.push_back(std::move(m));
        }
    std::stable_sort(match.collectives.begin(), match.collectives.end(),
                     [](const auto& a, const auto& b) { return a.firstStart < b.firstStart; });

    std::string rule;
    if (grouped)
        rule = "ranks of one process: the kernels of one launch call (same correlation id) are one "
               "collective";
    if (separate.size() > 1) {
        if (!rule.empty()) rule += "; ";
        rule += byGroup    ? "one rank per process: the k-th collective of a type on each process "
                             "group the trace names"
                : byStream ? "one rank per process: the k-th collective of a type on the k-th "
                             "communication stream of each rank"
                           : "one rank per process: the k-th collective of a type on each rank "
                             "(the ranks' streams differ)";
    }
    match.rule = rule.empty() ? "one rank: nothing to match" : rule;
    return match;
}

std::vector<RankIterationRow> iterationsOfRank(const Trace& t, ProcessId process, uint32_t device,
                                               int rank, TimeNs offset) {
    std::vector<RankIterationRow> rows;
    std::map<int, RankIterationRow> mine;
    for (uint32_t i = 0; i < t.ranges.size(); ++i) {
        if (t.ranges.kind[i] == RangeKind::Mark || (t.ranges.flags[i] & kPytorchMarker)) continue;
        const ThreadId th = t.rangeThread(RangeId(i));
        if (!th.valid() || th.value >= t.threads.size() || t.threads[th.value].process != process)
            continue;
        const auto n = iterationNumber(t.str(t.ranges.name[i]));
        if (!n) continue;
        auto [it, inserted] = mine.try_emplace(*n);
        RankIterationRow& row = it->second;
        const TimeNs start = t.ranges.start[i] + offset, end = t.ranges.end[i] + offset;
        if (inserted) row = {*n, rank, std::string(t.str(t.ranges.name[i])), start, end, false};
        row.start = std::min(row.start, start);
        row.end = std::max(row.end, end);
    }
    // The GPU side of each: the rank's work launched inside it, wherever it ran.
    std::vector<IterationSpan> spans;
    std::vector<RankIterationRow*> rowOf;
    for (auto& [n, row] : mine) {
        spans.push_back({n, {}, row.start - offset, row.end - offset});
        rowOf.push_back(&row);
        row.gpuStart = std::numeric_limits<TimeNs>::max();
        row.gpuEnd = std::numeric_limits<TimeNs>::min();
    }
    std::vector<size_t> order(spans.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return spans[a].start < spans[b].start; });
    std::vector<IterationSpan> sorted;
    for (size_t i : order) sorted.push_back(spans[i]);
    auto place = [&](const GpuOpColumns& c) {
        for (size_t i = 0; i < c.size(); ++i) {
            // The rank's own GPU (a process driving several GPUs is one rank per device).
            if (const Stream& gpu = t.streamOf(c, i);
                gpu.process != process || gpu.device != device)
                continue;
            const int k = iterationAt(sorted, gpuOpIterationTime(t, c, i));
            if (k < 0) continue;
            RankIterationRow& row = *rowOf[order[static_cast<size_t>(k)]];
            row.gpuStart = std::min(row.gpuStart, c.start[i] + offset);
            row.gpuEnd = std::max(row.gpuEnd, c.end[i] + offset);
        }
    };
    place(t.kernels);
    place(t.memcpys);
    place(t.memsets);
    for (auto& [n, row] : mine) {
        if (row.gpuStart > row.gpuEnd) row.gpuStart = row.start, row.gpuEnd = row.end;
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<RankIterationRow> orderRankIterations(std::vector<RankIterationRow> rows) {
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
        return std::pair(a.iteration, a.rank) < std::pair(b.iteration, b.rank);
    });
    for (size_t b = 0; b < rows.size();) {
        size_t e = b, slowest = b;
        for (; e < rows.size() && rows[e].iteration == rows[b].iteration; ++e)
            if (rows[e].duration() > rows[slowest].duration()) slowest = e;
        if (e - b > 1) rows[slowest].slowest = true;
        b = e;
    }
    return rows;
}

std::vector<RankIterationRow> rankIterations(const Session& s) {
    std::vector<RankIterationRow> rows;
    for (const SessionRank& r : s.ranks) {
        const SessionTrace& st = s.traces[r.trace];
        auto mine = iterationsOfRank(*st.trace, r.process, r.device, r.rank, st.offsetNs);
        rows.insert(rows.end(), std::make_move_iterator(mine.begin()),
                    std::make_move_iterator(mine.end()));
    }
    return orderRankIterations(std::move(rows));
}

} // namespace ls
