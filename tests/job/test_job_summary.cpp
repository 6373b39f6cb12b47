// The session reports from per-trace summaries (core/job/trace_summary.h) against the same
// reports over the loaded session (the full-model path, the reference), on the shared multi-rank
// traces and on the sample copied as two ranks; and the parts each report's loads ask for.
#include "core/job/job_file.h"
#include "core/load/session_load.h"
#include "core/model/load_parts.h"
#include "core/reports/summary.h"
#include "tests/job/job_test_support.h"

#include <gtest/gtest.h>

namespace ls::test {
namespace {

Session fullSession(const std::vector<std::string>& files) {
    SessionLoadOptions options; // every part, no cache: the reference
    Session s = loadSession(files, options);
    EXPECT_TRUE(s.failed.empty());
    return s;
}

job::SummarySession summaries(const std::vector<std::string>& files, const std::string& report) {
    job::SummariseOptions options;
    options.useCache = false;
    auto s = job::summariseFiles(files, options, report);
    return job::assembleSummaries(std::move(s), report == "kern_sum");
}

void expectRankSum(const Session& full, const job::SummarySession& sum) {
    const auto a = rankTimeSummary(full);
    const auto b = job::rankTimeSummary(sum);
    ASSERT_EQ(a.size(), b.size());
    ASSERT_FALSE(a.empty());
    for (size_t i = 0; i < a.size(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(a[i].rank, b[i].rank);
        EXPECT_EQ(a[i].host, b[i].host);
        EXPECT_EQ(a[i].pid, b[i].pid);
        EXPECT_EQ(a[i].device, b[i].device);
        EXPECT_EQ(a[i].kernels, b[i].kernels);
        EXPECT_EQ(a[i].commKernels, b[i].commKernels);
        EXPECT_EQ(a[i].span, b[i].span);
        EXPECT_EQ(a[i].busy, b[i].busy);
        EXPECT_EQ(a[i].compute, b[i].compute);
        EXPECT_EQ(a[i].comm, b[i].comm);
        EXPECT_EQ(a[i].overlap, b[i].overlap);
        EXPECT_EQ(a[i].exposedComm, b[i].exposedComm);
        EXPECT_EQ(a[i].idle, b[i].idle);
    }
}

void expectCollectives(const Session& full, const job::SummarySession& sum) {
    const CollectiveMatch a = matchCollectives(full), b = job::matchCollectives(sum);
    EXPECT_EQ(a.rule, b.rule);
    EXPECT_EQ(a.commKernels, b.commKernels);
    EXPECT_EQ(a.unmatched, b.unmatched);
    ASSERT_EQ(a.collectives.size(), b.collectives.size());
    for (size_t i = 0; i < a.collectives.size(); ++i) {
        SCOPED_TRACE(i);
        const MatchedCollective &x = a.collectives[i], &y = b.collectives[i];
        EXPECT_EQ(x.type, y.type);
        EXPECT_EQ(x.comm, y.comm);
        EXPECT_EQ(x.bytes, y.bytes);
        EXPECT_EQ(x.sequence, y.sequence);
        EXPECT_EQ(x.firstStart, y.firstStart);
        EXPECT_EQ(x.lastStart, y.lastStart);
        EXPECT_EQ(x.end, y.end);
        EXPECT_EQ(x.waited, y.waited);
        EXPECT_EQ(x.maxDuration, y.maxDuration);
        EXPECT_EQ(x.lastRank, y.lastRank);
        ASSERT_EQ(x.members.size(), y.members.size());
        for (size_t m = 0; m < x.members.size(); ++m) {
            EXPECT_EQ(x.members[m].rank, y.members[m].rank);
            EXPECT_EQ(x.members[m].kernel, y.members[m].kernel);
            EXPECT_EQ(x.members[m].start, y.members[m].start);
            EXPECT_EQ(x.members[m].end, y.members[m].end);
            EXPECT_EQ(x.members[m].bytes, y.members[m].bytes);
        }
    }
}

void expectKernSum(const Session& full, const job::SummarySession& sum) {
    ASSERT_EQ(full.traces.size(), sum.traces.size());
    for (size_t t = 0; t < full.traces.size(); ++t) {
        const auto a =
            kernelSummary(*full.traces[t].trace, KernelGrouping::Name, KernelNaming::Demangled);
        const auto& b = sum.traces[t].kernSum;
        EXPECT_EQ(full.traces[t].file, sum.traces[t].file);
        ASSERT_EQ(a.size(), b.size());
        ASSERT_FALSE(a.empty());
        for (size_t i = 0; i < a.size(); ++i) {
            EXPECT_EQ(a[i].name, b[i].name);
            EXPECT_EQ(a[i].percent, b[i].percent);
            EXPECT_EQ(a[i].stats.total, b[i].stats.total);
            EXPECT_EQ(a[i].stats.count, b[i].stats.count);
            EXPECT_EQ(a[i].stats.avg, b[i].stats.avg);
            EXPECT_EQ(a[i].stats.median, b[i].stats.median);
            EXPECT_EQ(a[i].stats.stddev, b[i].stats.stddev);
            EXPECT_EQ(a[i].stats.min, b[i].stats.min);
            EXPECT_EQ(a[i].stats.max, b[i].stats.max);
        }
    }
    // The ranks each trace's rows are led by, as a session loaded for kern_sum numbers them.
    SessionLoadOptions kernels;
    kernels.load.parts = kLoadKernels;
    std::vector<std::string> files;
    for (const auto& t : full.traces) files.push_back(t.file);
    const Session labels = loadSession(files, kernels);
    const Session fromSummaries = job::kernelRankSession(sum);
    ASSERT_EQ(labels.ranks.size(), fromSummaries.ranks.size());
    for (size_t i = 0; i < labels.ranks.size(); ++i) {
        EXPECT_EQ(labels.ranks[i].rank, fromSummaries.ranks[i].rank);
        EXPECT_EQ(labels.ranks[i].trace, fromSummaries.ranks[i].trace);
        EXPECT_EQ(labels.ranks[i].device, fromSummaries.ranks[i].device);
    }
}

void expectAllReports(const std::vector<std::string>& files) {
    const Session full = fullSession(files);
    ASSERT_EQ(full.traces.size(), files.size());
    // Each report from summaries made with its own minimal parts, and from one summary made
    // for all four (the job file's).
    for (const std::string report : {"", "rank_sum", "collective_sum", "rank_iter_sum"}) {
        SCOPED_TRACE("parts of " + report);
        const auto sum = summaries(files, report);
        EXPECT_EQ(sum.session.clockAlignment, full.clockAlignment);
        for (size_t t = 0; t < full.traces.size(); ++t)
            EXPECT_EQ(sum.session.traces[t].offsetNs, full.traces[t].offsetNs);
        if (report.empty() || report == "rank_sum") expectRankSum(full, sum);
        if (report.empty() || report == "collective_sum") expectCollectives(full, sum);
        if (report.empty() || report == "rank_iter_sum") {
            EXPECT_EQ(rankIterations(full), job::rankIterations(sum));
        }
        if (report.empty()) { // the lanes: the full model's unions, coarsened to the cap
            const std::vector<RankBusy> busy = rankBusyIntervals(full);
            const std::vector<RankBusy> lanes = job::rankLanes(sum);
            ASSERT_EQ(busy.size(), lanes.size());
            for (size_t r = 0; r < busy.size(); ++r) {
                EXPECT_EQ(coarsened(busy[r].compute, job::kLaneIntervals), lanes[r].compute);
                EXPECT_EQ(coarsened(busy[r].comm, job::kLaneIntervals), lanes[r].comm);
            }
        }
    }
    expectKernSum(full, summaries(files, "kern_sum"));
    expectKernSum(full, summaries(files, ""));
}

TEST(JobSummary, EqualsTheFullModelOnTheDdpPair) {
    const auto files = sharedPair("ddp_bf16_h200x2_rank0.sqlite", "ddp_bf16_h200x2_rank1.sqlite");
    if (files.empty()) {
        GTEST_SKIP() << "../shared/traces/ddp_bf16_h200x2_rank*.sqlite absent";
    }
    expectAllReports(files);
    EXPECT_FALSE(matchCollectives(fullSession(files)).collectives.empty());
}

TEST(JobSummary, EqualsTheFullModelOnTheFsdpPair) {
    const auto files = sharedPair("fsdp_rank0.kineto.json.gz", "fsdp_rank1.kineto.json.gz");
    if (files.empty()) {
        GTEST_SKIP() << "../shared/traces/fsdp_rank*.kineto.json.gz absent";
    }
    expectAllReports(files);
}

TEST(JobSummary, EqualsTheFullModelOnTheSampleAsTwoRanks) {
    TempDir dir;
    expectAllReports(samplePair(dir.path()));
}

// The loader is asked only for each report's parts, and what they hold is enough (above).
TEST(JobSummary, EachSessionReportLoadsOnlyItsParts) {
    EXPECT_EQ(job::summaryLoadParts("kern_sum"), uint32_t(kLoadKernels));
    EXPECT_EQ(job::summaryLoadParts("rank_sum"), uint32_t(kLoadKernels | kLoadMemory));
    EXPECT_FALSE(job::summaryLoadParts("rank_iter_sum") & kLoadCorrelation);
    EXPECT_FALSE(job::summaryLoadParts("collective_sum") & (kLoadCosts | kLoadIterations));
    EXPECT_FALSE(job::summaryLoadParts() & (kLoadCosts | kLoadIterations | kLoadOsRuntime));
    TempDir dir;
    const auto files = samplePair(dir.path());
    for (const std::string report : {"kern_sum", "rank_sum", "collective_sum", "rank_iter_sum"}) {
        SCOPED_TRACE(report);
        job::SummariseOptions options;
        options.useCache = false;
        const uint32_t wanted = job::summaryLoadParts(report);
        for (const auto& s : job::summariseFiles(files, options, report)) {
            ASSERT_TRUE(s.error.empty()) << s.error;
            EXPECT_EQ(s.parts & ~heldLoadParts(closeLoadParts(wanted)), 0u)
                << "loaded parts " << s.parts << " beyond " << wanted;
            EXPECT_TRUE(s.parts & kLoadKernels);
        }
    }
}

TEST(JobSummary, AFileThatFailsIsASummaryWithItsError) {
    TempDir dir;
    writeFile(dir / "rank0.sqlite", "not a database");
    job::SummariseOptions options;
    options.useCache = false;
    const auto s = job::summariseFiles({(dir / "rank0.sqlite").string()}, options);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_FALSE(s[0].error.empty());
    EXPECT_EQ(s[0].error.find('\n'), std::string::npos);
    const auto assembled = job::assembleSummaries(s);
    EXPECT_TRUE(assembled.traces.empty());
    ASSERT_EQ(assembled.session.failed.size(), 1u);
}

} // namespace
} // namespace ls::test
