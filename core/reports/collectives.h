#pragma once
// Collectives matched across the ranks of a session (summary --report collective_sum): which
// kernels on which ranks are one all-reduce, how far apart the ranks started it (skew), which
// rank came last and how long the others waited for it. And per iteration, each rank's time and
// the slowest rank (summary --report rank_iter_sum).
#include "core/costs/collective.h"
#include "core/model/session.h"
#include "core/reports/group_name.h"

#include <string>
#include <vector>

namespace ls {

struct CollectiveMember {
    uint32_t rank = 0; // index into Session::ranks
    KernelId kernel;
    TimeNs start = 0, end = 0; // session time
    uint64_t bytes = 0; // message size where the trace says it (PyTorch profiler args), else 0
};

struct MatchedCollective {
    Collective type = Collective::Other;
    std::string
        comm; // the communicator as far as the trace tells it (process group, launch, stream)
    uint64_t bytes = 0;    // the largest message size of its kernels; 0 when unknown
    uint32_t sequence = 0; // the k-th collective of its type on that communicator (from 0)
    std::vector<CollectiveMember> members; // one per rank that ran it, by rank
    TimeNs firstStart = 0, lastStart = 0, end = 0;
    TimeNs skew() const { return lastStart - firstStart; }
    TimeNs waited = 0; // sum over ranks of (lastStart - their start)
    TimeNs maxDuration = 0;
    int lastRank = -1; // the rank that started last (the straggler)
};

struct CollectiveMatch {
    std::vector<MatchedCollective> collectives; // by first start
    std::string rule;                           // how kernels were matched, one sentence
    uint64_t commKernels = 0;                   // communication kernels seen over all ranks
    uint64_t unmatched = 0; // collectives that some ranks of the session did not run
};

CollectiveMatch matchCollectives(const Session& session);

// One communication kernel of a rank, what matching reads: what a rank's summary keeps (core/job)
// and what matchCollectives gathers from the traces, so that both match the same way.
struct CollectiveKernel {
    Collective type = Collective::Other;
    StreamId stream;
    uint32_t correlation = 0;
    KernelId kernel;
    TimeNs start = 0, end = 0; // session time (trace time plus the offset given)
    uint64_t bytes = 0;        // 0: unknown
    GroupName group;           // process group; empty: unknown
    bool operator==(const CollectiveKernel&) const = default;
};
class KernelCollectives;
// The communication kernels of `process` on `device` in t, by start, shifted by `offset`.
std::vector<CollectiveKernel> collectiveKernelsOf(const Trace& t, ProcessId process,
                                                  uint32_t device, const KernelCollectives& kc,
                                                  TimeNs offset);
// Matching over the ranks of a session (Session::ranks order: trace, process, rank number) and
// each rank's communication kernels in session time.
CollectiveMatch matchCollectiveKernels(const std::vector<SessionRank>& ranks,
                                       const std::vector<std::vector<CollectiveKernel>>& perRank);

struct RankIterationRow {
    int iteration = 0; // the number the range names ("step 3" -> 3)
    int rank = 0;
    std::string name;          // the range's name on that rank
    TimeNs start = 0, end = 0; // the range, in session time
    TimeNs gpuStart = 0,
           gpuEnd = 0;    // the GPU work launched inside it (the range when none), session time
    bool slowest = false; // the longest of this iteration over the ranks, on the GPU
    TimeNs duration() const { return gpuEnd - gpuStart; }
    bool operator==(const RankIterationRow&) const = default;
};

// Ranges named like iterations (iteration N, step N, ProfilerStep#N) per rank, by iteration then
// rank, each with the GPU span of the work its rank launched inside it (iteration_summary.h).
std::vector<RankIterationRow> rankIterations(const Session& session);

// The iterations of `process` on `device` in t (rank number `rank`), in trace time plus `offset`,
// by iteration: one rank's part of rankIterations, what a rank's summary keeps.
std::vector<RankIterationRow> iterationsOfRank(const Trace& t, ProcessId process, uint32_t device,
                                               int rank, TimeNs offset);
// Every rank's rows together: ordered by iteration then rank, the slowest of each marked.
std::vector<RankIterationRow> orderRankIterations(std::vector<RankIterationRow> rows);

} // namespace ls
