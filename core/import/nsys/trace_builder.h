#pragma once
// Turns the rows the workers read into a finished Trace: remaps chunk-local ids and strings,
// drops unwritten rows, then hands the columns to the shared assembler (core/import/
// trace_assembler.h), which dedupes, sorts once and builds the indexes as for every format.
#include "core/import/nsys/nsys_chunk.h"
#include "core/import/nsys/nsys_graphs.h"
#include "core/import/nsys/nsys_memory_usage.h"
#include "core/model/trace.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

namespace ls {

// The export's small tables, read before the event tables.
struct SmallTables {
    NsysStrings strings;
    struct ThreadName {
        int64_t nameId = -1; // into strings; looked up for the threads that have events
        int32_t priority = kNoThreadPriority;
    };
    struct Process {
        uint32_t pid = 0;
        std::string name;
    };
    // Sorted by globalTid / globalPid, one entry a key (a few hundred rows, looked up once for
    // each thread and process with events: a sorted list, not a hash map of nodes).
    std::vector<std::pair<int64_t, ThreadName>> threadNames;
    std::vector<std::pair<int64_t, Process>> processes;
    template <typename T>
    static const T* find(const std::vector<std::pair<int64_t, T>>& sorted, int64_t key) {
        const auto it = std::lower_bound(sorted.begin(), sorted.end(), key,
                                         [](const auto& e, int64_t k) { return e.first < k; });
        return it != sorted.end() && it->first == key ? &it->second : nullptr;
    }
    std::vector<Device> devices;
    ExportInfo info;
    struct OsRuntimeRow {
        int64_t start, end, globalTid;
        std::string name; // empty when the id is unknown
    };
    std::vector<OsRuntimeRow> osRuntime;           // OSRT_API, event class 27, by start
    std::vector<NsysGraphLaunchRow> graphLaunches; // --cuda-graph-trace=graph rows, by start
    std::vector<NsysMemoryUsageRow> memoryUsage;   // --cuda-memory-usage rows, by start
};

// globalTid and globalPid pack the process id in bits 24..47 and the thread id in bits 0..23.
inline int64_t processKey(int64_t globalId) { return globalId & ~int64_t(0xFFFFFF); }
inline uint32_t pidOf(int64_t globalId) {
    return static_cast<uint32_t>((globalId >> 24) & 0xFFFFFF);
}
inline uint32_t tidOf(int64_t globalId) { return static_cast<uint32_t>(globalId & 0xFFFFFF); }

// Finishes sink.trace after every chunk was read into it.
void buildTrace(EventSink& sink, SmallTables& small, std::vector<Chunk>& chunks, unsigned threads);

} // namespace ls
