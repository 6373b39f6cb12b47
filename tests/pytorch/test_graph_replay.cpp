// CUDA graph replay on the traces of tests/data/graphs (README there): a 2-layer GPT training step
// captured with torch.cuda.graph inside the recorded range and replayed three times, against the
// same model run eagerly; --cuda-graph-trace=node and =graph exports; torch.compile
// reduce-overhead inference. A replayed kernel takes the op and layer of the launch call that
// created its node during capture; the node -> capture call mapping is checked through SQL over
// the export's node ids and node creation events.
#include "core/costs/kernel_class.h"
#include "core/load/load.h"
#include "core/pytorch/correlation.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sqlite3.h>

namespace {

using namespace ls;
using namespace ls::test;

fs::path graphTrace(const std::string& name) {
    return sourceDir() / "tests" / "data" / "graphs" / name;
}

std::shared_ptr<const Trace> load(const std::string& name) {
    LoadResult r = loadTrace(graphTrace(name).string());
    EXPECT_TRUE(r.ok()) << name << ": " << (r.error ? r.error->reason : "");
    return r.trace;
}

std::string opName(const Trace& t, size_t k) {
    const RangeId op = t.kernelLinks.op[k];
    return op.valid() ? std::string(t.str(t.ranges.name[op.value])) : std::string();
}

// Per (layer, direction): kernel count, FLOPs and the kernel names.
struct LayerTotals {
    size_t kernels = 0;
    double flops = 0;
    std::multiset<std::string> names;
};
using ByLayer = std::map<std::pair<std::string, std::string>, LayerTotals>;

template <typename Keep> ByLayer byLayer(const Trace& t, Keep keep) {
    ByLayer out;
    for (size_t k = 0; k < t.kernels.size(); ++k) {
        if (!keep(k)) continue;
        auto& row = out[{std::string(t.str(t.kernelLinks.layer[k])),
                         std::string(directionName(t.kernelLinks.direction[k]))}];
        ++row.kernels;
        if (!std::isnan(t.metrics.flops[k])) row.flops += t.metrics.flops[k];
        row.names.insert(std::string(t.str(t.kernels.name[k])));
    }
    return out;
}

TEST(GraphReplay, NodeTraceMatchesEagerPerLayerAndDirection) {
    const auto eager = load("graphs_eager.sqlite");
    const auto graph = load("graphs_graph_nodes.sqlite");
    ASSERT_TRUE(eager && graph);
    ASSERT_FALSE(graph->kernelGraph.empty());
    const ByLayer e = byLayer(*eager, [](size_t) { return true; });
    const ByLayer g = byLayer(
        *graph, [&](size_t k) { return graph->kernelGraph.how[k] == GraphAttribution::Capture; });
    ASSERT_EQ(e.size(), g.size());
    size_t kernels = 0;
    for (const auto& [key, want] : e) {
        SCOPED_TRACE(key.first + " / " + key.second);
        auto it = g.find(key);
        ASSERT_NE(it, g.end());
        EXPECT_EQ(it->second.kernels, want.kernels);
        EXPECT_NEAR(it->second.flops, want.flops, 1e-9 * std::max(1.0, want.flops));
        EXPECT_EQ(it->second.names, want.names);
        kernels += want.kernels;
    }
    EXPECT_EQ(kernels, 639u);
    // Layers and directions are real: both layers, forward and backward, with FLOPs.
    EXPECT_GT(g.at({"layer0", "forward"}).flops, 0);
    EXPECT_GT(g.at({"layer1", "backward"}).flops, 0);
}

// The capture-time launch call of each replayed kernel, from SQL alone: the kernel's node, the
// original node it was cloned from, the runtime call during which the original was created.
struct CaptureCall {
    int64_t start = 0, end = 0, globalTid = 0;
    uint32_t correlation = 0;
};
std::map<std::pair<int64_t, uint32_t>, CaptureCall> captureCallsBySql(const SqlReader& db) {
    std::map<std::pair<int64_t, uint32_t>, CaptureCall> out;
    db.each("SELECT k.start, k.correlationId, r.start, r.end, r.globalTid, r.correlationId "
            "FROM CUPTI_ACTIVITY_KIND_KERNEL k "
            "JOIN CUDA_GRAPH_NODE_EVENTS c ON c.graphNodeId = k.graphNodeId "
            "  AND c.originalGraphNodeId IS NOT NULL "
            "JOIN CUDA_GRAPH_NODE_EVENTS o ON o.graphNodeId = c.originalGraphNodeId "
            "  AND o.originalGraphNodeId IS NULL "
            "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.globalTid = o.globalTid "
            "  AND r.start <= o.start AND r.end >= o.start "
            "WHERE k.graphNodeId IS NOT NULL",
            [&](sqlite3_stmt* st) {
                out[{SqlReader::int64(st, 0), static_cast<uint32_t>(SqlReader::int64(st, 1))}] = {
                    SqlReader::int64(st, 2), SqlReader::int64(st, 3), SqlReader::int64(st, 4),
                    static_cast<uint32_t>(SqlReader::int64(st, 5))};
            });
    return out;
}

// The innermost PyTorch marker (its name before the first comma) and the layer range around a
// call, from the export's NVTX rows.
std::string sqlMarkerAround(const SqlReader& db, const CaptureCall& c) {
    std::string name;
    db.each("SELECT coalesce(n.text, s.value) FROM NVTX_EVENTS n LEFT JOIN StringIds s "
            "ON s.id = n.textId WHERE n.eventType = 59 AND n.globalTid = " +
                std::to_string(c.globalTid) + " AND n.start <= " + std::to_string(c.start) +
                " AND n.end >= " + std::to_string(c.end) +
                " AND coalesce(n.text, s.value) LIKE '%op_id = %' ORDER BY n.start DESC LIMIT 1",
            [&](sqlite3_stmt* st) {
                name = SqlReader::text(st, 0);
                name = name.substr(0, name.find(','));
            });
    return name;
}
std::string sqlLayerAround(const SqlReader& db, const CaptureCall& c) {
    std::string name;
    db.each("SELECT coalesce(n.text, s.value) FROM NVTX_EVENTS n LEFT JOIN StringIds s "
            "ON s.id = n.textId WHERE n.eventType = 59 AND n.globalTid = " +
                std::to_string(c.globalTid) + " AND n.start <= " + std::to_string(c.start) +
                " AND n.end >= " + std::to_string(c.end) +
                " AND coalesce(n.text, s.value) LIKE 'layer%' ORDER BY n.start DESC LIMIT 1",
            [&](sqlite3_stmt* st) { name = SqlReader::text(st, 0); });
    return name;
}

TEST(GraphReplay, EveryReplayedKernelTakesItsCaptureLaunchOpAndLayer) {
    const fs::path file = graphTrace("graphs_graph_nodes.sqlite");
    const auto t = load(file.filename().string());
    ASSERT_TRUE(t);
    SqlReader db(file);
    ASSERT_TRUE(db.ok());
    const auto bySql = captureCallsBySql(db);
    ASSERT_EQ(bySql.size(), 639u);
    size_t checked = 0, forward = 0;
    for (size_t k = 0; k < t->kernels.size(); ++k) {
        auto it = bySql.find({t->kernels.start[k], t->kernels.correlation[k]});
        if (it == bySql.end()) continue;
        SCOPED_TRACE("kernel " + std::to_string(k));
        const CaptureCall& want = it->second;
        const ApiCallId call = t->contextCall(k);
        ASSERT_TRUE(call.valid());
        EXPECT_EQ(t->apiCalls.correlationOf(call.value), want.correlation);
        EXPECT_EQ(t->apiCalls.start[call.value], want.start);
        EXPECT_EQ(opName(*t, k), sqlMarkerAround(db, want));
        // Forward kernels: the layer range around the capture-time launch. Every kernel: the
        // layer of the op instance holding the capture call, as the op table says.
        if (t->kernelLinks.direction[k] == Direction::Forward) {
            EXPECT_EQ(std::string(t->str(t->kernelLinks.layer[k])), sqlLayerAround(db, want));
            ++forward;
        }
        const OpId op = t->kernelLinks.opInstance[k];
        if (op.valid()) {
            EXPECT_EQ(t->kernelLinks.layer[k], t->ops.layer[op.value]);
            bool holds = false;
            for (RangeId r : rangesContaining(*t, call)) holds |= r == t->ops.extent[op.value];
            EXPECT_TRUE(holds) << "the op instance does not hold the capture call";
        }
        ++checked;
    }
    EXPECT_EQ(checked, 639u);
    EXPECT_GT(forward, 100u);
    // The replayed kernels of one capture call are found under it (kernelsUnder, kernelsOfOp):
    // one kernel a replay.
    for (size_t k = 0; k < t->kernels.size(); ++k) {
        const ApiCallId c = t->kernelGraph.capture[k];
        if (!c.valid()) continue;
        const auto [c0, c1] = t->captureKernels.of(c);
        EXPECT_EQ(c1 - c0, 3);
        EXPECT_NE(std::find(c0, c1, KernelId(static_cast<uint32_t>(k))), c1);
        const OpId op = t->kernelLinks.opInstance[k];
        if (op.valid()) {
            const auto ofOp = kernelsOfOp(*t, op);
            EXPECT_NE(std::find(ofOp.begin(), ofOp.end(), KernelId(static_cast<uint32_t>(k))),
                      ofOp.end());
        }
        break;
    }
}

TEST(GraphReplay, LoadReportCountsLaunchesNodesAndUnattributedKernels) {
    const auto t = load("graphs_graph_nodes.sqlite");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->report.count(Anomaly::CudaGraphLaunches), 3u);
    EXPECT_EQ(t->report.count(Anomaly::GraphNodesMapped), 639u);
    EXPECT_EQ(t->report.count(Anomaly::GraphKernelsAroundLaunch), 0u);
    EXPECT_EQ(t->report.count(Anomaly::GraphKernelsUnattributed), 0u);
    const auto& d = t->report.details(Anomaly::CudaGraphLaunches);
    std::string all;
    for (const auto& s : d) all += s + "\n";
    EXPECT_NE(all.find("213 kernel nodes replayed"), std::string::npos) << all;
    EXPECT_NE(all.find("692 node creation events, 226 of them clones"), std::string::npos) << all;
}

TEST(GraphReplay, GraphTraceModeGivesOneGpuItemPerLaunch) {
    const auto t = load("graphs_graph_graph.sqlite");
    ASSERT_TRUE(t);
    ASSERT_FALSE(t->kernelGraph.empty());
    size_t items = 0;
    for (size_t k = 0; k < t->kernels.size(); ++k) {
        if (t->kernelGraph.how[k] != GraphAttribution::LaunchItem) continue;
        ++items;
        EXPECT_EQ(t->str(t->kernels.name[k]), "CUDA graph 1");
        EXPECT_EQ(t->kernelGraph.graph[k], 1u);
        ASSERT_TRUE(t->kernels.launch[k].valid());
        EXPECT_EQ(t->str(t->apiCalls.name[t->kernels.launch[k].value]), "cudaGraphLaunch_v10000");
        // Attributed to the iteration range around its launch.
        ASSERT_TRUE(t->kernelLinks.range[k].valid());
        EXPECT_EQ(std::string(t->str(t->ranges.name[t->kernelLinks.range[k].value]))
                      .rfind("iteration ", 0),
                  0u);
    }
    EXPECT_EQ(items, 3u);
    EXPECT_EQ(t->report.count(Anomaly::CudaGraphLaunches), 3u);
}

// The profiler's JSON has no node ids: a graph launch running as many kernels as its capture
// launched takes them in capture order, and the step equals the eager one layer by layer.
TEST(GraphReplay, ProfilerJsonMapsReplaysByCaptureOrderAndMatchesEager) {
    const auto eager = load("graphs_eager.kineto.json.gz");
    const auto graph = load("graphs_graph.kineto.json.gz");
    ASSERT_TRUE(eager && graph);
    ASSERT_FALSE(graph->kernelGraph.empty());
    EXPECT_EQ(graph->report.count(Anomaly::CudaGraphLaunches), 3u);
    EXPECT_EQ(graph->report.count(Anomaly::GraphNodesMapped), 639u);
    EXPECT_EQ(graph->report.count(Anomaly::GraphKernelsAroundLaunch), 0u);
    const ByLayer e = byLayer(*eager, [](size_t) { return true; });
    const ByLayer g = byLayer(
        *graph, [&](size_t k) { return graph->kernelGraph.how[k] == GraphAttribution::Capture; });
    ASSERT_EQ(e.size(), g.size());
    for (const auto& [key, want] : e) {
        SCOPED_TRACE(key.first + " / " + key.second);
        auto it = g.find(key);
        ASSERT_NE(it, g.end());
        EXPECT_EQ(it->second.kernels, want.kernels);
        EXPECT_NEAR(it->second.flops, want.flops, 1e-9 * std::max(1.0, want.flops));
        EXPECT_EQ(it->second.names, want.names);
    }
}

TEST(GraphReplay, CompiledRunTritonKernelsHaveAClassAndARange) {
    for (const char* name : {"graphs_compile_nodes.sqlite", "graphs_compile.kineto.json.gz"}) {
        SCOPED_TRACE(name);
        const auto t = load(name);
        ASSERT_TRUE(t);
        const auto classes = classifyKernels(*t);
        size_t triton = 0;
        for (size_t k = 0; k < t->kernels.size(); ++k) {
            const std::string_view n = t->str(t->kernels.name[k]);
            if (!n.starts_with("triton_")) continue;
            ++triton;
            EXPECT_EQ(classes[k], KernelClass::Triton) << n;
            EXPECT_TRUE(t->kernelLinks.range[k].valid()) << n;
        }
        EXPECT_GT(triton, 0u);
        EXPECT_EQ(t->report.count(Anomaly::GraphKernelsUnattributed), 0u);
    }
}

} // namespace
