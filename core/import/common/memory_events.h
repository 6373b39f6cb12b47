#pragma once
// The last step of every importer's GPU memory events (Trace::memory), whatever their format:
// rows in time order, each event's thread from its API call where the format names the call by
// correlation id (Nsight Systems), and the device totals where the format records none.
#include "core/model/trace.h"

#include <functional>

namespace ls {

// The API call with correlation id `id` in process p, or an invalid id.
using CallByCorrelation = std::function<ApiCallId(ProcessId p, uint32_t id)>;

// Sorts t.memory by time (stable: ties keep file order), fills `thread` from callOf for rows with
// an import correlation id and releases the import columns. Where a row's allocated total is
// kNoMemoryTotal, the totals are counted per device from the changes, in time order: Nsight
// Systems records every allocation made before the capture at time 0, so they start right.
void finishMemoryEvents(Trace& t, const CallByCorrelation& callOf);

} // namespace ls
