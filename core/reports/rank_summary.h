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
};
std::vector<RankBusy> rankBusyIntervals(const Session& session);

// The rows; with `busy`, also the intervals of rankBusyIntervals from the same pass.
std::vector<RankTimeRow> rankTimeSummary(const Session& session,
                                         std::vector<RankBusy>* busy = nullptr);

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
