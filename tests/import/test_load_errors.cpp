// Bad inputs give one precise LoadErrorKind (never a crash), and through the CLI exit status 3
// with exactly one `error:` line naming the file. Loading never writes beside its input.
#include "core/load/load.h"
#include "tests/support/test_support.h"

#include <functional>
#include <gtest/gtest.h>
#include <random>

namespace {

using namespace ls::test;
using ls::LoadErrorKind;

std::string prefixOf(const fs::path& file, size_t bytes) { return readFile(file).substr(0, bytes); }

struct BadInput {
    std::string name;
    LoadErrorKind kind;
    std::function<fs::path(const TempDir&)> make; // returns the path to load
    std::string reasonHas = "";                   // a word the reason must contain
};
void PrintTo(const BadInput& b, std::ostream* os) { *os << b.name; }

std::vector<BadInput> badInputs() {
    return {
        {"Nonexistent", LoadErrorKind::NotFound,
         [](const TempDir& d) { return d / "no-such-trace.sqlite"; }},
        {"Directory", LoadErrorKind::IsDirectory,
         [](const TempDir& d) {
             fs::create_directory(d / "folder.sqlite");
             return d / "folder.sqlite";
         }},
        {"EmptyFile", LoadErrorKind::Empty,
         [](const TempDir& d) {
             writeFile(d / "empty.sqlite", "");
             return d / "empty.sqlite";
         }},
        {"RandomBytes", LoadErrorKind::NotSqlite,
         [](const TempDir& d) {
             std::mt19937 rng(42);
             std::string bytes(4096, '\0');
             for (char& c : bytes) c = static_cast<char>(rng() & 0xFF);
             writeFile(d / "random.sqlite", bytes);
             return d / "random.sqlite";
         }},
        {"TextFile", LoadErrorKind::NotSqlite,
         [](const TempDir& d) {
             writeFile(d / "report.nsys-rep", "this is not a database\n");
             return d / "report.nsys-rep";
         }},
        {"HeaderOnly", LoadErrorKind::Corrupt,
         [](const TempDir& d) {
             writeFile(d / "header.sqlite", prefixOf(sampleTrace(), 50));
             return d / "header.sqlite";
         }},
        {"TruncatedTo64KiB", LoadErrorKind::Corrupt,
         [](const TempDir& d) {
             writeFile(d / "t64k.sqlite", prefixOf(sampleTrace(), 64 * 1024));
             return d / "t64k.sqlite";
         },
         "truncated"},
        {"TruncatedToHalf", LoadErrorKind::Corrupt,
         [](const TempDir& d) {
             writeFile(d / "half.sqlite",
                       prefixOf(sampleTrace(), fs::file_size(sampleTrace()) / 2));
             return d / "half.sqlite";
         }},
        // The header's page count is only trusted while the change counter (offset 24) equals
        // offset 92; break that so SQLite itself meets the missing pages.
        {"TruncatedWithUntrustedPageCount", LoadErrorKind::Corrupt,
         [](const TempDir& d) {
             std::string bytes = prefixOf(sampleTrace(), fs::file_size(sampleTrace()) / 2);
             bytes[95] = static_cast<char>(bytes[95] ^ 0x55);
             writeFile(d / "stale.sqlite", bytes);
             return d / "stale.sqlite";
         },
         "corrupt"},
        {"SqliteWithoutNsysTables", LoadErrorKind::NoGpuTables,
         [](const TempDir& d) {
             writeSqliteFixture(
                 d / "plain.sqlite",
                 "CREATE TABLE notes(id INTEGER, text TEXT); INSERT INTO notes VALUES (1, 'x');");
             return d / "plain.sqlite";
         }},
        {"OnlyNvtxNoGpuTables", LoadErrorKind::NoGpuTables,
         [](const TempDir& d) {
             writeSqliteFixture(
                 d / "nvtx.sqlite",
                 "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
                 "CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER,"
                 " globalTid INTEGER, text TEXT);"
                 "INSERT INTO NVTX_EVENTS VALUES (1, 2, 59, 1, 'x');");
             return d / "nvtx.sqlite";
         }},
    };
}

class LoadErrors : public ::testing::TestWithParam<BadInput> {};

TEST_P(LoadErrors, LoadTraceReportsTheKindAndWritesNothing) {
    TempDir dir;
    const fs::path file = GetParam().make(dir);
    const auto before = listDir(dir.path());
    const auto r = ls::loadTrace(file.string());
    EXPECT_FALSE(r.ok());
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(static_cast<int>(r.error->kind), static_cast<int>(GetParam().kind))
        << "reason: " << r.error->reason;
    EXPECT_FALSE(r.error->reason.empty());
    EXPECT_NE(r.error->reason.find(GetParam().reasonHas), std::string::npos) << r.error->reason;
    EXPECT_EQ(r.error->reason.find('\n'), std::string::npos) << "one line: " << r.error->reason;
    EXPECT_EQ(listDir(dir.path()), before) << "a failed load created or removed files";
}

TEST_P(LoadErrors, CliExitsWithStatus3AndOneErrorLine) {
    TempDir dir;
    const fs::path file = GetParam().make(dir);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"info", file.string()},
          {"kernels", file.string()},
          {"summary", file.string(), "--report", "api_sum"}}) {
        const auto r = runCli(args);
        EXPECT_EQ(r.rc, 3) << args[0];
        EXPECT_EQ(r.out, "") << args[0];
        const auto lines = splitLines(r.err);
        ASSERT_EQ(lines.size(), 1u) << args[0] << " stderr:\n" << r.err;
        EXPECT_EQ(r.err.back(), '\n');
        EXPECT_EQ(lines[0].rfind("error: ", 0), 0u) << lines[0];
        EXPECT_NE(lines[0].find(file.string()), std::string::npos)
            << "names the file: " << lines[0];
    }
}

INSTANTIATE_TEST_SUITE_P(BadInputs, LoadErrors, ::testing::ValuesIn(badInputs()),
                         [](const auto& p) { return p.param.name; });

struct FileState {
    uintmax_t size;
    fs::file_time_type mtime;
    uint64_t hash;
    bool operator==(const FileState&) const = default;
};
FileState stateOf(const fs::path& f) {
    return {fs::file_size(f), fs::last_write_time(f), hashFile(f)};
}

// SQLite would create -journal, -wal or -shm files, or rewrite the header, if the file were
// opened for writing or without immutable=1.
TEST(LoadSideEffects, LoadingWritesNothingBesideOrIntoTheInput) {
    TempDir dir;
    const fs::path copy = dir / "trace.sqlite";
    fs::copy_file(sampleTrace(), copy);
    const auto before = listDir(dir.path());
    const FileState state = stateOf(copy);
    const auto r = ls::loadTrace(copy.string());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(runCli({"summary", copy.string(), "--report", "kern_sum"}).rc, 0);
    EXPECT_EQ(listDir(dir.path()), before);
    EXPECT_TRUE(stateOf(copy) == state) << "size, mtime or content changed";
}

// A database left in WAL mode (header bytes 18 and 19 are 2) needs a -shm file to be read
// unless it is opened immutable.
TEST(LoadSideEffects, WalModeDatabaseLoadsWithoutCreatingWalOrShm) {
    TempDir dir;
    const fs::path file = dir / "wal.sqlite";
    writeSqliteFixture(
        file,
        "PRAGMA journal_mode=WAL;"
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
        "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER,"
        " globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 200, 0, 1, 1, 1);");
    const std::string header = prefixOf(file, 20);
    ASSERT_EQ(header.size(), 20u);
    ASSERT_EQ(header[18], 2) << "fixture is not in WAL mode";
    const auto before = listDir(dir.path());
    const FileState state = stateOf(file);
    const auto r = ls::loadTrace(file.string());
    ASSERT_TRUE(r.ok()) << r.error->reason;
    EXPECT_EQ(r.trace->apiCalls.size(), 1u);
    EXPECT_EQ(listDir(dir.path()), before);
    EXPECT_TRUE(stateOf(file) == state);
}

TEST(LoadCancel, ACancelledLoadReturnsCancelledAndNoTrace) {
    std::atomic<bool> cancel{true};
    ls::LoadOptions options;
    options.cancel = &cancel;
    const auto r = ls::loadTrace(sampleTrace().string(), options);
    EXPECT_FALSE(r.ok());
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(static_cast<int>(r.error->kind), static_cast<int>(LoadErrorKind::Cancelled));
}

} // namespace
