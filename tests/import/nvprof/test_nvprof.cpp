// Legacy nvprof databases: loaded through a private converted copy into the same model. Checked
// against SQL over the nvprof file itself and against PyProf's own output for the LSTM trace.
#include "core/load/load.h"
#include "core/model/platform.h"
#include "tests/support/cli_table.h"
#include "tests/support/test_support.h"

#include <filesystem>
#include <gtest/gtest.h>

namespace {

using namespace ls::test;

fs::path thirdParty(const char* name) { return thirdPartyTrace(name); }

std::shared_ptr<const ls::Trace> load(const fs::path& p) {
    auto r = ls::loadTrace(p.string());
    EXPECT_TRUE(r.ok()) << (r.error ? r.error->reason : "");
    return r.trace;
}

void expectCountsEqualSql(const fs::path& file, const ls::Trace& t) {
    SqlReader sql(file);
    const bool concurrent = sql.scalar("SELECT count(*) FROM sqlite_master WHERE name = "
                                       "'CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL'") > 0;
    EXPECT_EQ(static_cast<int64_t>(t.kernels.size()),
              sql.scalar(concurrent ? "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL"
                                    : "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    const bool driver =
        sql.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_DRIVER'") >
        0;
    EXPECT_EQ(static_cast<int64_t>(t.apiCalls.size()),
              sql.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME") +
                  (driver ? sql.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_DRIVER") : 0));
    EXPECT_EQ(static_cast<int64_t>(t.memcpys.size()),
              sql.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
    EXPECT_EQ(static_cast<int64_t>(t.memsets.size()),
              sql.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET"));
    const bool markers =
        sql.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_MARKER'") >
        0;
    EXPECT_EQ(static_cast<int64_t>(t.ranges.size()),
              markers
                  ? sql.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MARKER WHERE flags = 2")
                  : 0);
    // Every kernel has its launch call.
    for (size_t k = 0; k < t.kernels.size(); ++k)
        EXPECT_TRUE(t.kernels.launch[k].valid()) << "kernel " << k;
    EXPECT_EQ(t.report.count(ls::Anomaly::OrphanGpuOp), 0u);
    EXPECT_EQ(t.report.count(ls::Anomaly::ConvertedFromNvprof), 1u);
    EXPECT_EQ(t.displayPath(), file.string());
}

TEST(Nvprof, LstmKernelsAreThoseOfPyProfsOwnOutputInOrder) {
    const auto file = thirdParty("pyprof_lstm_v100.nvprof.sql");
    const auto prof = thirdParty("pyprof_lstm_v100.prof.csv");
    LS_REQUIRE_FILE(file);
    LS_REQUIRE_FILE(prof);
    const auto t = load(file);
    ASSERT_TRUE(t);
    expectCountsEqualSql(file, *t);
    const auto ours = cliTable({"kernels", file.string()});
    const auto ref = parseCsv(readFile(prof));
    ASSERT_EQ(ours.rows.size() + 1, ref.size());
    // PyProf's columns: Kernel, Module, Op, Direction, Sil(ns), TC, FLOPs, Bytes, Device, Stream,
    // Block, Grid.
    for (size_t i = 0; i < ours.rows.size(); ++i) {
        const auto& r = ref[i + 1];
        EXPECT_EQ(ours.at(i, "short_name"), r[0]) << i;
        EXPECT_EQ(ours.at(i, "direction"), r[3] == "fprop" ? "forward" : "backward")
            << i << " " << r[0];
        EXPECT_EQ(ours.at(i, "duration_ns"), r[4]) << i;
        EXPECT_EQ(ours.at(i, "device"), r[8]) << i;
        EXPECT_EQ(ours.at(i, "stream"), r[9]) << i;
        EXPECT_EQ(ours.at(i, "block"), r[10]) << i;
        EXPECT_EQ(ours.at(i, "grid"), r[11]) << i;
    }
    // API names come from CUPTI callback ids; launches are cudaLaunchKernel.
    EXPECT_EQ(ours.at(0, "api"), "cudaLaunchKernel");
    // The process is named from CUPTI_ACTIVITY_KIND_NAME.
    ASSERT_EQ(t->processes.size(), 1u);
    EXPECT_EQ(t->processes[0].name, "python language-model.py");
    // Kernel names are demangled.
    EXPECT_EQ(ours.at(0, "name").rfind("void indexSelectLargeIndex<", 0), 0u) << ours.at(0, "name");
}

TEST(Nvprof, OrtmoduleNvtxAttributionEqualsSqlReference) {
    const auto file = thirdParty("ortmodule_v100.nvprof.nvvp");
    LS_REQUIRE_FILE(file);
    const auto t = load(file);
    ASSERT_TRUE(t);
    expectCountsEqualSql(file, *t);
    // Reference: the innermost (latest-starting) marker range containing the launching call
    // (one thread in this file), straight from the nvprof tables.
    SqlReader sql(file);
    const auto ours = cliTable({"kernels", file.string(), "--sort", "id"});
    const std::string query = R"(
        WITH s AS (SELECT id, timestamp AS ts, name FROM CUPTI_ACTIVITY_KIND_MARKER WHERE flags = 2),
             e AS (SELECT id, timestamp AS te FROM CUPTI_ACTIVITY_KIND_MARKER WHERE flags = 4),
             r AS (SELECT s.ts, e.te, s.name FROM s JOIN e ON e.id = s.id),
             calls AS (SELECT correlationId, start, end FROM CUPTI_ACTIVITY_KIND_RUNTIME
                       UNION ALL SELECT correlationId, start, end FROM CUPTI_ACTIVITY_KIND_DRIVER)
        SELECT coalesce((SELECT st.value FROM r JOIN StringTable st ON st._id_ = r.name
                         WHERE r.ts <= c.start AND r.te >= c.end ORDER BY r.ts DESC, r.te ASC LIMIT 1), '')
        FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL k JOIN calls c ON c.correlationId = k.correlationId
        ORDER BY k.start, k._id_)";
    std::vector<std::string> expected;
    sql.each(query, [&](sqlite3_stmt* st) { expected.push_back(SqlReader::text(st, 0)); });
    ASSERT_EQ(expected.size(), ours.rows.size());
    size_t attributed = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(ours.at(i, "nvtx_range"), expected[i]) << "kernel " << i;
        attributed += !expected[i].empty();
    }
    EXPECT_GT(attributed, 1000u);
}

TEST(Nvprof, NcclEightGpusCountsAndStreams) {
    const auto file = thirdParty("nccl_8xv100.nvprof.nvvp");
    LS_REQUIRE_FILE(file);
    const auto t = load(file);
    ASSERT_TRUE(t);
    expectCountsEqualSql(file, *t);
    SqlReader sql(file);
    EXPECT_EQ(static_cast<int64_t>(t->devices.size()),
              sql.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_DEVICE"));
    size_t streamsWithKernels = 0;
    for (uint32_t s = 0; s < t->streams.size(); ++s) {
        const auto [a, b] = t->streamKernels.of(ls::StreamId(s));
        streamsWithKernels += a != b;
    }
    EXPECT_EQ(static_cast<int64_t>(streamsWithKernels),
              sql.scalar("SELECT count(*) FROM (SELECT DISTINCT deviceId, contextId, streamId FROM "
                         "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)"));
    for (size_t k = 0; k < t->kernels.size(); ++k)
        EXPECT_NE(t->str(t->kernels.name[k]).find("nccl"), std::string_view::npos);
}

TEST(Nvprof, ProfilingThatNeverStartedOpensEmptyAndSaysWhy) {
    TempDir dir;
    writeSqliteFixture(
        dir / "legacy.nvvp",
        "CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY, value TEXT);"
        "INSERT INTO StringTable VALUES (1, 'Tesla V100');"
        "CREATE TABLE Version(version INTEGER); INSERT INTO Version VALUES (11);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_DEVICE(id INTEGER, name INTEGER, numMultiprocessors "
        "INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_DEVICE VALUES (0, 1, 80);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(start INTEGER, end INTEGER);");
    const auto before = listDir(dir.path());
    auto r = ls::loadTrace((dir / "legacy.nvvp").string());
    ASSERT_TRUE(r.ok()) << r.error->reason;
    EXPECT_EQ(r.trace->kernels.size(), 0u);
    EXPECT_EQ(r.trace->report.count(ls::Anomaly::NoActivity), 1u);
    ASSERT_EQ(r.trace->devices.size(), 1u);
    EXPECT_EQ(r.trace->devices[0].name, "Tesla V100");
    EXPECT_EQ(listDir(dir.path()), before) << "nothing written beside the user's file";
    const auto info = runCli({"info", (dir / "legacy.nvvp").string()});
    EXPECT_EQ(info.rc, 0);
    EXPECT_NE(info.out.find("no_activity"), std::string::npos) << info.out;
}

TEST(Nvprof, ConvertedCopyIsRemovedWithTheTrace) {
    const auto file = thirdParty("pyprof_lstm_v100.nvprof.sql");
    LS_REQUIRE_FILE(file);
    std::string copy;
    {
        const auto t = load(file);
        ASSERT_TRUE(t);
        copy = t->path;
        EXPECT_NE(copy, file.string());
        EXPECT_TRUE(fs::exists(copy));
    }
    EXPECT_FALSE(fs::exists(copy));
}

// A copy whose process was killed before it could remove it is removed by the next conversion;
// the copies of running processes (this one, pid 1) stay.
TEST(Nvprof, CopiesOfKilledProcessesAreRemovedByTheNextConversion) {
    const auto file = thirdParty("pyprof_lstm_v100.nvprof.sql");
    LS_REQUIRE_FILE(file);
    uint64_t dead = 4000000;
    while (dead > 2 && ls::platform::processRunning(dead)) --dead;
    const fs::path tmp = fs::temp_directory_path();
    const fs::path orphan = tmp / ("layerscope-nvprof-" + std::to_string(dead) + "-12345-0.sqlite");
    const fs::path ours = tmp / ("layerscope-nvprof-" + std::to_string(ls::platform::processId()) +
                                 "-12345-99.sqlite");
    const fs::path init = tmp / "layerscope-nvprof-1-12345-0.sqlite";
    const fs::path unrelated = tmp / "layerscope-nvprof-notes.sqlite";
    for (const auto& f : {orphan, ours, init, unrelated}) writeFile(f, "left over");
    EXPECT_TRUE(load(file));
    EXPECT_FALSE(fs::exists(orphan)) << "pid " << dead << " does not run";
    EXPECT_TRUE(fs::exists(ours));
    EXPECT_TRUE(fs::exists(init));
    EXPECT_TRUE(fs::exists(unrelated)) << "not a name this program gives";
    for (const auto& f : {ours, init, unrelated}) fs::remove(f);
}

TEST(Nvprof, TruncatedDatabaseIsAClearError) {
    const auto file = thirdParty("pyprof_lstm_v100.nvprof.sql");
    LS_REQUIRE_FILE(file);
    TempDir dir;
    const std::string bytes = readFile(file);
    writeFile(dir / "half.sql", std::string_view(bytes).substr(0, bytes.size() / 2));
    const auto r = ls::loadTrace((dir / "half.sql").string());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error->reason.find('\n'), std::string::npos);
    EXPECT_FALSE(r.error->reason.empty());
}

} // namespace
