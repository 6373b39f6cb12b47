#pragma once
// Numbers the ranks of a session: each process's GPU work on each device of each trace is one
// rank, numbered from the profiled process's environment, the PyTorch profiler's
// distributedInfo, the file name, the device (a file holding a whole node) or the order given,
// in that order of trust; and puts the traces' clocks on one axis.
#include "core/model/session.h"

#include <optional>
#include <string_view>

namespace ls {

// "report_rank3.sqlite", "rank-12.json.gz", "trace_3.sqlite" -> 3; "gpt2_2layer.sqlite" -> none.
std::optional<int> rankFromFileName(std::string_view path);

// Fills session.ranks from session.traces (which must be loaded).
void labelRanks(Session& session);

// Sets each trace's offsetNs and session.clockAlignment from the UTC start times the exports
// record.
void alignClocks(Session& session);

} // namespace ls
