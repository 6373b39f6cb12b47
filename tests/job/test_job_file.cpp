// The job file (core/job/job_file.h, docs/job-file.md): summaries round trip, a job file gives
// the session reports byte for byte as the traces do, and damaged files are refused in one line.
#include "core/cache/archive.h"
#include "core/job/job_file.h"
#include "tests/job/job_test_support.h"

#include <cstring>
#include <gtest/gtest.h>

namespace ls::test {
namespace {

const char* const kReports[] = {"rank_sum", "collective_sum", "rank_iter_sum", "kern_sum"};

std::vector<std::string> encodedSummaries(const std::vector<std::string>& files) {
    job::SummariseOptions options;
    options.useCache = false;
    std::vector<std::string> out;
    for (const auto& f : files) out.push_back(job::summariseTraceFile(f, options));
    return out;
}

void expectJobEqualsTraces(const std::vector<std::string>& files, const fs::path& job) {
    ASSERT_EQ(job::writeJobFile(job.string(), encodedSummaries(files)), "");
    EXPECT_TRUE(job::isJobFile(job.string()));
    for (const char* report : kReports) {
        SCOPED_TRACE(report);
        std::vector<std::string> args = {"summary"};
        args.insert(args.end(), files.begin(), files.end());
        args.insert(args.end(), {"--report", report, "--no-cache"});
        const CliResult traces = runCli(args);
        const CliResult fromJob = runCli({"summary", job.string(), "--report", report});
        EXPECT_EQ(traces.rc, 0) << traces.err;
        EXPECT_EQ(fromJob.rc, 0) << fromJob.err;
        EXPECT_FALSE(traces.out.empty()); // the sample has no collectives: a header alone
        EXPECT_EQ(fromJob.out, traces.out) << lineDiff(traces.out, fromJob.out);
        EXPECT_EQ(fromJob.err, traces.err);
    }
}

TEST(JobFile, SummaryEncodingRoundTrips) {
    TempDir dir;
    for (const auto& file : samplePair(dir.path())) {
        job::SummariseOptions options;
        options.useCache = false;
        const std::string bytes = job::summariseTraceFile(file, options);
        job::TraceSummary s;
        ASSERT_EQ(job::decodeSummary(bytes, s), "");
        EXPECT_EQ(job::encodeSummary(s), bytes);
        EXPECT_TRUE(s.error.empty());
        EXPECT_EQ(s.file, file);
        EXPECT_TRUE(s.identityKnown);
        EXPECT_FALSE(s.units.empty());
        EXPECT_FALSE(s.kernSum.empty());
        // Every shorter prefix is refused, never read past.
        for (size_t n = 0; n < bytes.size(); n += 1 + n / 16) {
            job::TraceSummary cut;
            EXPECT_NE(job::decodeSummary(std::string_view(bytes).substr(0, n), cut), "") << n;
        }
    }
}

TEST(JobFile, RoundTripKeepsSummariesRanksAndOffsets) {
    TempDir dir;
    const auto files = samplePair(dir.path());
    const auto encoded = encodedSummaries(files);
    const fs::path path = dir / "job.lsjob";
    ASSERT_EQ(job::writeJobFile(path.string(), encoded), "");
    const job::JobFile f = job::readJobFile(path.string());
    ASSERT_EQ(f.error, "");
    ASSERT_EQ(f.summaries.traces.size(), files.size());
    for (size_t i = 0; i < files.size(); ++i) {
        job::TraceSummary s;
        ASSERT_EQ(job::decodeSummary(encoded[i], s), "");
        EXPECT_TRUE(f.summaries.traces[i] == s) << i;
        EXPECT_EQ(f.paths[i].relativePath, fs::path(files[i]).filename().string());
        EXPECT_EQ(f.paths[i].absolutePath, fs::canonical(files[i]).generic_string());
    }
    std::vector<job::TraceSummary> decoded(encoded.size());
    for (size_t i = 0; i < encoded.size(); ++i) job::decodeSummary(encoded[i], decoded[i]);
    const job::SummarySession direct = job::assembleSummaries(decoded);
    ASSERT_EQ(f.summaries.session.ranks.size(), direct.session.ranks.size());
    for (size_t i = 0; i < direct.session.ranks.size(); ++i) {
        const SessionRank &a = direct.session.ranks[i], &b = f.summaries.session.ranks[i];
        EXPECT_EQ(a.rank, b.rank);
        EXPECT_EQ(a.source, b.source);
        EXPECT_EQ(a.trace, b.trace);
        EXPECT_EQ(a.process, b.process);
        EXPECT_EQ(a.device, b.device);
        EXPECT_EQ(a.host, b.host);
    }
    EXPECT_EQ(f.summaries.session.clockAlignment, direct.session.clockAlignment);
    for (size_t i = 0; i < files.size(); ++i)
        EXPECT_EQ(f.summaries.session.traces[i].offsetNs, direct.session.traces[i].offsetNs);
}

TEST(JobFile, ReportsEqualTheTracesOnTheSampleAsTwoRanks) {
    TempDir dir;
    expectJobEqualsTraces(samplePair(dir.path()), dir / "job.lsjob");
}

TEST(JobFile, ReportsEqualTheTracesOnTheSharedPairs) {
    TempDir dir;
    int ran = 0;
    for (const auto& files :
         {sharedPair("ddp_bf16_h200x2_rank0.sqlite", "ddp_bf16_h200x2_rank1.sqlite"),
          sharedPair("fsdp_rank0.kineto.json.gz", "fsdp_rank1.kineto.json.gz")}) {
        if (files.empty()) continue;
        expectJobEqualsTraces(files, dir / ("job" + std::to_string(ran++) + ".lsjob"));
    }
    if (!ran) {
        GTEST_SKIP() << "../shared/traces absent";
    }
}

TEST(JobFile, AFailedTraceIsKeptAndReportedAsTheSessionDoes) {
    TempDir dir;
    auto files = samplePair(dir.path());
    writeFile(dir / "rank2.sqlite", "not a database");
    files.push_back((dir / "rank2.sqlite").string());
    const fs::path job = dir / "job.lsjob";
    ASSERT_EQ(job::writeJobFile(job.string(), encodedSummaries(files)), "");
    std::vector<std::string> args = {"summary"};
    args.insert(args.end(), files.begin(), files.end());
    args.insert(args.end(), {"--report", "rank_sum", "--no-cache"});
    const CliResult traces = runCli(args);
    const CliResult fromJob = runCli({"summary", job.string(), "--report", "rank_sum"});
    EXPECT_NE(traces.rc, 0);
    EXPECT_EQ(fromJob.rc, traces.rc);
    EXPECT_EQ(fromJob.out, traces.out);
    EXPECT_EQ(fromJob.err, traces.err);
}

TEST(JobFile, OtherReportsAndCommandsRefuseAJobFileInOneLine) {
    TempDir dir;
    const fs::path job = dir / "job.lsjob";
    ASSERT_EQ(job::writeJobFile(job.string(), encodedSummaries(samplePair(dir.path()))), "");
    for (const auto& args :
         std::vector<std::vector<std::string>>{{"summary", job.string(), "--report", "nvtx_sum"},
                                               {"info", job.string()},
                                               {"kernels", job.string()}}) {
        const CliResult r = runCli(args);
        EXPECT_NE(r.rc, 0) << args[0];
        EXPECT_EQ(splitLines(r.err).size(), 1u) << r.err;
        EXPECT_NE(r.err.find("rank_sum, collective_sum, rank_iter_sum, kern_sum"),
                  std::string::npos)
            << r.err;
    }
}

// The sections' offsets: [begin, end) of each section's head and payload.
std::vector<std::pair<size_t, size_t>> sectionsOf(const std::string& bytes) {
    std::vector<std::pair<size_t, size_t>> out;
    for (size_t at = 32; at + 24 <= bytes.size();) {
        uint64_t n = 0;
        std::memcpy(&n, bytes.data() + at + 8, sizeof n);
        out.emplace_back(at, at + 24 + n);
        at += 24 + n;
    }
    return out;
}

TEST(JobFile, DamagedFilesAreRefusedWithAClearError) {
    TempDir dir;
    const fs::path path = dir / "job.lsjob";
    ASSERT_EQ(job::writeJobFile(path.string(), encodedSummaries(samplePair(dir.path()))), "");
    const std::string bytes = readFile(path);
    const auto sections = sectionsOf(bytes);
    ASSERT_GE(sections.size(), 5u); // META, two traces, RANK, END
    ASSERT_EQ(sections.back().second, bytes.size());
    auto expectError = [&](const std::string& damaged, const std::string& words) {
        const job::JobFile f = job::readJobBytes(damaged, "job.lsjob");
        EXPECT_NE(f.error.find(words), std::string::npos) << f.error;
        EXPECT_EQ(f.error.find('\n'), std::string::npos);
        EXPECT_TRUE(f.summaries.traces.empty());
    };
    expectError("", "empty file");
    expectError(readFile(sampleTrace()), "not a Layerscope job file");
    expectError("LSJOB", "not a Layerscope job file");
    // Truncated anywhere.
    for (size_t n = 8; n < bytes.size(); n += 1 + n / 8) expectError(bytes.substr(0, n), "trunc");
    // A byte flipped in the header and in each section's head and payload.
    for (size_t at : {size_t(9), size_t(20), size_t(28)}) {
        std::string d = bytes;
        d[at] ^= 0x10;
        expectError(d, "damaged");
    }
    for (const auto& [begin, end] : sections)
        for (size_t at :
             {begin, begin + 12, begin + 20, begin + 24, (begin + 24 + end) / 2, end - 1}) {
            if (at >= end) continue;
            std::string d = bytes;
            d[at] ^= 0x01;
            const job::JobFile f = job::readJobBytes(d, "job.lsjob");
            EXPECT_NE(f.error, "") << at;
            EXPECT_EQ(f.error.find('\n'), std::string::npos);
        }
    // Another format version, with a consistent header.
    std::string other = bytes;
    const uint32_t version = job::kJobFileVersion + 1;
    std::memcpy(other.data() + 8, &version, sizeof version);
    const uint64_t sum = archive::hashBytes(other.data(), 24, 0);
    std::memcpy(other.data() + 24, &sum, sizeof sum);
    expectError(other, "job file format version 3, this build reads version 2");
    // Bytes after the end.
    expectError(bytes + "x", "after its end");
    // Through the CLI: one line, exit status 3.
    writeFile(dir / "cut.lsjob", bytes.substr(0, bytes.size() / 2));
    const CliResult r = runCli({"summary", (dir / "cut.lsjob").string(), "--report", "rank_sum"});
    EXPECT_EQ(r.rc, 3);
    EXPECT_EQ(splitLines(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
}

TEST(JobFile, ATraceNamedLsjobIsReadAsATrace) {
    TempDir dir;
    const fs::path renamed = dir / "rank0.lsjob";
    fs::copy_file(sampleTrace(), renamed);
    EXPECT_FALSE(job::isJobFile(renamed.string()));
    EXPECT_NE(job::readJobFile(renamed.string()).error.find("not a Layerscope job file"),
              std::string::npos);
    const CliResult r = runCli({"summary", renamed.string(), "--report", "kern_sum", "--no-cache"});
    const CliResult t =
        runCli({"summary", sampleTrace().string(), "--report", "kern_sum", "--no-cache"});
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out, t.out);
}

} // namespace
} // namespace ls::test
