#pragma once
// A session: the traces opened together (the ranks of one job, one file each or one file for a
// whole node), each with a clock offset onto the session's common time axis, and the ranks they
// hold. A single file is a session of one. Built by core/load/session_load.h.
#include "core/model/trace.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

// Where a rank number came from, most trusted first.
enum class RankSource : uint8_t {
    Environment,     // RANK, OMPI_COMM_WORLD_RANK, … in the profiled process's environment
    DistributedInfo, // the PyTorch profiler's distributedInfo.rank
    FileName,        // "rank3", "_3." in the file name
    Device,          // one file holding several GPUs: numbered by device
    Order,           // none of the above: the order the files were given
};
std::string_view rankSourceName(RankSource s);

// One rank: the GPU work of one process on one device of one trace.
struct SessionRank {
    int rank = 0;
    RankSource source = RankSource::Order;
    uint32_t trace = 0; // index into Session::traces
    ProcessId process;
    uint32_t device = 0; // as the export numbers it
    std::string host;
};

struct SessionTrace {
    std::string file; // as the user named it
    std::shared_ptr<const Trace> trace;
    TimeNs offsetNs = 0; // add to the trace's times to get session time
};

struct SessionFailure {
    std::string file;
    std::string reason; // one line
};

struct Session {
    std::vector<SessionTrace> traces;
    std::vector<SessionRank> ranks; // sorted by rank
    std::vector<SessionFailure> failed;
    std::string clockAlignment; // one sentence: how the traces' clocks were put on one axis

    bool empty() const { return traces.empty(); }
    // The rank of GPU work of `process` on `device` in trace `trace`; -1 when none.
    int rankOf(uint32_t trace, ProcessId process, uint32_t device) const;
    // The index into ranks of that rank, or -1.
    int rankIndexOf(uint32_t trace, ProcessId process, uint32_t device) const;
};

} // namespace ls
