// Rank numbering and clock alignment of a session, on hand-made traces: every source of a rank
// number (environment, distributedInfo, file name, device, order) and their precedence.
#include "core/model/rank_labels.h"
#include "core/pytorch/range_roles.h"

#include <gtest/gtest.h>
#include <memory>

namespace ls {
namespace {

// A trace whose kernels ran on the given (process index, device) pairs.
std::shared_ptr<Trace> traceWith(std::vector<std::pair<uint32_t, uint32_t>> units,
                                 std::string host = "node1") {
    auto t = std::make_shared<Trace>();
    t->info.host = std::move(host);
    for (uint32_t p = 0; p < 4; ++p) t->processes.push_back({1000 + p, "python"});
    for (const auto& [p, d] : units) {
        t->kernels.streamIndex.emplace_back(
            static_cast<uint32_t>(t->streams.size())); // a stream each
        t->streams.push_back({ProcessId(p), d, 1, 7});
        t->kernels.start.push_back(0);
        t->kernels.end.push_back(1);
    }
    return t;
}

Session sessionOf(std::vector<std::pair<std::string, std::shared_ptr<Trace>>> files) {
    Session s;
    for (auto& [f, t] : files) s.traces.push_back({f, t, 0});
    labelRanks(s);
    alignClocks(s);
    return s;
}

TEST(RankLabels, FileNamesGiveRanks) {
    struct Case {
        const char* path;
        int rank; // -1: none
    } cases[] = {
        {"report_rank3.sqlite", 3},
        {"ddp_bf16_h200x2_rank1.sqlite", 1},
        {"rank-12.json.gz", 12},
        {"/jobs/run/RANK_2.sqlite", 2},
        {"trace_3.sqlite", 3},
        {"node07-5.nsys-rep", 5},
        {"fsdp_rank1.kineto.json.gz", 1},
        {"gpt2_2layer_fp16_h200.sqlite", -1},
        {"x.sqlite", -1},
        {"/data/rank9/trace.sqlite", -1},
        {"report.12345.sqlite", -1},
        {"ranking.sqlite", -1},
        {"worker_rank_07.pt.trace.json", 7},
    };
    for (const auto& c : cases) {
        const auto r = rankFromFileName(c.path);
        if (c.rank < 0)
            EXPECT_FALSE(r.has_value()) << c.path << " gave " << r.value_or(-1);
        else
            EXPECT_EQ(r.value_or(-1), c.rank) << c.path;
    }
}

TEST(RankLabels, EnvironmentBeatsDistributedInfoBeatsFileName) {
    auto env = traceWith({{0, 0}});
    env->info.environment = {{"LOCAL_RANK", "0"}, {"RANK", "5"}};
    env->info.metadata = {{"distributedInfo.rank", "9"}};
    auto dist = traceWith({{0, 1}});
    dist->info.metadata = {{"distributedInfo.rank", "2"}};
    auto named = traceWith({{0, 0}});
    auto unnamed = traceWith({{0, 0}});
    const Session s = sessionOf({{"rank7.sqlite", env},
                                 {"rank8.sqlite", dist},
                                 {"job_rank4.sqlite", named},
                                 {"other.sqlite", unnamed}});
    ASSERT_EQ(s.ranks.size(), 4u);
    EXPECT_EQ(s.ranks[0].rank, 0); // the unnamed file takes the first free number
    EXPECT_EQ(s.ranks[0].trace, 3u);
    EXPECT_EQ(s.ranks[0].source, RankSource::Order);
    EXPECT_EQ(s.ranks[1].rank, 2);
    EXPECT_EQ(s.ranks[1].source, RankSource::DistributedInfo);
    EXPECT_EQ(s.ranks[1].device, 1u);
    EXPECT_EQ(s.ranks[2].rank, 4);
    EXPECT_EQ(s.ranks[2].source, RankSource::FileName);
    EXPECT_EQ(s.ranks[3].rank, 5);
    EXPECT_EQ(s.ranks[3].source, RankSource::Environment);
    EXPECT_EQ(s.rankOf(0, ProcessId(0), 0), 5);
    EXPECT_EQ(s.rankOf(0, ProcessId(0), 1), -1);
}

TEST(RankLabels, LauncherVariablesAreRead) {
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "LOCAL_RANK"}) {
        auto t = traceWith({{0, 0}});
        t->info.environment = {{name, "3"}};
        const Session s = sessionOf({{"a.sqlite", t}});
        ASSERT_EQ(s.ranks.size(), 1u);
        EXPECT_EQ(s.ranks[0].rank, 3) << name;
        EXPECT_EQ(s.ranks[0].source, RankSource::Environment) << name;
    }
}

TEST(RankLabels, TwoFilesClaimingOneRankKeepTheFirst) {
    const Session s = sessionOf(
        {{"a_rank1.sqlite", traceWith({{0, 0}})}, {"b_rank1.sqlite", traceWith({{0, 0}})}});
    ASSERT_EQ(s.ranks.size(), 2u);
    EXPECT_EQ(s.ranks[0].rank, 0);
    EXPECT_EQ(s.ranks[0].trace, 1u);
    EXPECT_EQ(s.ranks[0].source, RankSource::Order);
    EXPECT_EQ(s.ranks[1].rank, 1);
    EXPECT_EQ(s.ranks[1].trace, 0u);
}

TEST(RankLabels, OneFileWithSeveralGpusAndProcessesSplitsByDevice) {
    // A node report: two processes, the second driving two GPUs; kernels in any order.
    auto node = traceWith({{1, 3}, {0, 0}, {1, 2}, {0, 0}, {1, 3}});
    const Session s = sessionOf({{"node_rank5.sqlite", node}});
    ASSERT_EQ(s.ranks.size(), 3u);
    EXPECT_EQ(s.rankOf(0, ProcessId(0), 0), 0);
    EXPECT_EQ(s.rankOf(0, ProcessId(1), 2), 1);
    EXPECT_EQ(s.rankOf(0, ProcessId(1), 3), 2);
    for (const auto& r : s.ranks) EXPECT_EQ(r.source, RankSource::Device);
}

TEST(RankLabels, ClocksAlignOnRecordedStartTimes) {
    auto a = traceWith({{0, 0}}), b = traceWith({{0, 0}});
    a->info.epochNs = 1'700'000'000'000'000'500;
    b->info.epochNs = 1'700'000'000'000'000'000;
    a->info.epochKnown = b->info.epochKnown = true;
    Session s = sessionOf({{"r0.sqlite", a}, {"r1.sqlite", b}});
    EXPECT_EQ(s.traces[0].offsetNs, 500);
    EXPECT_EQ(s.traces[1].offsetNs, 0);
    EXPECT_NE(s.clockAlignment.find("one host (node1)"), std::string::npos) << s.clockAlignment;

    auto c = traceWith({{0, 0}}, "node2");
    c->info.epochNs = 1'700'000'000'000'001'000;
    c->info.epochKnown = true;
    auto d = traceWith({{0, 0}}, "node3");
    s = sessionOf({{"r0.sqlite", a}, {"r1.sqlite", b}, {"r2.sqlite", c}, {"r3.sqlite", d}});
    EXPECT_EQ(s.traces[2].offsetNs, 1000);
    EXPECT_EQ(s.traces[3].offsetNs, 0);
    EXPECT_NE(s.clockAlignment.find("3 hosts"), std::string::npos) << s.clockAlignment;
    EXPECT_NE(s.clockAlignment.find("skewed"), std::string::npos) << s.clockAlignment;
    EXPECT_NE(s.clockAlignment.find("no start time recorded in r3.sqlite"), std::string::npos)
        << s.clockAlignment;
}

TEST(RankLabels, IterationRangeNames) {
    struct Case {
        const char* name;
        int n;
    } cases[] = {{"iteration 3", 3}, {"step 3 rank 0", 3}, {"ProfilerStep#12", 12},
                 {"Step_4", 4},      {"iter7", 7},         {"train_step 2", 2},
                 {"forward", -1},    {"stepper 1", -1},    {"iteration", -1},
                 {"layer3", -1},     {"step3b", -1}};
    for (const auto& c : cases) {
        const auto n = iterationNumber(c.name);
        if (c.n < 0)
            EXPECT_FALSE(n.has_value()) << c.name;
        else
            EXPECT_EQ(n.value_or(-1), c.n) << c.name;
    }
}

} // namespace
} // namespace ls
