// The layer tree (core/views/layer_tree.h): top user range → direction → layer → op per kernel,
// merged by name, siblings by first kernel. On the bundled sample its totals are checked against
// SQL over the file and the `kernels` CSV; hand-built fixtures cover traces without user ranges,
// backward kernels taking their forward op's iteration, start/end iteration ranges and kernels
// without an op; the DDP trace (../shared) has one top node per training step.
#include "core/pytorch/correlation.h"
#include "core/views/layer_tree.h"
#include "tests/support/correlation_fixture.h"
#include "tests/support/sample_fixture.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <set>

namespace {

using namespace ls::test;
using ls::LayerNodeKind;
using ls::LayerTree;

std::string nodePath(const ls::Trace& t, const LayerTree& tree, uint32_t n) {
    std::string path;
    for (; n != 0; n = tree.parent[n])
        path = std::string(ls::layerNodeName(t, tree, n)) + (path.empty() ? "" : " > " + path);
    return path;
}

std::vector<std::string> childNames(const ls::Trace& t, const LayerTree& tree, uint32_t n) {
    std::vector<std::string> out;
    for (uint32_t c : ls::layerTreeChildren(tree, n))
        out.emplace_back(ls::layerNodeName(t, tree, c));
    return out;
}

// The node at a path of names from the root; fails the test (and returns 0) when there is none.
uint32_t nodeAt(const ls::Trace& t, const LayerTree& tree, const std::vector<std::string>& path) {
    uint32_t n = 0;
    for (const auto& name : path) {
        uint32_t next = 0;
        for (uint32_t c : ls::layerTreeChildren(tree, n))
            if (ls::layerNodeName(t, tree, c) == name) next = c;
        if (!next) {
            ADD_FAILURE() << "no node " << name << " under '" << nodePath(t, tree, n) << "'";
            return 0;
        }
        n = next;
    }
    return n;
}

std::vector<std::string> kernelPaths(const ls::Trace& t, const LayerTree& tree) {
    std::vector<std::string> out;
    for (uint32_t k = 0; k < t.kernels.size(); ++k)
        out.push_back(nodePath(t, tree, tree.kernelNode[k]));
    return out;
}

std::vector<uint32_t> ids(const std::vector<ls::KernelId>& ks) {
    std::vector<uint32_t> out;
    for (auto k : ks) out.push_back(k.value);
    return out;
}

// Structure every tree must have: children add up to their parent, every kernel in exactly one
// leaf (an op node), each subtree one slice of orderedKernels, names unique among siblings,
// siblings in order of their first kernel's start.
void expectConsistent(const ls::Trace& t, const LayerTree& tree) {
    const size_t n = tree.size();
    ASSERT_GE(n, 1u);
    EXPECT_EQ(tree.kind[0], LayerNodeKind::Root);
    EXPECT_EQ(tree.kernels[0], t.kernels.size());
    ASSERT_EQ(tree.kernelNode.size(), t.kernels.size());
    ASSERT_EQ(tree.orderedKernels.size(), t.kernels.size());
    for (uint32_t i = 0; i < n; ++i) {
        const auto children = ls::layerTreeChildren(tree, i);
        if (i) {
            EXPECT_LT(tree.parent[i], i) << "parents come first";
            EXPECT_EQ(tree.depth[i], tree.depth[tree.parent[i]] + 1);
        }
        EXPECT_GT(tree.kernels[i], 0u) << nodePath(t, tree, i);
        EXPECT_EQ(tree.kernelEnd[i] - tree.kernelBegin[i], tree.kernels[i]) << nodePath(t, tree, i);
        if (children.empty()) {
            EXPECT_EQ(tree.kind[i], LayerNodeKind::Op) << nodePath(t, tree, i);
            continue;
        }
        EXPECT_NE(tree.kind[i], LayerNodeKind::Op);
        uint64_t kernels = 0, ns = 0, flopsNs = 0, tcNs = 0;
        double flops = NAN;
        std::set<std::pair<LayerNodeKind, std::string>> names;
        uint32_t begin = tree.kernelBegin[i];
        ls::TimeNs lastFirstStart = INT64_MIN;
        for (uint32_t c : children) {
            EXPECT_EQ(tree.parent[c], i);
            kernels += tree.kernels[c];
            ns += tree.gpuTimeNs[c];
            flopsNs += tree.flopsTimeNs[c];
            tcNs += tree.tcUsedTimeNs[c];
            if (!std::isnan(tree.flops[c]))
                flops = std::isnan(flops) ? tree.flops[c] : flops + tree.flops[c];
            EXPECT_TRUE(names.emplace(tree.kind[c], ls::layerNodeName(t, tree, c)).second)
                << "two children named " << ls::layerNodeName(t, tree, c) << " under '"
                << nodePath(t, tree, i) << "'";
            EXPECT_EQ(tree.kernelBegin[c], begin) << "children's slices follow each other";
            begin = tree.kernelEnd[c];
            // Kernels are by start: the subtree's first kernel has its lowest id.
            const auto slice = tree.orderedKernels.begin();
            const auto first =
                *std::min_element(slice + tree.kernelBegin[c], slice + tree.kernelEnd[c]);
            EXPECT_LE(lastFirstStart, t.kernels.start[first.value])
                << nodePath(t, tree, c) << ": siblings by first kernel";
            lastFirstStart = t.kernels.start[first.value];
        }
        EXPECT_EQ(begin, tree.kernelEnd[i]);
        EXPECT_EQ(kernels, tree.kernels[i]) << nodePath(t, tree, i);
        EXPECT_EQ(ns, tree.gpuTimeNs[i]) << nodePath(t, tree, i);
        EXPECT_EQ(flopsNs, tree.flopsTimeNs[i]) << nodePath(t, tree, i);
        EXPECT_EQ(tcNs, tree.tcUsedTimeNs[i]) << nodePath(t, tree, i);
        EXPECT_EQ(std::isnan(flops), std::isnan(tree.flops[i])) << nodePath(t, tree, i);
        if (!std::isnan(flops)) {
            EXPECT_DOUBLE_EQ(flops, tree.flops[i]) << nodePath(t, tree, i);
        }
    }
    // Every kernel once, in the slice of its leaf and of each of the leaf's ancestors.
    std::vector<int> seen(t.kernels.size(), 0);
    for (auto k : tree.orderedKernels) ++seen[k.value];
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<long>(t.kernels.size()))
        << "a permutation of the kernels";
    for (uint32_t slot = 0; slot < tree.orderedKernels.size(); ++slot) {
        const uint32_t k = tree.orderedKernels[slot].value;
        for (uint32_t a = tree.kernelNode[k];; a = tree.parent[a]) {
            EXPECT_TRUE(tree.kernelBegin[a] <= slot && slot < tree.kernelEnd[a])
                << "kernel " << k << ", node " << nodePath(t, tree, a);
            if (a == 0) break;
        }
    }
}

// --- The bundled sample: one training iteration of a 2-layer GPT-2 ---------------------------

class LayerTreeSample : public SampleTraceSuite {
  protected:
    static void SetUpTestSuite() {
        SampleTraceSuite::SetUpTestSuite();
        tree_ = std::make_unique<LayerTree>(ls::buildLayerTree(*trace_));
    }
    static void TearDownTestSuite() {
        tree_.reset();
        SampleTraceSuite::TearDownTestSuite();
    }
    static inline std::unique_ptr<LayerTree> tree_;
};

TEST_F(LayerTreeSample, RootHoldsEveryKernelAndAllKernelTimeAsSqlCountsThem) {
    SqlReader sql(sampleTrace());
    ASSERT_TRUE(sql.ok());
    const LayerTree& tree = *tree_;
    EXPECT_EQ(static_cast<int64_t>(tree.kernels[0]),
              sql.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    EXPECT_EQ(static_cast<int64_t>(tree.gpuTimeNs[0]),
              sql.scalar("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    EXPECT_EQ(ls::layerNodeName(*trace_, tree, 0), "All kernels");
    EXPECT_EQ(ids(ls::kernelsOfNode(*trace_, tree, 0)).size(), trace_->kernels.size());
}

TEST_F(LayerTreeSample, IterationHoldsForwardBackwardOptimizerInThatOrder) {
    const auto& t = *trace_;
    const LayerTree& tree = *tree_;
    EXPECT_EQ(childNames(t, tree, 0), (std::vector<std::string>{"iteration 2"}));
    const uint32_t it = nodeAt(t, tree, {"iteration 2"});
    EXPECT_EQ(tree.kind[it], LayerNodeKind::Range);
    EXPECT_EQ(tree.kernels[it], tree.kernels[0]);
    EXPECT_EQ(childNames(t, tree, it),
              (std::vector<std::string>{"forward", "backward", "optimizer"}));
    // Layers in forward order; backward runs them the other way round. Ops outside the layers
    // (embedding, LM head, loss) hang off the direction: their "layer" is the phase range.
    const auto forward = childNames(t, tree, nodeAt(t, tree, {"iteration 2", "forward"}));
    const auto backward = childNames(t, tree, nodeAt(t, tree, {"iteration 2", "backward"}));
    auto pos = [](const std::vector<std::string>& v, const std::string& s) {
        return std::find(v.begin(), v.end(), s) - v.begin();
    };
    EXPECT_LT(pos(forward, "aten::embedding"), pos(forward, "layer0"));
    EXPECT_LT(pos(forward, "layer0"), pos(forward, "layer1"));
    EXPECT_LT(pos(forward, "layer1"), pos(forward, "aten::cross_entropy_loss"));
    EXPECT_LT(pos(backward, "layer1"), pos(backward, "layer0"));
    EXPECT_LT(pos(backward, "layer0"), pos(backward, "EmbeddingBackward0"));
    EXPECT_EQ(tree.kind[nodeAt(t, tree, {"iteration 2", "forward", "layer0"})],
              LayerNodeKind::Layer);
    EXPECT_EQ(childNames(t, tree, nodeAt(t, tree, {"iteration 2", "optimizer"})).size(), 6u)
        << "no layer level: 'optimizer' is a phase";
}

TEST_F(LayerTreeSample, TreeIsConsistent) { expectConsistent(*trace_, *tree_); }

// layer0 forward as the `kernels` CSV counts it (columns layer, direction, duration_ns, flops,
// tc), and as layer_sum reports it.
TEST_F(LayerTreeSample, Layer0ForwardHasTheKernelsOfLayer0InTheForwardDirection) {
    const auto& t = *trace_;
    const LayerTree& tree = *tree_;
    const uint32_t n = nodeAt(t, tree, {"iteration 2", "forward", "layer0"});
    uint64_t kernels = 0, ns = 0, tcNs = 0, flopsNs = 0;
    double flops = 0;
    const auto& csv = *kernels_;
    for (size_t r : csv.where("layer", "layer0")) {
        if (csv.at(r, "direction") != "forward") continue;
        const uint64_t d = std::stoull(csv.at(r, "duration_ns"));
        ++kernels;
        ns += d;
        if (csv.at(r, "tc") == "used") tcNs += d;
        if (!csv.at(r, "flops").empty()) {
            flops += std::stod(csv.at(r, "flops"));
            flopsNs += d;
        }
    }
    EXPECT_EQ(kernels, 24u);
    EXPECT_EQ(tree.kernels[n], kernels);
    EXPECT_EQ(tree.gpuTimeNs[n], ns);
    EXPECT_EQ(tree.tcUsedTimeNs[n], tcNs);
    EXPECT_EQ(tree.flopsTimeNs[n], flopsNs);
    EXPECT_DOUBLE_EQ(tree.flops[n], flops);

    std::string raw;
    const auto layerSum = runSummary({"sample", sampleTrace(), true}, "layer_sum", raw);
    bool found = false;
    for (const auto& row : layerSum) {
        if (row.size() < 6 || row[0] != "layer0" || row[1] != "forward") continue;
        found = true;
        EXPECT_EQ(row[2], std::to_string(tree.kernels[n]));
        EXPECT_EQ(row[3], std::to_string(tree.gpuTimeNs[n]));
    }
    EXPECT_TRUE(found) << raw;
}

// A click on a layer shows the layer in both directions; on any other node its subtree.
TEST_F(LayerTreeSample, KernelsOfALayerNodeAreKernelsOfLayerInBothDirections) {
    const auto& t = *trace_;
    const LayerTree& tree = *tree_;
    const uint32_t fwd = nodeAt(t, tree, {"iteration 2", "forward", "layer0"});
    const uint32_t bwd = nodeAt(t, tree, {"iteration 2", "backward", "layer0"});
    const auto layer0 = ls::kernelsOfLayer(t, t.strings.find("layer0"));
    EXPECT_EQ(layer0.size(), 24u + 42u);
    EXPECT_EQ(ids(ls::kernelsOfNode(t, tree, fwd)), ids(layer0));
    EXPECT_EQ(ids(ls::kernelsOfNode(t, tree, bwd)), ids(layer0));
    EXPECT_EQ(tree.kernels[fwd] + tree.kernels[bwd], layer0.size());
    std::vector<uint32_t> csvIds;
    for (size_t r : kernels_->where("layer", "layer0"))
        csvIds.push_back(static_cast<uint32_t>(std::stoul(kernels_->at(r, "id"))));
    std::sort(csvIds.begin(), csvIds.end());
    EXPECT_EQ(ids(layer0), csvIds);

    // An op node: its kernels, sorted by id, all of that op in layer0's forward.
    const uint32_t addmm = nodeAt(t, tree, {"iteration 2", "forward", "layer0", "aten::addmm"});
    const auto k = ls::kernelsOfNode(t, tree, addmm);
    EXPECT_EQ(k.size(), tree.kernels[addmm]);
    EXPECT_TRUE(std::is_sorted(k.begin(), k.end()));
    for (auto id : k) EXPECT_EQ(tree.kernelNode[id.value], addmm);
}

// Each kernel's path from its `kernels` CSV row (direction; layer unless it names a phase) and its
// op instance (the outermost op: aten::linear around aten::to, Optimizer.step around _foreach_
// ops; the CSV's op column is the innermost marker). Every kernel here ran inside "iteration 2".
TEST_F(LayerTreeSample, EveryKernelGoesDownItsDirectionLayerAndOpInstance) {
    const auto& t = *trace_;
    const LayerTree& tree = *tree_;
    const auto& csv = *kernels_;
    ASSERT_EQ(csv.rows.size(), t.kernels.size());
    const std::set<std::string> phases = {"forward", "backward", "optimizer"};
    std::map<std::string, std::set<uint32_t>> instances;
    for (size_t r = 0; r < csv.rows.size(); ++r) {
        const auto k = static_cast<uint32_t>(std::stoul(csv.at(r, "id")));
        const ls::OpId op = t.kernelLinks.opInstance[k];
        std::string expected = "iteration 2 > " + csv.at(r, "direction");
        if (!csv.at(r, "layer").empty() && !phases.count(csv.at(r, "layer")))
            expected += " > " + csv.at(r, "layer");
        expected +=
            " > " + (op.valid() ? std::string(t.str(t.ranges.name[t.ops.range[op.value].value]))
                                : "(no op)");
        EXPECT_EQ(nodePath(t, tree, tree.kernelNode[k]), expected) << "kernel " << k;
        if (op.valid()) instances[expected].insert(op.value);
    }
    // An op node merges the instances of one name: layer0's three aten::addmm instances, and their
    // three backward nodes, are one node each.
    EXPECT_EQ(instances["iteration 2 > forward > layer0 > aten::addmm"].size(), 3u);
    EXPECT_EQ(instances["iteration 2 > backward > layer0 > AddmmBackward0"].size(), 3u);
}

TEST_F(LayerTreeSample, CliReportListsTheTreeInPreorder) {
    const auto& t = *trace_;
    const LayerTree& tree = *tree_;
    const CliTable csv = cliTable({"summary", sampleTrace().string(), "--report", "layer_tree"});
    EXPECT_EQ(csv.header,
              (std::vector<std::string>{"path", "depth", "kind", "name", "kernels", "gpu_time_ns",
                                        "gpu_time_pct", "flops", "tflops_s", "tc_time_pct"}));
    ASSERT_EQ(csv.rows.size(), tree.size());
    EXPECT_EQ(csv.rows[0], (std::vector<std::string>{
                               "", "0", "root", "All kernels", std::to_string(t.kernels.size()),
                               std::to_string(tree.gpuTimeNs[0]), "100.00", csv.rows[0][7],
                               csv.rows[0][8], csv.rows[0][9]}));
    const auto rows = csv.where("path", "iteration 2 > forward > layer0");
    ASSERT_EQ(rows.size(), 1u);
    const size_t r = rows[0];
    const uint32_t n = nodeAt(t, tree, {"iteration 2", "forward", "layer0"});
    EXPECT_EQ(csv.at(r, "depth"), "3");
    EXPECT_EQ(csv.at(r, "kind"), "layer");
    EXPECT_EQ(csv.at(r, "name"), "layer0");
    EXPECT_EQ(csv.at(r, "kernels"), std::to_string(tree.kernels[n]));
    EXPECT_EQ(csv.at(r, "gpu_time_ns"), std::to_string(tree.gpuTimeNs[n]));
    EXPECT_EQ(csv.at(r, "flops"), "15342501888");
    // Preorder: each row's parent path is an earlier row.
    std::set<std::string> seen{""};
    for (size_t i = 1; i < csv.rows.size(); ++i) {
        const std::string& path = csv.at(i, "path");
        const auto cut = path.rfind(" > ");
        EXPECT_TRUE(seen.count(cut == std::string::npos ? "" : path.substr(0, cut))) << path;
        seen.insert(path);
    }
}

// --- Hand-built fixtures (process 100: main thread 101, autograd thread 102) -----------------

// No user range at all: the direction nodes hang off the root. Two forward aten::mm instances
// merge into one op node; a kernel launched outside every range goes to other > (no op).
TEST(LayerTreeFixtures, WithoutUserRangesDirectionsHangOffTheRoot) {
    TempDir dir;
    const auto l = fixture::loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, text, globalTid) VALUES
            (100, 200, 'aten::mm, seq = 3, op_id = 1', (100 << 24) | 101),
            (1000, 2000, 'autograd::engine::evaluate_function: MmBackward0, op_id = 5', (100 << 24) | 102),
            (1100, 1500, 'MmBackward0, seq = 3, op_id = 6', (100 << 24) | 102),
            (2500, 2600, 'aten::mm, seq = 4, op_id = 7', (100 << 24) | 101);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId, globalTid) VALUES
            (150, 160, 1, 11, (100 << 24) | 101), (1200, 1210, 2, 11, (100 << 24) | 102),
            (2550, 2560, 3, 11, (100 << 24) | 101), (3000, 3010, 4, 11, (100 << 24) | 101);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (10000, 10100, 1, 1, 1), (11000, 11020, 2, 2, 2), (12000, 12300, 3, 1, 1), (13000, 13004, 4, 3, 3);
    )");
    ASSERT_TRUE(l.trace);
    const auto& t = *l.trace;
    const LayerTree tree = ls::buildLayerTree(t);
    expectConsistent(t, tree);
    EXPECT_EQ(kernelPaths(t, tree),
              (std::vector<std::string>{"forward > aten::mm", "backward > MmBackward0",
                                        "forward > aten::mm", "other > (no op)"}));
    EXPECT_EQ(childNames(t, tree, 0), (std::vector<std::string>{"forward", "backward", "other"}));
    const uint32_t mm = nodeAt(t, tree, {"forward", "aten::mm"});
    EXPECT_EQ(tree.kernels[mm], 2u);
    EXPECT_EQ(tree.gpuTimeNs[mm], 400u);
    EXPECT_EQ(ids(ls::kernelsOfNode(t, tree, mm)), (std::vector<uint32_t>{0, 2}));
    EXPECT_EQ(tree.kind[nodeAt(t, tree, {"other"})], LayerNodeKind::Direction);
    EXPECT_EQ(tree.kind[nodeAt(t, tree, {"other", "(no op)"})], LayerNodeKind::Op);
    EXPECT_FALSE(tree.name[nodeAt(t, tree, {"other", "(no op)"})].valid());
    EXPECT_EQ(tree.gpuTimeNs[0], 100u + 20u + 300u + 4u);
}

// Two iterations, each with layer7 > aten::linear on the main thread and its backward node on
// the autograd thread, outside any user range: the backward kernels take the iteration of the
// forward op they pair with. A kernel right inside "iteration 1" has that range as its layer:
// it heads the path and the layer level is skipped. An AccumulateGrad wrapper carries no seq,
// pairs with nothing and so has no iteration.
TEST(LayerTreeFixtures, BackwardKernelsOnTheAutogradThreadTakeTheirForwardOpsIteration) {
    TempDir dir;
    const auto l = fixture::loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, text, globalTid) VALUES
            (0, 10000, 'iteration 1', (100 << 24) | 101),
            (100, 4000, 'layer7', (100 << 24) | 101),
            (200, 1000, 'aten::linear, seq = 5, op_id = 1', (100 << 24) | 101),
            (6000, 8000, 'autograd::engine::evaluate_function: AddmmBackward0, op_id = 10', (100 << 24) | 102),
            (6100, 7000, 'AddmmBackward0, seq = 5, op_id = 11', (100 << 24) | 102),
            (8500, 9000, 'autograd::engine::evaluate_function: torch::autograd::AccumulateGrad, op_id = 12', (100 << 24) | 102),
            (8600, 8800, 'torch::autograd::AccumulateGrad, op_id = 13', (100 << 24) | 102),
            (20000, 30000, 'iteration 2', (100 << 24) | 101),
            (20100, 24000, 'layer7', (100 << 24) | 101),
            (20200, 21000, 'aten::linear, seq = 7, op_id = 21', (100 << 24) | 101),
            (26000, 28000, 'autograd::engine::evaluate_function: AddmmBackward0, op_id = 30', (100 << 24) | 102),
            (26100, 27000, 'AddmmBackward0, seq = 7, op_id = 31', (100 << 24) | 102);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId, globalTid) VALUES
            (300, 310, 1, 11, (100 << 24) | 101), (4500, 4510, 2, 11, (100 << 24) | 101),
            (6200, 6210, 3, 11, (100 << 24) | 102), (8700, 8710, 4, 11, (100 << 24) | 102),
            (20300, 20310, 5, 11, (100 << 24) | 101), (26200, 26210, 6, 11, (100 << 24) | 102),
            (40000, 40010, 7, 11, (100 << 24) | 101);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (100000, 100010, 1, 1, 1), (100100, 100110, 2, 2, 2), (100200, 100210, 3, 3, 3), (100300, 100310, 4, 1, 1),
            (100400, 100410, 5, 1, 1), (100500, 100510, 6, 3, 3), (100600, 100610, 7, 2, 2);
    )");
    ASSERT_TRUE(l.trace);
    const auto& t = *l.trace;
    const LayerTree tree = ls::buildLayerTree(t);
    expectConsistent(t, tree);
    const std::string accumulate =
        "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad";
    EXPECT_EQ(kernelPaths(t, tree), (std::vector<std::string>{
                                        "iteration 1 > forward > layer7 > aten::linear",
                                        "iteration 1 > other > (no op)",
                                        "iteration 1 > backward > layer7 > AddmmBackward0",
                                        "backward > " + accumulate,
                                        "iteration 2 > forward > layer7 > aten::linear",
                                        "iteration 2 > backward > layer7 > AddmmBackward0",
                                        "other > (no op)",
                                    }));
    EXPECT_EQ(childNames(t, tree, 0),
              (std::vector<std::string>{"iteration 1", "backward", "iteration 2", "other"}));
    EXPECT_EQ(childNames(t, tree, nodeAt(t, tree, {"iteration 1"})),
              (std::vector<std::string>{"forward", "other", "backward"}));
    // The layer node counts its own kernels; a click shows layer7 everywhere, both directions.
    const uint32_t layer = nodeAt(t, tree, {"iteration 2", "backward", "layer7"});
    EXPECT_EQ(tree.kernels[layer], 1u);
    EXPECT_EQ(ids(ls::kernelsOfNode(t, tree, layer)), (std::vector<uint32_t>{0, 2, 4, 5}));
    EXPECT_EQ(ids(ls::kernelsOfNode(t, tree, nodeAt(t, tree, {"iteration 2"}))),
              (std::vector<uint32_t>{4, 5}));
}

// The iteration as a start/end range (nvtxRangeStart/End) around push/pop ranges: it is on the
// stack of every launch inside it, also where it is the innermost range, and on the stack of the
// forward op a backward node pairs with. "forward" is a phase; "model" lies inside the
// iteration, so the iteration heads the path.
TEST(LayerTreeFixtures, StartEndIterationRangeHeadsThePathOfEverythingInside) {
    TempDir dir;
    const auto l = fixture::loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid) VALUES
            (0, 10000, 60, 'iteration 3', (100 << 24) | 101),
            (100, 5000, 59, 'forward', (100 << 24) | 101),
            (150, 4000, 59, 'model', (100 << 24) | 101),
            (200, 3000, 59, 'layer1', (100 << 24) | 101),
            (300, 1000, 59, 'aten::mm, seq = 8, op_id = 1', (100 << 24) | 101),
            (350, 350, 34, 'iteration 9', (100 << 24) | 101),
            (6000, 8000, 59, 'autograd::engine::evaluate_function: MmBackward0, op_id = 2', (100 << 24) | 102),
            (6100, 7000, 59, 'MmBackward0, seq = 8, op_id = 3', (100 << 24) | 102);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId, globalTid) VALUES
            (400, 410, 1, 11, (100 << 24) | 101), (6200, 6210, 2, 11, (100 << 24) | 102),
            (5500, 5510, 3, 11, (100 << 24) | 101), (12000, 12010, 4, 11, (100 << 24) | 101);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (20000, 20010, 1, 1, 1), (20100, 20110, 2, 2, 2), (20200, 20210, 3, 3, 3), (20300, 20310, 4, 1, 1);
    )");
    ASSERT_TRUE(l.trace);
    const auto& t = *l.trace;
    const LayerTree tree = ls::buildLayerTree(t);
    expectConsistent(t, tree);
    EXPECT_EQ(kernelPaths(t, tree), (std::vector<std::string>{
                                        "iteration 3 > forward > layer1 > aten::mm",
                                        "iteration 3 > backward > layer1 > MmBackward0",
                                        "iteration 3 > other > (no op)",
                                        "other > (no op)",
                                    }));
}

// Two kernels of one aten::mm range, launched before and after a start/end iteration range that
// began before it ends inside it: the first has the iteration on its stack, the second not, so
// the second does not take the first's path (kernels of one innermost range share one only where
// that range's stack alone decides it).
TEST(LayerTreeFixtures, KernelsOfOneRangeSplitByAStartEndRangeGoDifferentPaths) {
    TempDir dir;
    const auto l = fixture::loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid) VALUES
            (50, 500, 60, 'iteration 4', (100 << 24) | 101),
            (100, 1000, 59, 'aten::mm, seq = 8, op_id = 1', (100 << 24) | 101);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId, globalTid) VALUES
            (200, 210, 1, 11, (100 << 24) | 101), (600, 610, 2, 11, (100 << 24) | 101);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (20000, 20010, 1, 1, 1), (20100, 20110, 2, 1, 1);
    )");
    ASSERT_TRUE(l.trace);
    const auto& t = *l.trace;
    ASSERT_EQ(t.kernelLinks.range[0], t.kernelLinks.range[1]) << "both launched inside aten::mm";
    const LayerTree tree = ls::buildLayerTree(t);
    expectConsistent(t, tree);
    EXPECT_EQ(kernelPaths(t, tree),
              (std::vector<std::string>{"iteration 4 > forward > aten::mm", "forward > aten::mm"}));
}

// Phase and layer ranges without an iteration range around them: "layer0" inside "forward" is
// a layer, not a top range, also for the backward kernels that take it from their forward op.
TEST(LayerTreeFixtures, LayerInsideAPhaseRangeIsNoTopRange) {
    TempDir dir;
    const auto l = fixture::loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, text, globalTid) VALUES
            (0, 5000, 'forward', (100 << 24) | 101),
            (100, 3000, 'layer0', (100 << 24) | 101),
            (200, 1000, 'aten::mm, seq = 3, op_id = 1', (100 << 24) | 101),
            (4000, 4500, 'aten::add, seq = 4, op_id = 2', (100 << 24) | 101),
            (6000, 8000, 'autograd::engine::evaluate_function: MmBackward0, op_id = 5', (100 << 24) | 102),
            (6100, 7000, 'MmBackward0, seq = 3, op_id = 6', (100 << 24) | 102),
            (9000, 9900, 'optimizer', (100 << 24) | 101);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId, globalTid) VALUES
            (300, 310, 1, 11, (100 << 24) | 101), (4100, 4110, 2, 11, (100 << 24) | 101),
            (6200, 6210, 3, 11, (100 << 24) | 102), (9100, 9110, 4, 11, (100 << 24) | 101);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (20000, 20010, 1, 1, 1), (20100, 20110, 2, 2, 2), (20200, 20210, 3, 3, 3), (20300, 20310, 4, 1, 1);
    )");
    ASSERT_TRUE(l.trace);
    const auto& t = *l.trace;
    const LayerTree tree = ls::buildLayerTree(t);
    expectConsistent(t, tree);
    EXPECT_EQ(kernelPaths(t, tree), (std::vector<std::string>{
                                        "forward > layer0 > aten::mm",
                                        "forward > aten::add",
                                        "backward > layer0 > MmBackward0",
                                        "optimizer > (no op)",
                                    }));
    EXPECT_EQ(childNames(t, tree, 0),
              (std::vector<std::string>{"forward", "backward", "optimizer"}));
}

// --- The DDP trace: two training steps ("step 3 rank 0", "step 4 rank 0") ---------------------

TEST(LayerTreeDdp, EachTrainingStepIsATopNode) {
    const auto file = sharedDir() / "traces" / "ddp_bf16_h200x2_rank0.sqlite";
    if (!std::filesystem::exists(file))
        GTEST_SKIP() << file.string() << " absent (the DDP trace lives in ../shared/traces)";
    auto r = ls::loadTrace(file.string());
    ASSERT_TRUE(r.ok());
    const auto& t = *r.trace;
    const LayerTree tree = ls::buildLayerTree(t);
    expectConsistent(t, tree);
    std::vector<std::string> steps;
    for (uint32_t c : ls::layerTreeChildren(tree, 0))
        if (tree.kind[c] == LayerNodeKind::Range) steps.emplace_back(ls::layerNodeName(t, tree, c));
    EXPECT_EQ(steps, (std::vector<std::string>{"step 3 rank 0", "step 4 rank 0"}));
    for (const auto& step : steps) {
        const uint32_t n = nodeAt(t, tree, {step});
        EXPECT_EQ(childNames(t, tree, n),
                  (std::vector<std::string>{"forward", "backward", "optimizer"}))
            << step;
        // No layer ranges inside the steps: the step is every op's layer, and it is not repeated.
        for (uint32_t d : ls::layerTreeChildren(tree, n))
            for (uint32_t c : ls::layerTreeChildren(tree, d))
                EXPECT_EQ(tree.kind[c], LayerNodeKind::Op) << nodePath(t, tree, c);
    }
    // AccumulateGrad nodes carry no seq, so they pair with no forward op: their kernels (DDP's
    // gradient scaling and NCCL all-reduce) are backward work outside any step.
    EXPECT_EQ(childNames(t, tree, 0),
              (std::vector<std::string>{"step 3 rank 0", "backward", "step 4 rank 0"}));
}

} // namespace
