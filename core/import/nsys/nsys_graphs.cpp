#include "core/import/nsys/nsys_graphs.h"

#include "core/import/nsys/trace_builder.h"
#include "core/import/sqlite/sqlite_source.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>

namespace ls {
namespace {

constexpr std::string_view kGraphTrace = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";
constexpr std::string_view kNodeEvents = "CUDA_GRAPH_NODE_EVENTS";
constexpr std::string_view kKernels = "CUPTI_ACTIVITY_KIND_KERNEL";

uint32_t clampU32(int64_t v) {
    return static_cast<uint32_t>(std::clamp<int64_t>(v, 0, std::numeric_limits<uint32_t>::max()));
}

// Node ids are 64-bit; the exports seen number them graph id << 32 | index in the graph, which
// the graph column uses where the kernel table has no graphId of its own.
uint32_t graphOfNode(uint64_t node) { return static_cast<uint32_t>(node >> 32); }

// The kernel row that starts at `start` with correlation id `correlation` (kernels are by start).
std::optional<size_t> kernelAt(const Trace& t, int64_t start, uint32_t correlation) {
    const auto& s = t.kernels.start;
    for (auto it = std::lower_bound(s.begin(), s.end(), start); it != s.end() && *it == start;
         ++it) {
        const auto i = static_cast<size_t>(it - s.begin());
        if (t.kernels.correlation[i] == correlation) return i;
    }
    return std::nullopt;
}

// Where a node was created: the time and thread of its creation event (no clone).
struct Creation {
    int64_t ts = 0, globalTid = 0;
};

struct NodeEvents {
    std::unordered_map<uint64_t, Creation> created;    // nodes made by a capture or an API call
    std::unordered_map<uint64_t, uint64_t> clonedFrom; // instantiation clones -> original
    uint64_t events = 0;
};

NodeEvents readNodeEvents(const SqliteSource& db) {
    NodeEvents out;
    if (!db.hasTable(kNodeEvents)) return out;
    TableRows rows(db, kNodeEvents, {"start", "globalTid", "graphNodeId", "originalGraphNodeId"});
    while (rows.step()) {
        if (rows.isNull(0) || rows.isNull(2)) continue;
        ++out.events;
        const auto node = static_cast<uint64_t>(rows.int64(2));
        if (!rows.isNull(3))
            out.clonedFrom[node] = static_cast<uint64_t>(rows.int64(3));
        else
            out.created.try_emplace(node, Creation{rows.int64(0), rows.int64(1)});
    }
    return out;
}

// The node a clone was made from, through clones of clones (a cycle in a crafted file stops).
uint64_t originalOf(const NodeEvents& ev, uint64_t node) {
    for (int hops = 0; hops < 16; ++hops) {
        auto it = ev.clonedFrom.find(node);
        if (it == ev.clonedFrom.end() || it->second == node) break;
        node = it->second;
    }
    return node;
}

// The innermost API call of thread th that contains ts (a runtime call may hold a driver call).
ApiCallId callContaining(const Trace& t, ThreadId th, int64_t ts) {
    const auto [first, last] = t.threadApiCalls.of(th);
    if (first == last) return {};
    const auto& a = t.apiCalls;
    auto it = std::upper_bound(first, last, ts,
                               [&](int64_t v, ApiCallId c) { return v < a.start[c.value]; });
    for (int back = 0; it != first && back < 16; ++back) {
        --it;
        if (a.end[it->value] >= ts) return *it;
    }
    return {};
}

class ThreadIndex {
  public:
    explicit ThreadIndex(const Trace& t) {
        for (uint32_t i = 0; i < t.threads.size(); ++i)
            byKey_.emplace(std::pair(t.processes[t.threads[i].process.value].pid, t.threads[i].tid),
                           ThreadId(i));
    }
    ThreadId of(int64_t globalTid) const {
        auto it = byKey_.find(std::pair(pidOf(globalTid), tidOf(globalTid)));
        return it == byKey_.end() ? ThreadId() : it->second;
    }

  private:
    std::map<std::pair<uint32_t, uint32_t>, ThreadId> byKey_;
};

} // namespace

std::string graphLaunchItemName(uint32_t graph) { return "CUDA graph " + std::to_string(graph); }

std::vector<NsysGraphLaunchRow> readNsysGraphLaunches(const SqliteSource& db, LoadReport& report) {
    std::vector<NsysGraphLaunchRow> out;
    if (!db.hasTable(kGraphTrace)) return out;
    TableRows rows(db, kGraphTrace,
                   {"start", "end", "deviceId", "contextId", "streamId", "correlationId",
                    "globalPid", "graphId", "graphExecId"});
    while (rows.step()) {
        if (rows.isNull(0)) {
            report.add(Anomaly::NullTimestamp, 1, kGraphTrace);
            continue;
        }
        NsysGraphLaunchRow r;
        r.start = rows.int64(0);
        r.end = rows.isNull(1) ? r.start : std::max(r.start, rows.int64(1));
        r.device = clampU32(rows.int64(2));
        r.context = clampU32(rows.int64(3));
        r.stream = clampU32(rows.int64(4));
        r.correlation = clampU32(rows.int64(5));
        r.globalPid = rows.int64(6);
        r.graph = clampU32(rows.int64(7));
        r.exec = clampU32(rows.int64(8));
        out.push_back(r);
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.start < b.start; });
    return out;
}

void linkNsysGraphNodes(const SqliteSource& db, const std::vector<NsysGraphLaunchRow>& launches,
                        Trace& t) {
    auto& g = t.kernelGraph;
    const size_t n = t.kernels.size();
    for (const auto& l : launches) {
        const auto k = kernelAt(t, l.start, l.correlation);
        if (!k) continue;
        g.allocate(n);
        g.graph[*k] = l.graph;
        g.how[*k] = GraphAttribution::LaunchItem;
    }
    // Every recent export has the graphNodeId column, NULL throughout unless graphs ran: the node
    // events table (absent from a lazy export without graphs) says whether a second read of the
    // kernel table is worth it.
    if (!db.hasTable(kNodeEvents) || !db.hasTable(kKernels) ||
        !db.hasColumn(kKernels, "graphNodeId"))
        return;
    const bool hasGraphId = db.hasColumn(kKernels, "graphId");
    const NodeEvents events = readNodeEvents(db);
    const ThreadIndex threads(t);
    std::unordered_map<uint64_t, ApiCallId> captureOf; // original node -> its launch call
    TableRows rows(db, kKernels, {"start", "correlationId", "graphNodeId", "graphId"});
    while (rows.step()) {
        if (rows.isNull(0) || rows.isNull(2)) continue;
        const auto k = kernelAt(t, rows.int64(0), clampU32(rows.int64(1)));
        if (!k) continue;
        g.allocate(n);
        const auto node = static_cast<uint64_t>(rows.int64(2));
        const uint64_t original = originalOf(events, node);
        g.node[*k] = node;
        g.originalNode[*k] = original;
        g.graph[*k] = hasGraphId && !rows.isNull(3) ? clampU32(rows.int64(3)) : graphOfNode(node);
        auto [it, added] = captureOf.try_emplace(original, ApiCallId());
        if (added)
            if (auto c = events.created.find(original); c != events.created.end())
                it->second = callContaining(t, threads.of(c->second.globalTid), c->second.ts);
        g.capture[*k] = it->second;
        g.how[*k] = it->second.valid() ? GraphAttribution::Capture : GraphAttribution::AroundLaunch;
    }
    if (events.events)
        t.report.add(Anomaly::CudaGraphLaunches, 0,
                     std::to_string(events.events) + " node creation events, " +
                         std::to_string(events.clonedFrom.size()) + " of them clones");
}

} // namespace ls
