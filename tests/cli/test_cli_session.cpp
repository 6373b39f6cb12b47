// The CLI over several files and folders: one session, rows with rank and file, the failed file
// reported while the rest still prints; rank_sum, collective_sum and rank_iter_sum.
#include "core/load/session_load.h"
#include "tests/support/cli_table.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <sqlite3.h>

namespace ls::test {
namespace {

fs::path ddp(int rank) {
    return sharedDir() / "traces" / ("ddp_bf16_h200x2_rank" + std::to_string(rank) + ".sqlite");
}

#define LS_REQUIRE_DDP()                                                                           \
    LS_REQUIRE_FILE(ddp(0));                                                                       \
    LS_REQUIRE_FILE(ddp(1))

TEST(CliSession, InfoOfTwoRanksNamesBothAndTheClockAlignment) {
    LS_REQUIRE_DDP();
    const auto r = runCli({"info", ddp(0).string(), ddp(1).string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.err, "");
    for (const auto& needle :
         {"== " + ddp(0).string() + " (1 of 2)", "== " + ddp(1).string() + " (2 of 2)",
          std::string("ranks: 2"), std::string("rank 0: host vm"), std::string("rank 1: host vm"),
          std::string("numbered by file name"), std::string("clock alignment: one host (vm)")})
        EXPECT_NE(r.out.find(needle), std::string::npos) << needle << "\n" << r.out;
}

TEST(CliSession, KernelsOfTwoFilesHaveRankAndFileAndEqualSqlCounts) {
    LS_REQUIRE_DDP();
    const CliTable t = cliTable({"kernels", ddp(0).string(), ddp(1).string()});
    ASSERT_EQ(t.header.back(), "file") << "after the kernels columns";
    ASSERT_EQ(t.header[t.header.size() - 2], "graph");
    ASSERT_LT(t.col("rank"), t.header.size());
    for (int r = 0; r < 2; ++r) {
        const SqlReader db(ddp(r));
        const auto rows = t.where("rank", std::to_string(r));
        EXPECT_EQ(static_cast<int64_t>(rows.size()),
                  db.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
        for (const size_t i : rows) EXPECT_EQ(t.rows[i][t.col("file")], ddp(r).string());
        const auto nccl = t.where("short_name", "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
        EXPECT_FALSE(nccl.empty());
    }
    // One file: a rank column and no file column.
    const CliTable one = cliTable({"kernels", ddp(1).string()});
    EXPECT_EQ(one.header.back(), "graph");
    EXPECT_EQ(std::count(one.header.begin(), one.header.end(), "file"), 0);
    EXPECT_EQ(one.where("rank", "1").size(), one.rows.size());
}

TEST(CliSession, AFolderIsTheSessionOfItsTraces) {
    LS_REQUIRE_DDP();
    TempDir dir;
    fs::copy_file(ddp(1), dir / "job_rank1.sqlite");
    fs::copy_file(ddp(0), dir / "job_rank0.sqlite");
    writeFile(dir / "notes.txt", "not a trace");
    const auto before = listDir(dir.path());
    const CliTable t = cliTable({"summary", "--report", "rank_sum", dir.path().string()});
    ASSERT_EQ(t.rows.size(), 2u);
    EXPECT_EQ(t.header, (std::vector<std::string>{"rank", "host", "pid", "device", "kernels",
                                                  "span_ns", "busy_ns", "compute_ns", "comm_ns",
                                                  "overlap_ns", "exposed_comm_ns", "idle_ns"}));
    for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(t.at(r, "rank"), std::to_string(r));
        const SqlReader db(ddp(r));
        EXPECT_EQ(t.at(r, "kernels"),
                  std::to_string(db.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")));
        const int64_t busy = std::stoll(t.at(r, "busy_ns")),
                      compute = std::stoll(t.at(r, "compute_ns")),
                      exposed = std::stoll(t.at(r, "exposed_comm_ns")),
                      span = std::stoll(t.at(r, "span_ns")), idle = std::stoll(t.at(r, "idle_ns"));
        EXPECT_GE(busy, compute + exposed); // and copies and sets outside kernels
        EXPECT_EQ(idle, span - busy);
    }
    EXPECT_EQ(listDir(dir.path()), before) << "nothing written beside the traces";

    const CliTable c = cliTable({"summary", "--report", "collective_sum", dir.path().string()});
    ASSERT_FALSE(c.rows.empty());
    for (size_t i = 0; i < c.rows.size(); ++i) {
        EXPECT_EQ(c.at(i, "ranks"), "2");
        EXPECT_EQ(c.at(i, "type"), "all_reduce");
    }
    const CliTable it = cliTable({"summary", "--report", "rank_iter_sum", dir.path().string()});
    EXPECT_FALSE(it.where("slowest", "yes").empty());
}

TEST(CliSession, PerTraceReportsGainFileAndRankColumns) {
    LS_REQUIRE_DDP();
    const CliTable both =
        cliTable({"summary", "--report", "kern_sum", ddp(0).string(), ddp(1).string()});
    const CliTable one = cliTable({"summary", "--report", "kern_sum", ddp(1).string()});
    ASSERT_EQ(both.header.size(), one.header.size() + 2);
    EXPECT_EQ(both.header[0], "file");
    EXPECT_EQ(both.header[1], "rank");
    const auto rank1 = both.where("rank", "1");
    ASSERT_EQ(rank1.size(), one.rows.size());
    for (size_t i = 0; i < rank1.size(); ++i) {
        std::vector<std::string> tail(both.rows[rank1[i]].begin() + 2, both.rows[rank1[i]].end());
        EXPECT_EQ(tail, one.rows[i]);
    }
}

TEST(CliSession, AFailedFileIsReportedAndTheOthersStillPrint) {
    const auto missing = (outputDir() / "no_such_rank3.sqlite").string();
    const auto r = runCli({"summary", "--report", "rank_sum", sampleTrace().string(), missing});
    EXPECT_EQ(r.rc, 3);
    EXPECT_EQ(r.err.find("error: " + missing + ": "), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    const auto csv = parseCsv(r.out);
    ASSERT_EQ(csv.size(), 2u) << r.out; // header and the sample's one rank
    EXPECT_EQ(csv[1][0], "0");

    TempDir empty;
    const auto e = runCli({"info", empty.path().string()});
    EXPECT_EQ(e.rc, 3);
    EXPECT_NE(e.err.find("holds no trace files"), std::string::npos) << e.err;
    EXPECT_EQ(e.out, "");
}

TEST(SessionLoad, ParallelFileLoadsAreBoundedByCoresAndMemory) {
    const uint64_t gb = 1ull << 30;
    EXPECT_EQ(parallelFileLoads({gb, gb, gb, gb}, 2, 0), 2u);
    EXPECT_EQ(parallelFileLoads({gb}, 8, 0), 1u);
    EXPECT_EQ(parallelFileLoads({gb, gb, gb, gb}, 8, 64 * gb), 4u);
    EXPECT_EQ(parallelFileLoads({gb, gb, gb, gb}, 8, 10 * gb),
              2u); // two 2 GB loads fit in half of 10 GB
    EXPECT_EQ(parallelFileLoads({8 * gb, 1, 1}, 8, 16 * gb), 1u);
}

TEST(SessionLoad, FoldersExpandInNaturalOrder) {
    TempDir dir;
    for (const char* f : {"r10.sqlite", "r2.sqlite", "r1.json.gz", "readme.md", "r3.nsys-rep"})
        writeFile(dir / f, "x");
    fs::create_directory(dir / "sub.sqlite");
    std::vector<SessionFailure> failed;
    const auto files = expandSessionInputs({dir.path().string(), "/no/such/file.sqlite"}, failed);
    const std::vector<std::string> expected = {
        (dir / "r1.json.gz").string(), (dir / "r2.sqlite").string(), (dir / "r3.nsys-rep").string(),
        (dir / "r10.sqlite").string(), "/no/such/file.sqlite"};
    EXPECT_EQ(files, expected);
    EXPECT_TRUE(failed.empty());
}

} // namespace
} // namespace ls::test
