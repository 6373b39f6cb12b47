// What the app needs to open a job from summaries: lanes coarsened for drawing, the memory
// budget's sizes, the pool that keeps ranks' models within it, the rank analysis from summaries
// against the one from full models, and a job file's traces found (or named) on this machine.
#include "core/cache/model_bytes.h"
#include "core/job/job_session.h"
#include "core/load/memory_budget.h"
#include "core/load/model_pool.h"
#include "core/load/session_load.h"
#include "core/present/rank_analysis.h"
#include "core/present/trace_views.h"
#include "tests/job/job_test_support.h"

#include <gtest/gtest.h>

namespace ls::test {
namespace {

TEST(Lanes, CoarseningClosesTheShortestGapsToExactlyTheCap) {
    // Gaps 5, 1, 3, 1, 8 between six intervals.
    const std::vector<Interval> six = {{0, 10}, {15, 20}, {21, 30}, {33, 40}, {41, 50}, {58, 60}};
    EXPECT_EQ(coarsened(six, 6), six);
    EXPECT_EQ(coarsened(six, 10), six);
    // Four: the two gaps of 1 close.
    EXPECT_EQ(coarsened(six, 4), (std::vector<Interval>{{0, 10}, {15, 30}, {33, 50}, {58, 60}}));
    // Three: then the gap of 3.
    EXPECT_EQ(coarsened(six, 3), (std::vector<Interval>{{0, 10}, {15, 50}, {58, 60}}));
    EXPECT_EQ(coarsened(six, 1), (std::vector<Interval>{{0, 60}}));
    // Ties: of equal gaps only as many close as needed, earliest first.
    const std::vector<Interval> even = {{0, 1}, {2, 3}, {4, 5}, {6, 7}};
    EXPECT_EQ(coarsened(even, 3), (std::vector<Interval>{{0, 3}, {4, 5}, {6, 7}}));
    EXPECT_TRUE(coarsened(six, 0).empty());
}

TEST(Lanes, LevelsCloseEveryGapBelowTheirThresholdAndShrink) {
    // Bursts of 10 intervals 100 ns apart, bursts 10 us apart, groups of bursts 1 ms apart.
    std::vector<Interval> lane;
    for (TimeNs group = 0; group < 20; ++group)
        for (TimeNs burst = 0; burst < 10; ++burst)
            for (TimeNs k = 0; k < 10; ++k) {
                const TimeNs t = group * 1'000'000 + burst * 10'000 + k * 150;
                lane.push_back({t, t + 50});
            }
    const IntervalLevels levels = intervalLevels(lane);
    ASSERT_GE(levels.levels.size(), 3u);
    EXPECT_EQ(levels.levels[0], lane);
    for (size_t k = 1; k < levels.levels.size(); ++k) {
        SCOPED_TRACE(k);
        // The level against closing every gap below its threshold by hand.
        std::vector<Interval> expected;
        for (const Interval& i : lane)
            if (!expected.empty() && i.start - expected.back().end < levels.minGap[k])
                expected.back().end = i.end;
            else
                expected.push_back(i);
        EXPECT_EQ(levels.levels[k], expected);
        EXPECT_LE(levels.levels[k].size() * 4, levels.levels[k - 1].size() * 3);
    }
    EXPECT_EQ(&levels.forPixel(1), &levels.levels[0]);
    EXPECT_EQ(levels.forPixel(200).size(), 2000u);  // no level closes less than 256 ns
    EXPECT_EQ(levels.forPixel(300).size(), 200u);   // bursts: the 100 ns gaps closed
    EXPECT_EQ(levels.forPixel(20'000).size(), 20u); // groups
    EXPECT_TRUE(intervalLevels({}).levels.at(0).empty());
}

TEST(MemoryBudget, SizesAsPeopleWriteThem) {
    EXPECT_EQ(parseByteSize("1G"), uint64_t(1) << 30);
    EXPECT_EQ(parseByteSize("1 GiB"), uint64_t(1) << 30);
    EXPECT_EQ(parseByteSize("1.5gb"), uint64_t(3) << 29);
    EXPECT_EQ(parseByteSize("800M"), uint64_t(800) << 20);
    EXPECT_EQ(parseByteSize("4096"), 4096u);
    EXPECT_EQ(parseByteSize(" 2k "), 2048u);
    for (const char* bad : {"", "G", "1X", "-1G", "0", "1..5G", "9999999T"})
        EXPECT_FALSE(parseByteSize(bad)) << bad;
    EXPECT_EQ(formatByteSize(uint64_t(1) << 30), "1.0 GiB");
    EXPECT_EQ(formatByteSize(uint64_t(640) << 20), "640 MiB");
    EXPECT_GT(defaultMemoryBudget(), 0u);
}

// Four copies of the sample as four ranks.
std::vector<std::string> sampleRanks(const fs::path& dir, int n) {
    std::vector<std::string> files;
    for (int r = 0; r < n; ++r) {
        const fs::path f = dir / ("rank" + std::to_string(r) + ".sqlite");
        fs::copy_file(sampleTrace(), f, fs::copy_options::overwrite_existing);
        files.push_back(f.string());
    }
    return files;
}

TEST(ModelPool, KeepsTheMostRecentlyUsedModelsWithinItsShare) {
    TempDir dir;
    const auto files = sampleRanks(dir.path(), 4);
    LoadOptions options; // no cache
    const uint64_t one = modelBytes(*loadSession({files[0]}).traces.at(0).trace);
    ASSERT_GT(one, 0u);
    // Room for two models in the share (half the budget), not three.
    ModelPool pool(files, std::vector<std::string>(4), 2 * (2 * one + one / 2));
    for (uint32_t t : {0u, 1u, 2u}) {
        const auto m = pool.acquire(t, options);
        ASSERT_TRUE(m.trace) << m.error;
        EXPECT_FALSE(m.wasHeld);
        EXPECT_LE(pool.heldBytes(), pool.modelShare());
    }
    EXPECT_EQ(pool.heldTraces(), (std::vector<uint32_t>{2, 1}));
    EXPECT_TRUE(pool.acquire(1, options).wasHeld); // 1 is used again: 2 is now the oldest
    EXPECT_FALSE(pool.acquire(3, options).wasHeld);
    EXPECT_EQ(pool.heldTraces(), (std::vector<uint32_t>{3, 1}));
    // A budget smaller than one model still keeps the newest.
    ModelPool tiny(files, std::vector<std::string>(4), 1);
    EXPECT_TRUE(tiny.acquire(0, options).trace);
    EXPECT_TRUE(tiny.acquire(1, options).trace);
    EXPECT_EQ(tiny.heldTraces(), (std::vector<uint32_t>{1}));
}

TEST(ModelPool, AnUnreachableTraceGivesItsMessage) {
    ModelPool pool({""}, {"rank0.sqlite is not on this machine: copy it to /x/rank0.sqlite"},
                   uint64_t(1) << 30);
    const auto m = pool.acquire(0, LoadOptions{});
    EXPECT_FALSE(m.trace);
    EXPECT_EQ(m.error, "rank0.sqlite is not on this machine: copy it to /x/rank0.sqlite");
    EXPECT_FALSE(pool.acquire(5, LoadOptions{}).trace);
}

void expectSameAnalysis(const std::vector<std::string>& files) {
    const auto full = analyseRanks(std::make_shared<const Session>(loadSession(files)));
    job::SummariseOptions options;
    options.useCache = false;
    const job::SummaryOpen open = job::summariseSession(files, options);
    ASSERT_TRUE(open.error.empty()) << open.error;
    EXPECT_EQ(open.files, files);
    const auto fromSummaries = analyseSummaries(
        open.summaries, std::make_shared<ModelPool>(open.files, open.missing, uint64_t(1) << 30));
    ASSERT_TRUE(fromSummaries->fromSummaries());
    EXPECT_FALSE(fromSummaries->timelines);
    ASSERT_EQ(full->ranks.size(), fromSummaries->ranks.size());
    for (size_t r = 0; r < full->ranks.size(); ++r) {
        EXPECT_EQ(full->ranks[r].rank, fromSummaries->ranks[r].rank);
        EXPECT_EQ(full->ranks[r].busy, fromSummaries->ranks[r].busy);
        EXPECT_EQ(full->ranks[r].exposedComm, fromSummaries->ranks[r].exposedComm);
        // The lanes' first levels are the unions; the summaries' are coarsened.
        EXPECT_EQ(coarsened(full->lanes[r].compute.levels.front(), job::kLaneIntervals),
                  fromSummaries->lanes[r].compute.levels.front());
        EXPECT_EQ(coarsened(full->lanes[r].comm.levels.front(), job::kLaneIntervals),
                  fromSummaries->lanes[r].comm.levels.front());
        EXPECT_EQ(full->lanes[r].compute.levels.front(),
                  rankBusyIntervals(*full->session)[r].compute);
    }
    EXPECT_EQ(full->iterations, fromSummaries->iterations);
    EXPECT_EQ(full->collectives.collectives.size(), fromSummaries->collectives.collectives.size());
    EXPECT_EQ(full->collectives.unmatched, fromSummaries->collectives.unmatched);
    ASSERT_EQ(full->session->ranks.size(), fromSummaries->session->ranks.size());
    for (size_t r = 0; r < full->session->ranks.size(); ++r) {
        EXPECT_EQ(full->session->ranks[r].rank, fromSummaries->session->ranks[r].rank);
        EXPECT_EQ(full->session->ranks[r].trace, fromSummaries->session->ranks[r].trace);
        EXPECT_EQ(full->session->traces[r].offsetNs, fromSummaries->session->traces[r].offsetNs);
    }
    // A rank's detail: the pool's model, with the session's rank numbering in its table.
    const auto model = fromSummaries->models->acquire(1, LoadOptions{});
    ASSERT_TRUE(model.trace) << model.error;
    const auto views = prepareTraceViews(fromSummaries, 1, {}, model.trace);
    EXPECT_EQ(views->trace, model.trace);
    EXPECT_EQ(views->kernels->size(), full->session->traces[1].trace->kernels.size());
    EXPECT_TRUE(views->complete);
}

TEST(JobAppSession, AnalysisFromSummariesEqualsTheFullModelsOnTheSample) {
    TempDir dir;
    expectSameAnalysis(sampleRanks(dir.path(), 2));
}

TEST(JobAppSession, AnalysisFromSummariesEqualsTheFullModelsOnTheDdpPair) {
    const auto files = sharedPair("ddp_bf16_h200x2_rank0.sqlite", "ddp_bf16_h200x2_rank1.sqlite");
    if (files.empty()) GTEST_SKIP() << "../shared/traces DDP pair absent";
    expectSameAnalysis(files);
}

TEST(JobAppSession, AJobFilesTracesAreFoundBesideItOrNamed) {
    TempDir dir;
    const fs::path traces = dir.path() / "traces";
    fs::create_directories(traces);
    const auto files = sampleRanks(traces, 2);
    job::SummariseOptions options;
    options.useCache = false;
    std::vector<std::string> encoded;
    for (const auto& f : files) encoded.push_back(job::summariseTraceFile(f, options));
    const fs::path jobPath = dir.path() / "job.lsjob";
    ASSERT_EQ(job::writeJobFile(jobPath.string(), encoded), "");

    job::SummaryOpen open = job::openJobSummaries(jobPath.string());
    ASSERT_EQ(open.error, "");
    ASSERT_EQ(open.files.size(), 2u);
    EXPECT_EQ(fs::path(open.files[0]), fs::path(files[0]).lexically_normal());
    EXPECT_EQ(open.missing[0], "");

    // The job file copied elsewhere alone: the traces are still found where they were written.
    TempDir laptop;
    fs::copy_file(jobPath, laptop.path() / "job.lsjob");
    open = job::openJobSummaries((laptop.path() / "job.lsjob").string());
    EXPECT_EQ(fs::path(open.files[1]), fs::path(files[1]).lexically_normal());

    // Moved away: named, with where to copy it.
    fs::remove(files[1]);
    open = job::openJobSummaries((laptop.path() / "job.lsjob").string());
    EXPECT_EQ(open.files[1], "");
    EXPECT_NE(open.missing[1].find("rank1.sqlite is not on this machine: copy it to " +
                                   (laptop.path() / "traces" / "rank1.sqlite").string()),
              std::string::npos)
        << open.missing[1];
    // Copied beside the job file: found there.
    fs::copy_file(files[0], laptop.path() / "rank1.sqlite");
    open = job::openJobSummaries((laptop.path() / "job.lsjob").string());
    EXPECT_EQ(fs::path(open.files[1]), (laptop.path() / "rank1.sqlite").lexically_normal());

    EXPECT_NE(job::openJobSummaries((dir.path() / "none.lsjob").string()).error, "");
}

TEST(JobAppSession, SummariesAreNeededOnlyPastHalfTheBudget) {
    TempDir dir;
    const auto files = sampleRanks(dir.path(), 2);
    const uint64_t size = fs::file_size(files[0]);
    EXPECT_FALSE(job::summariesNeeded(files, 4 * size));
    EXPECT_TRUE(job::summariesNeeded(files, 4 * size - 2));
}

} // namespace
} // namespace ls::test
