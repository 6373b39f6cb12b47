#pragma once
// Per rank of a session: how its GPU time splits into compute, communication, communication
// hidden behind compute, exposed communication and idle time (summary --report rank_sum).
// Interval arithmetic over the union of each class's kernel intervals on the rank's device, so
// kernels overlapping on several streams count once. Copies and sets are neither compute nor
// communication but keep the GPU busy (as in gpu_idle and HTA's temporal breakdown).
#include "core/costs/collective.h"
#include "core/model/session.h"
#include "core/reports/intervals.h"

#include <vector>

namespace ls {

struct RankTimeRow {
    int rank = 0;
    std::string host;
    uint32_t pid = 0, device = 0;
    uint64_t kernels = 0, commKernels = 0;
    TimeNs span = 0;        // first GPU op start to last GPU op end (kernels, copies, sets)
    TimeNs busy = 0;        // union of all kernels, copies and sets
    TimeNs compute = 0;     // union of compute kernels
    TimeNs comm = 0;        // union of communication kernels
    TimeNs overlap = 0;     // communication while compute runs: |compute ∩ comm|
    TimeNs exposedComm = 0; // comm - overlap
    TimeNs idle = 0;        // span - busy
};

// Per rank (Session::ranks order), the unions of its compute and of its communication kernel
// intervals in session time: what the Ranks tab's timeline draws, one lane each.
struct RankBusy {
    std::vector<Interval> compute, comm;
    bool operator==(const RankBusy&) const = default;
};
std::vector<RankBusy> rankBusyIntervals(const Session& session);

// The rows; with `busy`, also the intervals of rankBusyIntervals from the same pass.
std::vector<RankTimeRow> rankTimeSummary(const Session& session,
                                         std::vector<RankBusy>* busy = nullptr);

class KernelCollectives;

// One rank's GPU time on its trace's clock, before it becomes a row: what a rank's summary keeps
// (core/job) and what rankTimeSummary computes, so that both give the same rows.
struct RankTimes {
    uint64_t kernels = 0, commKernels = 0;
    TimeNs span = 0, busy = 0, compute = 0, comm = 0, overlap = 0;
    bool operator==(const RankTimes&) const = default;
};
// The GPU work of `process` on `device` in t; with `busy`, its compute and comm unions (trace
// clock).
RankTimes rankTimesOf(const Trace& t, ProcessId process, uint32_t device,
                      const KernelCollectives& kc, RankBusy* busy = nullptr);
// The pid of a trace's process, 0 when unknown.
uint32_t pidOf(const Trace& t, ProcessId process);
// The row of session rank r (whose process has pid `pid`) from its times.
RankTimeRow rankTimeRow(const SessionRank& r, uint32_t pid, const RankTimes& times);

// Per trace, the collective of each kernel name (None for compute), looked up once per name.
class KernelCollectives {
  public:
    explicit KernelCollectives(const Trace& t);
    Collective of(KernelId k) const { return byName_[t_.kernels.name[k.value].value]; }

  private:
    const Trace& t_;
    std::vector<Collective> byName_; // indexed by StringId
};

} // namespace ls
