// The PyTorch profiler (Kineto) importer against the nsys sample of the same program, the HTA
// traces and the FSDP ranks: same kernels, layers, directions and FLOPs; every kernel linked.
#include "core/load/load.h"
#include "core/model/direction.h"
#include "core/views/layer_tree.h"
#include "tests/support/test_support.h"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <string>

namespace ls::test {
namespace {

fs::path kinetoData(const char* name) { return sourceDir() / "tests" / "data" / "kineto" / name; }
fs::path htaTrace(const char* name) { return thirdPartyTrace(std::string("kineto/") + name); }

std::shared_ptr<const Trace> load(const fs::path& p) {
    auto r = loadTrace(p.string(), {});
    EXPECT_TRUE(r.ok()) << p << ": " << (r.error ? r.error->reason : "");
    return r.trace;
}

// Start and end of every range with this name, in time order.
std::vector<std::pair<TimeNs, TimeNs>> spansNamed(const Trace& t, std::string_view name) {
    std::vector<std::pair<TimeNs, TimeNs>> out;
    for (size_t i = 0; i < t.ranges.size(); ++i)
        if (t.str(t.ranges.name[i]) == name) out.emplace_back(t.ranges.start[i], t.ranges.end[i]);
    std::sort(out.begin(), out.end());
    return out;
}

struct StepCounts {
    size_t kernels = 0;
    std::map<std::pair<std::string, std::string>, size_t> byLayerDirection;
    double forwardGemmFlops = 0;
};

// Kernels whose launch call starts inside [from, to) (any thread: backward runs on its own).
StepCounts countStep(const Trace& t, TimeNs from, TimeNs to) {
    StepCounts c;
    for (size_t k = 0; k < t.kernels.size(); ++k) {
        const ApiCallId call = t.kernels.launch[k];
        if (!call.valid()) continue;
        const TimeNs at = t.apiCalls.start[call.value];
        if (at < from || at >= to) continue;
        ++c.kernels;
        const std::string layer(t.str(t.kernelLinks.layer[k]));
        const std::string dir(directionName(t.kernelLinks.direction[k]));
        ++c.byLayerDirection[{layer, dir}];
        const RangeId op = t.kernelLinks.op[k];
        const std::string_view opName = op.valid() ? t.str(t.ranges.name[op.value]) : "";
        if (dir == "forward" && (opName == "aten::mm" || opName == "aten::addmm") &&
            !std::isnan(t.metrics.flops[k]))
            c.forwardGemmFlops += t.metrics.flops[k];
    }
    return c;
}

TEST(KinetoImport, EachProfilerStepMatchesTheNsysSampleOfTheSameProgram) {
    const auto json = load(kinetoData("gpt2_2layer_fp16_h200.kineto.json.gz"));
    const auto nsys = load(sampleTrace());
    ASSERT_TRUE(json && nsys);
    EXPECT_EQ(json->info.format, "PyTorch profiler (Kineto) JSON");
    EXPECT_EQ(json->kernels.size(), 428u);
    StepCounts reference = countStep(*nsys, nsys->captureStart, nsys->captureEnd + 1);
    ASSERT_EQ(reference.kernels, 214u);
    EXPECT_EQ((reference.byLayerDirection[{"layer0", "forward"}]), 24u);
    EXPECT_EQ((reference.byLayerDirection[{"layer0", "backward"}]), 42u);
    // 2 x tokens (seq 256 x batch 4) x the Linear weights: 2 layers of qkv, proj, fc1, fc2, and the
    // head.
    const double weights = 2.0 * (768 * 2304 + 768 * 768 + 2 * 768 * 3072) + 768.0 * 50257;
    EXPECT_DOUBLE_EQ(reference.forwardGemmFlops, 2.0 * 1024 * weights);

    const auto steps = spansNamed(*json, "ProfilerStep#1");
    const auto steps2 = spansNamed(*json, "ProfilerStep#2");
    ASSERT_EQ(steps.size(), 1u);
    ASSERT_EQ(steps2.size(), 1u);
    // A step's backward kernels launch before the next step starts: count up to the next step.
    const StepCounts one = countStep(*json, steps[0].first, steps2[0].first);
    const StepCounts two = countStep(*json, steps2[0].first, json->captureEnd + 1);
    for (const StepCounts* step : {&one, &two}) {
        EXPECT_EQ(step->kernels, 214u);
        EXPECT_EQ(step->byLayerDirection, reference.byLayerDirection);
        EXPECT_DOUBLE_EQ(step->forwardGemmFlops, reference.forwardGemmFlops);
    }
}

TEST(KinetoImport, OpsArePairedAsTheFlowsSayAndShapesAreRead) {
    const auto t = load(kinetoData("gpt2_2layer_fp16_h200.kineto.json.gz"));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->fwdBwdFlows.size(), 246u);
    EXPECT_EQ(t->report.count(Anomaly::FlowDisagreement), 0u);
    EXPECT_EQ(t->report.count(Anomaly::OrphanGpuOp), 0u);
    EXPECT_EQ(t->report.count(Anomaly::MalformedEvent), 0u);
    // Every backward node with a seq found its forward op.
    size_t nodes = 0, paired = 0;
    for (size_t o = 0; o < t->ops.size(); ++o) {
        // Backward nodes only: aten::to and aten::mul of the loss scaling run in the backward phase
        // range.
        const std::string_view name = t->str(t->ranges.name[t->ops.range[o].value]);
        if (name.find("Backward") == std::string_view::npos ||
            t->ranges.seq[t->ops.range[o].value] < 0)
            continue;
        ++nodes;
        paired += t->ops.paired[o].valid();
    }
    EXPECT_GT(nodes, 200u);
    EXPECT_EQ(paired, nodes);
    // Tensor-list arguments are spliced like emit_nvtx writes them.
    bool sawForeach = false;
    for (size_t i = 0; i < t->ranges.size(); ++i) {
        if (t->str(t->ranges.name[i]) != "aten::_foreach_sqrt") continue;
        sawForeach = true;
        EXPECT_EQ(t->str(t->ranges.sizes[i]).substr(0, 30), "[[50257, 768], [256, 768], [76");
    }
    EXPECT_TRUE(sawForeach);
}

TEST(KinetoImport, DevicesProcessesAndThreadsComeFromTheMetadata) {
    const auto t = load(kinetoData("gpt2_2layer_fp16_h200.kineto.json.gz"));
    ASSERT_TRUE(t);
    ASSERT_EQ(t->devices.size(), 1u);
    EXPECT_EQ(t->devices[0].name, "NVIDIA H200");
    EXPECT_EQ(t->devices[0].smCount, 132u);
    EXPECT_EQ(t->devices[0].computeMajor, 9);
    ASSERT_EQ(t->processes.size(), 1u);
    EXPECT_EQ(t->processes[0].pid, 651u);
    EXPECT_EQ(t->processes[0].name, "python3");
    ASSERT_EQ(t->threads.size(), 2u);
    std::set<std::string> names;
    for (const auto& th : t->threads) names.insert(th.name);
    EXPECT_TRUE(
        names.count("thread 676 (pt_autograd_0)")); // the last of two thread_name events wins
    // Exact nanoseconds: the first ProfilerStep starts at ts 4628894601748.236 us.
    EXPECT_EQ(spansNamed(*t, "ProfilerStep#1").at(0).first, 4628894601748236);
}

// Every kernel has its launch call and every kernel launch call has its kernel.
void expectAllLinked(const Trace& t) {
    for (size_t k = 0; k < t.kernels.size(); ++k)
        EXPECT_TRUE(t.kernels.launch[k].valid())
            << "kernel " << k << " " << t.str(t.kernels.name[k]);
    size_t launches = 0;
    for (size_t a = 0; a < t.apiCalls.size(); ++a) {
        const std::string_view name = t.str(t.apiCalls.name[a]);
        if (name.find("LaunchKernel") == std::string_view::npos) continue;
        ++launches;
        const auto [first, last] = t.apiKernels.of(ApiCallId(static_cast<uint32_t>(a)));
        EXPECT_NE(first, last) << name << " at " << t.apiCalls.start[a] << " launched nothing";
    }
    EXPECT_GT(launches, 0u);
    EXPECT_EQ(t.report.count(Anomaly::OrphanGpuOp), 0u);
}

TEST(KinetoImport, HtaTracesLoadWithEveryKernelLinkedAndSaySkippedEvents) {
    const char* names[] = {
        "HTA__critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz",
        "HTA__ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
        "HTA__trace_filter_sampled_rank-0.json.gz"};
    const size_t kernels[] = {79, 4350, 1154};
    for (size_t i = 0; i < 3; ++i) {
        SCOPED_TRACE(names[i]);
        const fs::path p = htaTrace(names[i]);
        if (!fs::exists(p)) GTEST_SKIP() << p << " absent";
        const auto t = load(p);
        ASSERT_TRUE(t);
        EXPECT_EQ(t->kernels.size(), kernels[i]);
        expectAllLinked(*t);
        EXPECT_GT(t->report.count(Anomaly::NotModelledEvent),
                  0u); // at least the profiler's own span
    }
}

TEST(KinetoImport, NanosecondTimestampsKeepTheirDigits) {
    const fs::path p =
        htaTrace("HTA__ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
    LS_REQUIRE_FILE(p);
    const auto t = load(p);
    ASSERT_TRUE(t);
    // The first kernel event in the file: "ts": 1712195495505582.988, "dur": 4.928
    // (CatArrayBatchedCopy); Python's json module reads that ts as 1712195495505583.0.
    bool found = false;
    for (size_t k = 0; k < t->kernels.size() && !found; ++k)
        found = t->kernels.start[k] == 1712195495505582988 && t->kernels.duration(k) == 4928;
    EXPECT_TRUE(found);
    size_t subMicrosecond = 0;
    for (size_t a = 0; a < t->apiCalls.size(); ++a)
        subMicrosecond += t->apiCalls.start[a] % 1000 != 0;
    EXPECT_GT(subMicrosecond, t->apiCalls.size() / 2);
}

TEST(KinetoImport, FsdpRanksLinkEveryKernelToItsLaunchAndOp) {
    for (const char* name : {"fsdp_rank0.kineto.json.gz", "fsdp_rank1.kineto.json.gz"}) {
        SCOPED_TRACE(name);
        const auto t = load(kinetoData(name));
        ASSERT_TRUE(t);
        EXPECT_EQ(t->kernels.size(), 298u);
        EXPECT_EQ(t->streams.size(), 4u);
        expectAllLinked(*t);
        size_t nccl = 0;
        for (size_t k = 0; k < t->kernels.size(); ++k) {
            EXPECT_TRUE(t->kernelLinks.op[k].valid()) << t->str(t->kernels.name[k]);
            nccl += t->str(t->kernels.name[k]).find("ncclDevKernel") != std::string_view::npos;
        }
        EXPECT_EQ(nccl, 36u);
        std::map<std::string, std::string> meta(t->info.metadata.begin(), t->info.metadata.end());
        EXPECT_EQ(meta["distributedInfo.rank"],
                  std::string(name).find("rank1") != std::string::npos ? "1" : "0");
        EXPECT_EQ(meta["distributedInfo.world_size"], "2");
        EXPECT_EQ(meta["distributedInfo.backend"], "nccl");
    }
}

} // namespace
} // namespace ls::test

namespace ls::test {
namespace {

std::map<std::pair<std::string, std::string>, size_t> kernelsByLayer(const Trace& t) {
    std::map<std::pair<std::string, std::string>, size_t> out;
    for (size_t k = 0; k < t.kernels.size(); ++k)
        ++out[{std::string(t.str(t.kernelLinks.layer[k])),
               std::string(directionName(t.kernelLinks.direction[k]))}];
    return out;
}

// The same program traced with with_stack=True (recorded for this project on an H100): nn.Module
// scopes name the layer where no user range does (the model's direct children), and the user's
// own layer ranges still win inside them.
TEST(KinetoImport, ModuleScopesNameLayersWhereNoUserRangeDoes) {
    const auto stack = load(kinetoData("gpt2_2layer_fp16_stack_h100.kineto.json.gz"));
    const auto plain = load(kinetoData("gpt2_2layer_fp16_h200.kineto.json.gz"));
    ASSERT_TRUE(stack && plain);
    EXPECT_EQ(stack->kernels.size(), 428u);
    auto withModules = kernelsByLayer(*stack);
    auto without = kernelsByLayer(*plain);
    for (const char* layer : {"layer0", "layer1"})
        for (const char* dir : {"forward", "backward"})
            EXPECT_EQ((withModules[{layer, dir}]), (without[{layer, dir}])) << layer << " " << dir;
    // What the plain trace leaves outside layers (its ops sit in the phase range "forward", which
    // is no layer) splits over the modules around it.
    EXPECT_EQ((withModules[{"nn.Module: Embedding_0", "forward"}]), 2u);
    EXPECT_EQ((withModules[{"nn.Module: Embedding_1", "forward"}]), 2u);
    EXPECT_EQ((withModules[{"nn.Module: LayerNorm_4", "forward"}]), 2u);
    EXPECT_EQ((withModules[{"nn.Module: Linear_4", "forward"}]), 6u);
    for (const char* dir : {"forward", "backward"}) {
        size_t split = withModules[{"", dir}];
        for (const char* m : {"nn.Module: Embedding_0", "nn.Module: Embedding_1",
                              "nn.Module: LayerNorm_4", "nn.Module: Linear_4"})
            split += withModules[{m, dir}];
        EXPECT_EQ(split, (without[{"", dir}])) << dir;
        EXPECT_EQ((without[{"forward", dir}]), 0u) << "a phase range is no layer";
    }
    // Python frames other than modules are counted, not kept.
    EXPECT_EQ(stack->report.count(Anomaly::NotModelledEvent),
              plain->report.count(Anomaly::NotModelledEvent) + 3147);
}

} // namespace
} // namespace ls::test

namespace ls::test {
namespace {

TEST(KinetoImport, ReportsProgressInBytesOfTheFile) {
    const fs::path p = htaTrace(
        "HTA__ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"); // 68k events
    LS_REQUIRE_FILE(p);
    std::vector<LoadProgress> seen;
    LoadOptions options;
    options.progress = [&](const LoadProgress& progress) { seen.push_back(progress); };
    ASSERT_TRUE(loadTrace(p.string(), options).ok());
    ASSERT_FALSE(seen.empty());
    for (const auto& s : seen) {
        EXPECT_TRUE(s.inBytes);
        EXPECT_EQ(s.rowsTotal, fs::file_size(p));
        EXPECT_LE(s.rowsRead, s.rowsTotal);
    }
}

} // namespace
} // namespace ls::test

namespace ls::test {
namespace {

// PyTorch 1.8/1.9 traces: capitalized categories, "Input dims", "external id", string stream tids.
TEST(KinetoImport, ReadsTheCategoriesOfPyTorch18) {
    TempDir dir;
    const fs::path p = dir / "old.pt.trace.json";
    std::ofstream(p) << R"json({"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "Operator", "name": "aten::mm", "pid": 10, "tid": "10", "ts": 100, "dur": 50,
   "args": {"Input dims": [[64, 128], [128, 32]], "external id": 5, "Sequence number": 3}},
  {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": "10", "ts": 110, "dur": 8,
   "args": {"correlation": 42, "external id": 5}},
  {"ph": "X", "cat": "Kernel", "name": "volta_sgemm_64x32_sliced1x4_nn", "pid": 0, "tid": "stream 7", "ts": 130, "dur": 12.5,
   "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 42, "external id": 5,
            "registers per thread": 64, "shared memory": 8192, "grid": [4, 1, 1], "block": [256, 1, 1]}},
  {"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": "stream 7", "ts": 90, "dur": 3,
   "args": {"device": 0, "context": 1, "stream": 7, "correlation": 41, "bytes": 4096}},
  {"ph": "X", "cat": "Runtime", "name": "cudaMemcpyAsync", "pid": 10, "tid": "10", "ts": 88, "dur": 5, "args": {"correlation": 41}}
]})json";
    const auto t = load(p);
    ASSERT_TRUE(t);
    ASSERT_EQ(t->kernels.size(), 1u);
    EXPECT_EQ(t->memcpys.size(), 1u);
    EXPECT_EQ(t->apiCalls.size(), 2u);
    EXPECT_TRUE(t->kernels.launch[0].valid());
    EXPECT_EQ(t->kernels.duration(0), 12500);
    EXPECT_EQ(t->streamOf(t->kernels, 0).stream, 7u);
    EXPECT_EQ(t->str(t->kernelLinks.op[0].valid() ? t->ranges.name[t->kernelLinks.op[0].value]
                                                  : StringId(0)),
              "aten::mm");
    EXPECT_EQ(t->ranges.opId[t->kernelLinks.op[0].value], 5);
    EXPECT_DOUBLE_EQ(t->metrics.flops[0], 2.0 * 64 * 128 * 32); // from "Input dims"
    EXPECT_EQ(t->report.count(Anomaly::UnknownEventCategory), 0u);
}

} // namespace
} // namespace ls::test

namespace ls::test {
namespace {

// A trace whose only ranges above the ops are the profiler's steps: each step heads the layer tree.
TEST(KinetoImport, ProfilerStepsAreTheIterationsWhenNoUserRangeIs) {
    TempDir dir;
    const fs::path p = dir / "steps.pt.trace.json";
    std::string events;
    for (int step = 4; step <= 5; ++step) {
        const int base = step * 1000, corr = step;
        events +=
            (events.empty() ? "" : ",\n") +
            std::string(R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)") +
            std::to_string(step) + R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(base) +
            R"(, "dur": 500},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": )" +
            std::to_string(base + 10) +
            R"(, "dur": 100, "args": {"Input Dims": [[64, 128], [128, 32]], "Sequence number": )" +
            std::to_string(step) + R"(}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )" +
            std::to_string(base + 20) + R"(, "dur": 5, "args": {"correlation": )" +
            std::to_string(corr) + R"(}},
  {"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 0, "tid": 7, "ts": )" +
            std::to_string(base + 40) +
            R"(, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": )" +
            std::to_string(corr) + "}}";
    }
    std::ofstream(p) << "{\"traceEvents\": [\n" << events << "\n]}";
    const auto t = load(p);
    ASSERT_TRUE(t);
    ASSERT_EQ(t->kernels.size(), 2u);
    const LayerTree tree = buildLayerTree(*t);
    std::vector<std::string> heads;
    for (size_t n = 0; n < tree.kind.size(); ++n)
        if (tree.depth[n] == 1) heads.emplace_back(t->str(tree.name[n]));
    EXPECT_EQ(heads, (std::vector<std::string>{"ProfilerStep#4", "ProfilerStep#5"}));
}

} // namespace
} // namespace ls::test

namespace ls::test {
namespace {

// A fwdbwd flow that joins the backward node to another forward op than its seq does is counted.
TEST(KinetoImport, CountsFwdBwdFlowsThatDisagreeWithSeqPairing) {
    TempDir dir;
    const fs::path p = dir / "flows.json";
    std::ofstream(p) << R"json({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"Sequence number": 1}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": {"Sequence number": 2}},
  {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: AddBackward0", "pid": 1, "tid": 2, "ts": 100, "dur": 9, "args": {"Sequence number": 2}},
  {"ph": "X", "cat": "cpu_op", "name": "AddBackward0", "pid": 1, "tid": 2, "ts": 101, "dur": 5, "args": {"Sequence number": 2}},
  {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: MulBackward0", "pid": 1, "tid": 2, "ts": 120, "dur": 9, "args": {"Sequence number": 1}},
  {"ph": "X", "cat": "cpu_op", "name": "MulBackward0", "pid": 1, "tid": 2, "ts": 121, "dur": 5, "args": {"Sequence number": 1}},
  {"ph": "s", "cat": "fwdbwd", "name": "fwdbwd", "id": 1, "pid": 1, "tid": 1, "ts": 20},
  {"ph": "f", "cat": "fwdbwd", "name": "fwdbwd", "id": 1, "pid": 1, "tid": 2, "ts": 101, "bp": "e"},
  {"ph": "s", "cat": "fwdbwd", "name": "fwdbwd", "id": 2, "pid": 1, "tid": 1, "ts": 20},
  {"ph": "f", "cat": "fwdbwd", "name": "fwdbwd", "id": 2, "pid": 1, "tid": 2, "ts": 121, "bp": "e"},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1, "ts": 200, "dur": 1, "args": {"correlation": 9}}
]})json";
    const auto t = load(p);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->fwdBwdFlows.size(), 2u);
    // Flow 1 (aten::add -> AddBackward0) agrees; flow 2 (aten::add -> MulBackward0) does not.
    EXPECT_EQ(t->report.count(Anomaly::FlowDisagreement), 1u);
}

} // namespace
} // namespace ls::test
