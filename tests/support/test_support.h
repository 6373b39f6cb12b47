#pragma once
// Shared helpers for the core and CLI tests: where files are, per-test temporary folders,
// SQLite fixtures written from SQL text, an independent read-only SQL reader for real traces,
// an RFC 4180 CSV parser, a line diff for golden files and an in-process CLI runner.
#include "core/model/trace.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <gtest/gtest.h>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

// Readable gtest messages for core value types.
namespace ls {
template <typename Tag> void PrintTo(const Id<Tag>& id, std::ostream* os) {
    if (id.valid())
        *os << "Id(" << id.value << ")";
    else
        *os << "Id(invalid)";
}
inline void PrintTo(const Dim3& d, std::ostream* os) {
    *os << "{" << d.x << ", " << d.y << ", " << d.z << "}";
}
} // namespace ls

namespace ls::test {

namespace fs = std::filesystem;

// Sets (value) or removes (nullptr) an environment variable of this process.
void setEnv(const char* name, const char* value);

// Compile definitions set by tests/CMakeLists.txt.
fs::path sourceDir();   // the project root
fs::path sharedDir();   // ../shared beside the project (real traces; may be absent)
fs::path goldenDir();   // tests/data/golden
fs::path outputDir();   // build-tree folder for .actual files and temporary folders
fs::path sampleTrace(); // resources/sample_gpt2_2layer_fp16_h200.sqlite (always present)
// A third-party trace of ../shared/traces/third-party (name relative to it, "kineto/HTA__...");
// where ../shared is absent, the same bytes from the real-trace corpus (tests/corpus/data, or
// files/ after tools/fetch_corpus.sh), so a fresh clone runs these tests too.
fs::path thirdPartyTrace(const std::string& name);

// Skips the current test when a file (typically under ../shared) is missing.
#define LS_REQUIRE_FILE(path)                                                                      \
    do {                                                                                           \
        if (!std::filesystem::exists(path)) GTEST_SKIP() << (path).string() << " absent";          \
    } while (0)

// The Nsight Systems exports that have golden `nsys stats` (2022.4) outputs in tests/data/golden.
struct TraceCase {
    std::string name; // golden file stem: <name>.gpukernsum.csv, ...
    fs::path path;    // the .sqlite
    bool bundled;     // true: shipped in resources/, never skipped
};

inline void PrintTo(const TraceCase& c, std::ostream* os) { *os << c.name; }
const std::vector<TraceCase>& goldenTraces();
const TraceCase& goldenTrace(std::string_view name);
// gtest parameter name: letters, digits and underscores only.
std::string paramName(const TraceCase& c);
inline std::string traceParamName(const ::testing::TestParamInfo<TraceCase>& p) {
    return paramName(p.param);
}

// A fresh folder under outputDir()/tmp named after the running test, removed when the test
// passes (kept for inspection when it fails).
class TempDir {
  public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const fs::path& path() const { return path_; }
    fs::path operator/(std::string_view name) const { return path_ / name; }

  private:
    fs::path path_;
};

// Creates (replacing) an SQLite database at file by running sql. Fails the test on an SQL error.
void writeSqliteFixture(const fs::path& file, std::string_view sql);

// A read-only, immutable connection to a real trace for independent SQL checks.
class SqlReader {
  public:
    explicit SqlReader(const fs::path& file);
    ~SqlReader();
    SqlReader(const SqlReader&) = delete;
    SqlReader& operator=(const SqlReader&) = delete;

    bool ok() const { return db_ != nullptr; }
    bool hasTable(std::string_view table) const;
    // First column of the first row; fallback when there is no row, it is NULL, or sql fails.
    int64_t scalar(std::string_view sql, int64_t fallback = -1) const;
    // Calls row for each result row; fails the test on an SQL error.
    void each(std::string_view sql, const std::function<void(sqlite3_stmt*)>& row) const;

    static int64_t int64(sqlite3_stmt* st, int col);
    static std::string text(sqlite3_stmt* st, int col);
    static bool isNull(sqlite3_stmt* st, int col);

  private:
    sqlite3* db_ = nullptr;
};

// RFC 4180: fields separated by commas, records by CRLF or LF; a quoted field may hold commas,
// line breaks and doubled quotes. On malformed input sets *error (when given) and returns what
// was parsed so far.
using CsvTable = std::vector<std::vector<std::string>>;
CsvTable parseCsv(std::string_view text, std::string* error = nullptr);
// tests/data/golden/<trace>.<kind>.csv, checked to exist and to parse.
CsvTable readGolden(const TraceCase& c, const std::string& kind);

// `summary FILE --report REPORT` as CSV, checked to succeed quietly and to parse; raw gets the
// text.
CsvTable runSummary(const TraceCase& c, const std::string& report, std::string& raw);
std::string formatCsvRow(const std::vector<std::string>& row);

// A unified-style diff of two texts by lines ("-" expected only, "+" actual only), with two lines
// of context around each change; empty when they are equal.
std::string lineDiff(std::string_view expected, std::string_view actual);

std::string readFile(const fs::path& file);
void writeFile(const fs::path& file, std::string_view data);
uint64_t hashFile(const fs::path& file);               // FNV-1a over the bytes
std::vector<std::string> listDir(const fs::path& dir); // sorted file names

// Runs ls::cli::run in-process.
struct CliResult {
    int rc = -1;
    std::string out, err;
};
CliResult runCli(const std::vector<std::string>& args);

std::vector<std::string> splitLines(std::string_view text);

} // namespace ls::test
