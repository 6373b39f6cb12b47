#include "core/import/common/memory_events.h"

#include "core/model/columns.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace ls {

namespace {

void sortByTime(MemoryEventColumns& m) {
    if (std::is_sorted(m.time.begin(), m.time.end())) return;
    std::vector<uint32_t> perm(m.size());
    std::iota(perm.begin(), perm.end(), 0u);
    std::stable_sort(perm.begin(), perm.end(),
                     [&](uint32_t a, uint32_t b) { return m.time[a] < m.time[b]; });
    columns::permute(m, perm);
}

void resolveThreads(Trace& t, const CallByCorrelation& callOf) {
    auto& m = t.memory;
    if (m.importCorrelation.size() != m.size()) return;
    if (m.thread.size() != m.size()) m.thread.assign(m.size(), ThreadId());
    for (size_t i = 0; i < m.size(); ++i) {
        const ProcessId p = i < m.importProcess.size() ? m.importProcess[i] : ProcessId();
        if (const ApiCallId call = callOf(p, m.importCorrelation[i]); call.valid())
            m.thread[i] = t.apiCalls.thread[call.value];
    }
}

// Running totals per device of the allocated pool for the rows without one, carried on from the
// last row that had one; a release of more than is known (memory allocated before anything was
// recorded) stops at zero rather than wrapping.
void countTotals(MemoryEventColumns& m) {
    if (std::none_of(m.allocated.begin(), m.allocated.end(),
                     [](uint64_t v) { return v == kNoMemoryTotal; }))
        return;
    std::map<uint32_t, int64_t> allocated;
    for (size_t i = 0; i < m.size(); ++i) {
        int64_t& total = allocated[m.device[i]];
        if (m.allocated[i] != kNoMemoryTotal) {
            total = static_cast<int64_t>(m.allocated[i]);
            continue;
        }
        if (m.pool[i] == MemoryPool::Allocated) total = std::max<int64_t>(0, total + m.bytes[i]);
        m.allocated[i] = static_cast<uint64_t>(total);
    }
}

} // namespace

void finishMemoryEvents(Trace& t, const CallByCorrelation& callOf) {
    auto& m = t.memory;
    if (!m.size()) return;
    sortByTime(m);
    resolveThreads(t, callOf);
    countTotals(m);
    columns::release(m.importProcess);
    columns::release(m.importCorrelation);
}

} // namespace ls
