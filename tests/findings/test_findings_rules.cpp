// The rules about how kernels run (fusion_candidates, occupancy_limited, far_below_roofline,
// tiny_kernels), outlier iterations and what differs in them, comparisons against a reference
// run, and pageable copies in a PyTorch profiler trace. Each number is held against an
// independent source: the profiler JSON's own fields (as Python reads them), a hand computation,
// or the report the rule reads, re-derived here another way.
#include "core/compare/kernel_family.h"
#include "core/costs/kernel_class.h"
#include "core/findings/compare_findings.h"
#include "core/findings/findings.h"
#include "core/findings/iteration_windows.h"
#include "core/findings/kernel_findings.h"
#include "core/load/session_load.h"
#include "core/reports/gpu_idle.h"
#include "core/reports/iteration_summary.h"
#include "core/reports/launch_bound.h"
#include "core/reports/roofline.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace ls::test {
namespace {

fs::path defect(const std::string& name) {
    return sourceDir() / "tests" / "data" / "defects" / name;
}

struct TraceRun {
    Session session;
    FindingList list;
};

const TraceRun* run(const std::vector<fs::path>& files) {
    static std::map<std::vector<fs::path>, std::unique_ptr<TraceRun>> cache;
    auto& slot = cache[files];
    if (slot) return slot.get();
    std::vector<std::string> paths;
    for (const auto& f : files) {
        if (!fs::exists(f)) return nullptr;
        paths.push_back(f.string());
    }
    slot = std::make_unique<TraceRun>();
    slot->session = loadSession(paths);
    slot->list = findings(slot->session);
    return slot.get();
}

// The finding of `rule` and its rank (0 = costliest), or nullptr.
const Finding* ruleOf(const FindingList& list, const std::string& rule, size_t* rank = nullptr) {
    for (size_t i = 0; i < list.findings.size(); ++i)
        if (list.findings[i].rule == rule) {
            if (rank) *rank = i;
            return &list.findings[i];
        }
    return nullptr;
}

double evidenceTime(const Trace& t, const Finding& f) {
    double sum = 0;
    for (const KernelId k : f.evidence.kernels)
        sum += static_cast<double>(t.kernels.duration(k.value));
    return sum;
}

// defect_pageable.kineto.json.gz, as Python reads it: 4 gpu_memcpy events named
// "Memcpy HtoD (Pageable -> Device)", 67108864 bytes each, 37791.055 µs in all; the 4th is in
// the last iteration, which no period follows.
TEST(FindingsKineto, PageableCopiesFoundFromTheMemcpyNames) {
    const TraceRun* r = run({defect("defect_pageable.kineto.json.gz")});
    if (!r) GTEST_SKIP() << "defect_pageable.kineto.json.gz absent";
    const Trace& t = *r->session.traces[0].trace;
    size_t pageable = 0;
    for (size_t i = 0; i < t.memcpys.size(); ++i)
        if (t.memcpys.kind[i] == CopyKind::HtoD && t.memcpys.srcKind[i] == 0 &&
            t.memcpys.dstKind[i] == 2)
            ++pageable;
    EXPECT_EQ(pageable, 4u);
    size_t rank = 0;
    const Finding* f = ruleOf(r->list, "pageable_copy", &rank);
    ASSERT_NE(f, nullptr);
    EXPECT_LT(rank, 3u);
    EXPECT_EQ(f->figure("copies"), 3);
    EXPECT_LT(f->figure("copy_gpu_ns"), 37791.055e3);
    EXPECT_GT(f->figure("copy_gpu_ns"), 0.7 * 37791.055e3);
    EXPECT_NE(f->statement.find("(192 MiB)"), std::string::npos) << f->statement;
    // The planted defect's cost: iteration 48.9 ms against the clean 38.6 (README.md).
    EXPECT_NEAR(f->costMsPerIteration, 48.9 - 38.6, 0.25 * (48.9 - 38.6));
}

// The clean baseline's profiler trace names its copies pinned or device-side: no finding.
TEST(FindingsKineto, CleanBaselineHasNoPageableCopyAndNothingOverFivePercent) {
    const TraceRun* r = run({defect("defect_none.kineto.json.gz")});
    if (!r) GTEST_SKIP() << "defect_none.kineto.json.gz absent";
    EXPECT_EQ(ruleOf(r->list, "pageable_copy"), nullptr);
    for (const Finding& f : r->list.findings)
        EXPECT_LE(f.costMsPerIteration, 0.05 * r->list.iterationMs) << f.statement;
}

// cunn_SoftMaxForward in defect_none.kineto.json.gz: 36 registers a thread, blocks of 1024.
// By hand: 36 registers round up to 40 (256 a warp), 40 × 1024 = 40960 of the SM's 65536, so one
// block of 32 warps of 64: 50 %; without the register limit, two blocks: 100 %. The profiler's
// own "est. achieved occupancy %" says 50. Three launches fall in iteration periods:
// 1441.652 + 1438.803 + 1440.788 µs.
TEST(FindingsRules, OccupancyLimitedSoftmaxByHand) {
    const TraceRun* r = run({defect("defect_none.kineto.json.gz")});
    if (!r) GTEST_SKIP() << "defect_none.kineto.json.gz absent";
    const Finding* f = ruleOf(r->list, "occupancy_limited");
    ASSERT_NE(f, nullptr);
    const Trace& t = *r->session.traces[0].trace;
    EXPECT_EQ(f->figure("kernels"), 3);
    EXPECT_DOUBLE_EQ(f->figure("occupancy_pct"), 50);
    EXPECT_NEAR(f->figure("gpu_time_ns"), (1441.652 + 1438.803 + 1440.788) * 1e3, 3);
    EXPECT_DOUBLE_EQ(f->figure("gpu_time_ns"), evidenceTime(t, *f));
    for (const KernelId k : f->evidence.kernels) {
        EXPECT_NE(t.str(t.kernels.name[k.value]).find("SoftMaxForward"), std::string::npos);
        EXPECT_EQ(t.kernels.registers[k.value], 36);
    }
    // The bound: never more than the half of the warps the registers take away.
    EXPECT_LE(f->figure("saved_ns"), 0.5 * f->figure("gpu_time_ns"));
    EXPECT_GT(f->figure("saved_ns"), 0);
    EXPECT_NE(f->statement.find("50.0 %"), std::string::npos);
    EXPECT_NE(f->statement.find("limited by registers"), std::string::npos);
}

// fusion_candidates re-derived: per stream, in start order, maximal runs of three or more
// element-wise kernels under 50 µs with other work before and after them on that stream.
TEST(FindingsRules, FusionChainsRederivedPerStream) {
    const TraceRun* r = run({defect("defect_none.sqlite")});
    if (!r) GTEST_SKIP() << "defect_none.sqlite absent";
    const Trace& t = *r->session.traces[0].trace;
    const IterationWindows w = iterationWindows(t);
    const TimeNs from = w.windows.front().start, to = w.windows.back().end;
    std::map<uint32_t, std::vector<uint32_t>> byStream;
    for (uint32_t k = 0; k < t.kernels.size(); ++k)
        if (t.kernels.start[k] >= from && t.kernels.start[k] < to)
            byStream[t.kernels.streamIndex[k].value].push_back(k);
    double time = 0, saved = 0, chains = 0, kernels = 0;
    for (auto& [stream, ks] : byStream) {
        std::stable_sort(ks.begin(), ks.end(), [&](uint32_t a, uint32_t b) {
            return t.kernels.start[a] < t.kernels.start[b];
        });
        auto small = [&](uint32_t k) {
            return classifyKernel(t.str(t.kernels.name[k]), t.metrics.tc[k]) ==
                       KernelClass::Elementwise &&
                   t.kernels.duration(k) < 50'000;
        };
        size_t i = 0;
        while (i < ks.size() && small(ks[i])) ++i; // no other work before these
        while (i < ks.size()) {
            if (!small(ks[i])) {
                ++i;
                continue;
            }
            size_t j = i;
            while (j < ks.size() && small(ks[j])) ++j;
            if (j < ks.size() && j - i >= 3) {
                TimeNs sum = 0, longest = 0;
                for (size_t c = i; c < j; ++c) {
                    sum += t.kernels.duration(ks[c]);
                    longest = std::max(longest, t.kernels.duration(ks[c]));
                }
                time += static_cast<double>(sum);
                saved += static_cast<double>(sum - longest);
                ++chains;
                kernels += static_cast<double>(j - i);
            }
            i = j;
        }
    }
    const Finding* f = ruleOf(r->list, "fusion_candidates");
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f->figure("gpu_time_ns"), time);
    EXPECT_DOUBLE_EQ(f->figure("saved_ns"), saved);
    EXPECT_DOUBLE_EQ(f->figure("chains"), chains);
    EXPECT_DOUBLE_EQ(f->figure("kernels"), kernels);
    EXPECT_NEAR(f->costMsPerIteration, saved / w.count() / 1e6, 1e-9);
    // Kernels in a chain are not looked at again for occupancy.
    const std::vector<uint8_t> chain =
        fusionChainKernels(t, kernelsInScope({&t, 0, 0, {}, "", {}}, w));
    for (const KernelId k : f->evidence.kernels) EXPECT_TRUE(chain[k.value]);
}

// far_below_roofline against the roofline report's own points (summary --report roofline):
// GEMMs on Tensor Cores under 25 % of their roof; cost at half the roof.
TEST(FindingsRules, FarBelowRooflineMatchesTheRooflineReport) {
    const fs::path p = sharedDir() / "traces" / "gpt2_2layer_fp16_h200.sqlite";
    const TraceRun* r = run({p});
    if (!r) GTEST_SKIP() << p << " absent";
    const Trace& t = *r->session.traces[0].trace;
    const Finding* f = ruleOf(r->list, "far_below_roofline");
    ASSERT_NE(f, nullptr);
    double time = 0, saved = 0, worst = 0, worstPercent = 0;
    for (const RooflinePoint& q : roofline(t, RooflineGrouping::Kernel)) {
        const KernelClass c = classifyKernel(q.group.name, q.tc);
        if (q.tc == TcState::NotUsed || !q.peaks ||
            (c != KernelClass::GemmTensorCore && c != KernelClass::GemmNoTensorCore) ||
            !(q.percentOfRoof() < 25))
            continue;
        const double s = static_cast<double>(q.gpuTimeNs) * (1 - q.percentOfRoof() / 50);
        time += static_cast<double>(q.gpuTimeNs);
        saved += s;
        if (s > worst) worst = s, worstPercent = q.percentOfRoof();
    }
    EXPECT_DOUBLE_EQ(f->figure("gpu_time_ns"), time);
    EXPECT_DOUBLE_EQ(f->figure("saved_ns"), saved);
    EXPECT_DOUBLE_EQ(f->figure("worst_percent_of_roof"), worstPercent);
    EXPECT_NEAR(f->costMsPerIteration, saved / iterationWindows(t).iterations / 1e6, 1e-9);
    for (const KernelId k : f->evidence.kernels) EXPECT_NE(t.metrics.tc[k.value], TcState::NotUsed);
}

// tiny_kernels: each evidence kernel runs shorter than its launch call (the launch_sum report's
// test), and their totals stay within that report's.
TEST(FindingsRules, TinyKernelsAreTheLaunchBoundOnes) {
    const fs::path p = sourceDir() / "tests" / "data" / "graphs" / "graphs_graph_nodes.sqlite";
    const TraceRun* r = run({p});
    if (!r) GTEST_SKIP() << p << " absent";
    const Trace& t = *r->session.traces[0].trace;
    const Finding* f = ruleOf(r->list, "tiny_kernels");
    ASSERT_NE(f, nullptr);
    TimeNs kernelTime = 0, launchTime = 0;
    for (const LaunchBoundRow& row : launchBoundSummary(t)) {
        kernelTime += row.kernelTime;
        launchTime += row.launchTime;
    }
    EXPECT_LE(f->figure("kernel_time_ns"), static_cast<double>(kernelTime));
    EXPECT_LE(f->figure("launch_time_ns"), static_cast<double>(launchTime));
    EXPECT_GT(f->figure("launch_time_ns"), f->figure("kernel_time_ns"));
    for (const KernelId k : f->evidence.kernels) EXPECT_TRUE(isLaunchBound(t, k));
    // Each gap goes to one rule: the idle the rules charge, tiny_kernels' included, is never
    // more than the GPU's idle inside the iteration periods (idle_sum's gaps).
    const IterationWindows w = iterationWindows(t);
    double idle = 0, charged = 0;
    for (const GpuGap& g : gpuIdle(t).gaps)
        idle += static_cast<double>(std::max<TimeNs>(
            0, std::min(g.end, w.windows.back().end) - std::max(g.start, w.windows.front().start)));
    for (const Finding& other : r->list.findings) charged += other.figure("idle_ns");
    EXPECT_LE(charged, idle);
}

// An outlier iteration that idles more: its longest gap, as the gaps report gives it.
TEST(FindingsRules, SlowIterationNamesItsLongestGap) {
    const fs::path p = sourceDir() / "tests" / "data" / "iterations" / "gpt2_fp16_5it_h100.sqlite";
    const TraceRun* r = run({p});
    if (!r) GTEST_SKIP() << p << " absent";
    const Trace& t = *r->session.traces[0].trace;
    const Finding* f = ruleOf(r->list, "slow_iteration");
    ASSERT_NE(f, nullptr);
    const IterationSummary s = iterationSummary(t);
    const IterationRow* outlier = nullptr;
    for (const IterationRow& row : s.rows)
        if (row.outlier && row.duration() > s.median.duration()) outlier = &row;
    ASSERT_NE(outlier, nullptr);
    TimeNs longest = 0;
    for (const GpuGap& g : gpuIdle(t).gaps)
        if (g.end > outlier->gpuStart && g.start < outlier->gpuEnd)
            longest = std::max(longest, std::min(g.end, outlier->gpuEnd) -
                                            std::max(g.start, outlier->gpuStart));
    EXPECT_DOUBLE_EQ(f->figure("longest_gap_ns"), static_cast<double>(longest));
    EXPECT_NE(f->statement.find(outlier->name), std::string::npos);
}

// In a comparison, the defect with TF32 off against the clean baseline: the GEMMs' family
// explains most of the difference, and the difference is the GPU time the iterations gained
// (iter_sum's median busy, 252.8 − 38.6 ms in README.md's spans).
TEST(FindingsCompare, Tf32OffAgainstTheCleanBaselineIsTheGemms) {
    const TraceRun* a = run({defect("defect_tf32off.sqlite")});
    const TraceRun* b = run({defect("defect_none.sqlite")});
    if (!a || !b) GTEST_SKIP() << "planted-defect traces absent";
    DiffSide reference;
    reference.trace = b->session.traces[0].trace;
    reference.label = "defect_none.sqlite";
    const FindingList list = findingsAgainst(a->session, reference);
    size_t rank = 0;
    const Finding* f = ruleOf(list, "compare_family", &rank);
    ASSERT_NE(f, nullptr);
    EXPECT_LT(rank, 3u);
    EXPECT_NE(f->statement.find("GEMM"), std::string::npos) << f->statement;
    EXPECT_GT(f->figure("delta_ns"), 0.5 * f->figure("total_delta_ns"));
    const double busyA =
        static_cast<double>(iterationSummary(*a->session.traces[0].trace).median.busy);
    const double busyB = static_cast<double>(iterationSummary(*reference.trace).median.busy);
    EXPECT_NEAR(f->figure("total_delta_ns"), busyA - busyB, 0.05 * (busyA - busyB));
    EXPECT_NEAR(f->figure("total_delta_ns") / 1e6, 252.8 - 38.6, 0.25 * (252.8 - 38.6));
    // Its time here, re-derived: the family's kernels inside the iterations' GPU spans
    // (iter_sum), per iteration; forward and backward together.
    const Trace& t = *a->session.traces[0].trace;
    const IterationSummary its = iterationSummary(t);
    double familyNs = 0;
    for (uint32_t k = 0; k < t.kernels.size(); ++k) {
        if (kernelFamily(t.str(t.kernels.name[k])) != "GEMM (cuBLAS/CUTLASS)") continue;
        for (const IterationRow& row : its.rows)
            if (t.kernels.start[k] >= row.gpuStart && t.kernels.start[k] < row.gpuEnd)
                familyNs += static_cast<double>(t.kernels.duration(k));
    }
    EXPECT_NE(f->statement.find("GEMM (cuBLAS/CUTLASS) takes"), std::string::npos);
    EXPECT_NEAR(f->figure("gpu_time_ns"), familyNs / static_cast<double>(its.rows.size()),
                0.01 * f->figure("gpu_time_ns"));
    EXPECT_EQ(rank, 0u) << "the family explains more than no_tensor_cores' TF32 estimate";
    for (const char* rule : {"compare_layer", "compare_op"})
        EXPECT_NE(ruleOf(list, rule), nullptr) << rule;
    // Without the comparison none of them.
    EXPECT_EQ(ruleOf(a->list, "compare_family"), nullptr);
}

// Against itself nothing differs: no comparison finding.
TEST(FindingsCompare, ARunAgainstItselfHasNoDifference) {
    const TraceRun* a = run({defect("defect_none.sqlite")});
    if (!a) GTEST_SKIP() << "defect_none.sqlite absent";
    DiffSide reference;
    reference.trace = a->session.traces[0].trace;
    EXPECT_TRUE(comparisonFindings(a->session, reference, a->list.iterationMs * 1e6).empty());
}

} // namespace
} // namespace ls::test
