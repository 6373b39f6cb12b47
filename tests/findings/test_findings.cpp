// Findings on the planted-defect traces (tests/data/defects, recorded for this purpose; README.md
// there says how): each defect's finding among the top 3 of its trace, costing within 25 % of the
// trace's iteration time less the clean baseline's; the launch-bound tiny model's finding at least
// half its iteration; nothing in the clean baseline over 5 % of an iteration. And every number a
// finding prints equals the report it comes from, here and over the shared real traces.
#include "core/findings/finding_text.h"
#include "core/findings/findings.h"
#include "core/findings/iteration_windows.h"
#include "core/load/session_load.h"
#include "core/reports/collectives.h"
#include "core/reports/iteration_summary.h"
#include "core/reports/launch_bound.h"
#include "core/reports/memory_summary.h"
#include "core/reports/rank_summary.h"
#include "core/reports/roofline.h"
#include "tests/support/test_support.h"

#include <cmath>
#include <map>

namespace ls::test {
namespace {

fs::path defectFile(const std::string& name) {
    return sourceDir() / "tests" / "data" / "defects" / name;
}

struct Loaded {
    Session session;
    FindingList list;
};

// Loads the files as one session (cached per set of names) and computes its findings.
const Loaded* load(const std::vector<std::string>& names) {
    static std::map<std::vector<std::string>, std::unique_ptr<Loaded>> cache;
    auto& slot = cache[names];
    if (slot) return slot.get();
    std::vector<std::string> paths;
    for (const auto& n : names) {
        const fs::path p = defectFile(n);
        if (!fs::exists(p)) return nullptr;
        paths.push_back(p.string());
    }
    slot = std::make_unique<Loaded>();
    slot->session = loadSession(paths);
    slot->list = findings(slot->session);
    return slot.get();
}

// The session's iteration time: the slowest rank's median period between step starts.
double iterationNs(const Session& s) {
    double most = 0;
    for (const auto& t : s.traces) most = std::max(most, iterationWindows(*t.trace).periodNs);
    return most;
}

// Each defect's iteration time and its clean baseline's, in ms, as tests/data/defects/README.md
// gives them from `summary --report iter_sum` (the median GPU span; the loader's the period
// between step starts, as its GPU span barely changes; the straggler's the slower rank's).
struct DefectCase {
    std::string name;
    std::vector<std::string> files;
    std::string rule;
    double iterationMs, baselineMs;
};

class PlantedDefect : public ::testing::TestWithParam<DefectCase> {};

TEST_P(PlantedDefect, FindingInTopThreeWithinAQuarterOfTheCost) {
    const DefectCase& c = GetParam();
    const Loaded* defect = load(c.files);
    if (!defect) GTEST_SKIP() << "planted-defect traces absent under tests/data/defects";
    const double expectedMs = c.iterationMs - c.baselineMs;
    const auto& f = defect->list.findings;
    int rank = -1;
    for (size_t i = 0; i < f.size() && i < 3; ++i)
        if (f[i].rule == c.rule) {
            rank = static_cast<int>(i);
            break;
        }
    ASSERT_GE(rank, 0) << c.rule << " not in the top 3 of " << c.name;
    EXPECT_NEAR(f[static_cast<size_t>(rank)].costMsPerIteration, expectedMs, 0.25 * expectedMs)
        << f[static_cast<size_t>(rank)].statement;
}

// The loader's period, measured here as the findings measure it, is what the README says.
TEST(Findings, IterationTimeIsThePeriodBetweenStepStarts) {
    const Loaded* loader = load({"defect_loader.sqlite"});
    const Loaded* clean = load({"defect_none.sqlite"});
    if (!loader || !clean) GTEST_SKIP() << "planted-defect traces absent";
    EXPECT_NEAR(iterationNs(loader->session) / 1e6, 138, 2);
    EXPECT_NEAR(iterationNs(clean->session) / 1e6, 38.6, 0.5);
    EXPECT_NEAR(loader->list.iterationMs, iterationNs(loader->session) / 1e6, 1e-9);
}

const std::vector<std::string> kClean = {"defect_none.sqlite"};
const std::vector<std::string> kDdp = {"defect_ddp_rank0.sqlite", "defect_ddp_rank1.sqlite"};
const std::vector<std::string> kStraggler = {"defect_straggler_rank0.sqlite",
                                             "defect_straggler_rank1.sqlite"};

INSTANTIATE_TEST_SUITE_P(
    Findings, PlantedDefect,
    ::testing::Values(
        DefectCase{"sync", {"defect_sync.sqlite"}, "idle_sync", 39.4, 38.6},
        DefectCase{"item", {"defect_item.sqlite"}, "idle_sync", 40.2, 38.6},
        DefectCase{"tf32off", {"defect_tf32off.sqlite"}, "no_tensor_cores", 252.8, 38.6},
        DefectCase{"loader", {"defect_loader.sqlite"}, "idle_host", 138, 38.6},
        DefectCase{"pageable", {"defect_pageable.sqlite"}, "pageable_copy", 48.9, 38.6},
        DefectCase{"straggler_waits", kStraggler, "exposed_comm", 68.4, 40.2},
        DefectCase{"straggler_host", kStraggler, "idle_host", 68.4, 40.2}),
    [](const auto& p) { return p.param.name; });

TEST(Findings, TinyModelIsLaunchBoundForAtLeastHalfItsIteration) {
    const Loaded* tiny = load({"defect_tiny.sqlite"});
    if (!tiny) GTEST_SKIP() << "defect_tiny.sqlite absent";
    ASSERT_FALSE(tiny->list.findings.empty());
    const Finding& top = tiny->list.findings.front();
    EXPECT_EQ(top.rule, "launch_bound");
    EXPECT_GE(top.costMsPerIteration, 0.5 * iterationNs(tiny->session) / 1e6) << top.statement;
}

TEST(Findings, CleanBaselinesHaveNothingOverFivePercent) {
    for (const auto& files : {kClean, kDdp}) {
        const Loaded* clean = load(files);
        if (!clean) GTEST_SKIP() << "clean baseline traces absent";
        const double limitMs = 0.05 * iterationNs(clean->session) / 1e6;
        for (const Finding& f : clean->list.findings)
            EXPECT_LE(f.costMsPerIteration, limitMs) << files[0] << ": " << f.statement;
    }
}

// Each printed time is the figure it names, written as findings write milliseconds; and the
// figures are the reports' own numbers.
void expectFiguresMatchReports(const Session& s, const FindingList& list) {
    for (const Finding& f : list.findings) {
        SCOPED_TRACE(f.statement);
        const Trace& t = *s.traces.at(f.evidence.trace).trace;
        for (const auto& [name, value] : f.figures) {
            if (name.size() > 3 && name.substr(name.size() - 3) == "_ns" &&
                name != "median_busy_ns") {
                EXPECT_NE(f.statement.find(findingMs(value)), std::string::npos) << name;
            }
        }
        EXPECT_GT(f.costMsPerIteration, 0);
        EXPECT_FALSE(f.fix.empty());
        EXPECT_FALSE(f.bound.empty());
        if (f.rule == "no_tensor_cores") {
            double gpu = 0;
            for (const RooflinePoint& p : roofline(t, RooflineGrouping::Kernel))
                if (p.tc == TcState::NotUsed && p.peaks) gpu += static_cast<double>(p.gpuTimeNs);
            EXPECT_DOUBLE_EQ(f.figure("gpu_time_ns"), gpu);
        } else if (f.rule == "exposed_comm") {
            bool found = false;
            for (const RankTimeRow& r : rankTimeSummary(s))
                if (r.rank == static_cast<int>(f.figure("rank"))) {
                    EXPECT_DOUBLE_EQ(f.figure("exposed_comm_ns"),
                                     static_cast<double>(r.exposedComm));
                    found = true;
                }
            EXPECT_TRUE(found);
        } else if (f.rule == "slow_iteration") {
            const IterationSummary it = iterationSummary(t);
            EXPECT_DOUBLE_EQ(f.figure("median_ns"), static_cast<double>(it.median.duration()));
        } else if (f.rule == "launch_bound") {
            EXPECT_DOUBLE_EQ(f.figure("median_busy_ns"),
                             static_cast<double>(iterationSummary(t).median.busy));
            EXPECT_NE(f.statement.find(findingMs(f.figure("median_busy_ns"))), std::string::npos);
        } else if (f.rule == "pageable_copy") {
            double htod = 0; // the copies are host-to-device ones: mem_time_sum's HtoD row
            for (const SummaryRow& r : memoryTimeSummary(t))
                if (r.name == "[CUDA memcpy HtoD]") htod = static_cast<double>(r.stats.total);
            EXPECT_LE(f.figure("copy_gpu_ns"), htod);
            EXPECT_GE(f.figure("copy_gpu_ns"), 0.5 * htod);
        } else if (f.rule == "far_below_roofline") {
            // The costliest point's percent of its roof is one the roofline report prints.
            bool found = false;
            for (const RooflinePoint& p : roofline(t, RooflineGrouping::Kernel))
                if (p.percentOfRoof() == f.figure("worst_percent_of_roof")) found = true;
            EXPECT_TRUE(found);
            EXPECT_LT(f.figure("worst_percent_of_roof"), 25);
            EXPECT_NE(f.statement.find(findingPercent(f.figure("worst_percent_of_roof"))),
                      std::string::npos);
        } else if (f.rule == "occupancy_limited" || f.rule == "fusion_candidates") {
            // Their kernels' own times and occupancies (the kernel table's columns), when the
            // evidence holds all of them.
            if (f.figure("kernels") <= static_cast<double>(kMaxEvidence)) {
                double time = 0, weighted = 0;
                for (const KernelId k : f.evidence.kernels) {
                    time += static_cast<double>(t.kernels.duration(k.value));
                    weighted += static_cast<double>(t.kernels.duration(k.value)) *
                                t.metrics.occupancy[k.value];
                }
                EXPECT_DOUBLE_EQ(f.figure("gpu_time_ns"), time);
                if (f.rule == "occupancy_limited") {
                    EXPECT_NEAR(f.figure("occupancy_pct"), weighted / time, 1e-6);
                    EXPECT_LE(f.figure("occupancy_pct"), 50);
                }
            }
            EXPECT_LE(f.figure("saved_ns"), f.figure("gpu_time_ns"));
        } else if (f.rule == "tiny_kernels") {
            for (const KernelId k : f.evidence.kernels) EXPECT_TRUE(isLaunchBound(t, k));
            EXPECT_GT(f.figure("launch_time_ns"), f.figure("kernel_time_ns"));
        }
        if (f.rule == "slow_iteration" && f.figure("kernel_extra_ns") > 0 &&
            f.evidence.kernels.size() < kMaxEvidence) {
            // The grown kernel's extra time: its launches in the outlier (the evidence, all of
            // them) less its launches in the typical iteration.
            const IterationSummary it = iterationSummary(t);
            const IterationRow* typical = nullptr;
            for (const IterationRow& r : it.rows)
                if (r.number == static_cast<int>(f.figure("typical_number"))) typical = &r;
            ASSERT_NE(typical, nullptr);
            ASSERT_FALSE(f.evidence.kernels.empty());
            const StringId name = t.kernels.name[f.evidence.kernels.front().value];
            double extra = 0;
            for (const KernelId k : f.evidence.kernels)
                extra += static_cast<double>(t.kernels.duration(k.value));
            for (uint32_t k = 0; k < t.kernels.size(); ++k)
                if (t.kernels.name[k] == name && t.kernels.start[k] >= typical->gpuStart &&
                    t.kernels.start[k] < typical->gpuEnd)
                    extra -= static_cast<double>(t.kernels.duration(k));
            EXPECT_DOUBLE_EQ(f.figure("kernel_extra_ns"), extra);
        }
        // Idle findings: their idle per iteration period is their cost.
        if (f.figure("idle_ns") > 0 && f.rule != "pageable_copy") {
            const double periods = std::max(1, iterationWindows(t).count());
            EXPECT_NEAR(f.costMsPerIteration, f.figure("idle_ns") / periods / 1e6, 1e-9);
        }
    }
}

TEST(Findings, NumbersEqualTheirReportsOnThePlantedDefects) {
    for (const auto& files :
         std::vector<std::vector<std::string>>{{"defect_sync.sqlite"},
                                               {"defect_item.sqlite"},
                                               {"defect_tf32off.sqlite"},
                                               {"defect_loader.sqlite"},
                                               {"defect_pageable.sqlite"},
                                               {"defect_tiny.sqlite"},
                                               {"defect_none.sqlite"},
                                               {"defect_none.kineto.json.gz"},
                                               {"defect_pageable.kineto.json.gz"},
                                               {"defect_item.kineto.json.gz"},
                                               kStraggler}) {
        const Loaded* l = load(files);
        if (!l) GTEST_SKIP() << files[0] << " absent";
        ASSERT_FALSE(l->list.findings.empty()) << files[0];
        expectFiguresMatchReports(l->session, l->list);
    }
}

TEST(Findings, NumbersEqualTheirReportsOnTheSharedTraces) {
    const fs::path dir = sharedDir() / "traces";
    const std::vector<std::vector<std::string>> sets = {
        {"gpt2_2layer_bf16_b8_h200.sqlite"},
        {"gpt2_2layer_fp16_h200.sqlite"},
        {"gpt2_2layer_fp16_h200.kineto.json.gz"},
        {"ddp_bf16_h200x2_rank0.sqlite", "ddp_bf16_h200x2_rank1.sqlite"},
        {"fsdp_rank0.kineto.json.gz", "fsdp_rank1.kineto.json.gz"}};
    int seen = 0;
    for (const auto& names : sets) {
        std::vector<std::string> paths;
        for (const auto& n : names)
            if (fs::exists(dir / n)) paths.push_back((dir / n).string());
        if (paths.size() != names.size()) continue;
        ++seen;
        const Session s = loadSession(paths);
        const FindingList list = findings(s);
        for (size_t i = 1; i < list.findings.size(); ++i)
            EXPECT_GE(list.findings[i - 1].costMsPerIteration, list.findings[i].costMsPerIteration);
        expectFiguresMatchReports(s, list);
    }
    if (!seen) GTEST_SKIP() << "no shared traces under " << dir;
}

} // namespace
} // namespace ls::test
