#include "tests/support/test_support.h"

#include "app/cli/cli.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sqlite3.h>
#include <sstream>
#include <stdexcept>

namespace ls::test {

void setEnv(const char* name, const char* value) {
#if defined(_WIN32)
    _putenv_s(name, value ? value : "");
#else
    if (value)
        ::setenv(name, value, 1);
    else
        ::unsetenv(name);
#endif
}

namespace {
// Tests load from the trace files themselves (a cache hit would hide a loader bug, and the
// user's cache folder is no place for test files); the cache tests turn it on for themselves.
[[maybe_unused]] const bool kNoModelCache = [] {
    setEnv("LAYERSCOPE_NO_CACHE", "1");
    return true;
}();
} // namespace

fs::path sourceDir() { return LAYERSCOPE_SOURCE_DIR; }
fs::path sharedDir() { return LAYERSCOPE_SHARED_DIR; }
fs::path goldenDir() { return sourceDir() / "tests" / "data" / "golden"; }

fs::path thirdPartyTrace(const std::string& name) {
    const fs::path shared = sharedDir() / "traces" / "third-party" / name;
    if (fs::exists(shared)) return shared;
    // The corpus names of ../shared's third-party files (tests/corpus/manifest.tsv, same sha256).
    static const std::pair<std::string_view, std::string_view> kCorpusName[] = {
        {"cloverleaf_perlmutter.nsys.sqlite", "pipit_cloverleaf_a100.sqlite"},
        {"saxpy_mpi_perlmutter.nsys.sqlite", "pipit_saxpy_mpi_a100.sqlite"},
        {"nccl_8xv100.nvprof.nvvp", "nccl_8xv100_nvvp.nvvp"},
        {"ortmodule_v100.nvprof.nvvp", "ortmodule_nvvp.nvvp"},
        {"pyprof_lstm_v100.nvprof.sql", "pyprof_lstm_v100.sql"},
        {"kineto/HTA__critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz",
         "hta_alexnet_a100.json.gz"},
        {"kineto/HTA__ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
         "hta_ns_resolution_v100.pt.trace.json.gz"},
        {"kineto/HTA__trace_filter_sampled_rank-0.json.gz", "hta_sampled_rank0.json.gz"},
    };
    for (const auto& [sharedName, corpusName] : kCorpusName) {
        if (name != sharedName) continue;
        for (const char* folder : {"data", "files"}) {
            const fs::path p = sourceDir() / "tests" / "corpus" / folder / corpusName;
            if (fs::exists(p)) return p;
        }
    }
    return shared; // absent: LS_REQUIRE_FILE names it and skips
}
fs::path sampleTrace() { return sourceDir() / "resources" / "sample_gpt2_2layer_fp16_h200.sqlite"; }

fs::path outputDir() {
    fs::create_directories(LAYERSCOPE_TEST_OUTPUT_DIR);
    return LAYERSCOPE_TEST_OUTPUT_DIR;
}

const std::vector<TraceCase>& goldenTraces() {
    static const std::vector<TraceCase> cases = {
        {"gpt2_2layer_fp16_h200", sampleTrace(), true},
        {"ddp_bf16_h200x2_rank0", sharedDir() / "traces" / "ddp_bf16_h200x2_rank0.sqlite", false},
        {"ddp_bf16_h200x2_rank1", sharedDir() / "traces" / "ddp_bf16_h200x2_rank1.sqlite", false},
        {"pair_gpt1layer_fp16_h200.nsys",
         sharedDir() / "traces" / "pair_gpt1layer_fp16_h200.nsys.sqlite", false},
        {"saxpy_mpi_perlmutter.nsys", thirdPartyTrace("saxpy_mpi_perlmutter.nsys.sqlite"), false},
        {"cloverleaf_perlmutter.nsys", thirdPartyTrace("cloverleaf_perlmutter.nsys.sqlite"), false},
    };
    return cases;
}

const TraceCase& goldenTrace(std::string_view name) {
    for (const auto& c : goldenTraces())
        if (c.name == name) return c;
    throw std::invalid_argument("no golden trace named " + std::string(name));
}

std::string paramName(const TraceCase& c) {
    std::string s = c.name;
    for (char& ch : s)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return s;
}

TempDir::TempDir() {
    std::string name = "test";
    if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info())
        name = std::string(info->test_suite_name()) + "." + info->name();
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-') ch = '_';
    static std::atomic<unsigned> counter{0};
    const unsigned salt = std::random_device{}();
    path_ =
        outputDir() / "tmp" / (name + "-" + std::to_string(salt) + "-" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
}

TempDir::~TempDir() {
    if (::testing::Test::HasFailure()) return; // keep the evidence
    std::error_code ec;
    fs::remove_all(path_, ec);
}

void writeSqliteFixture(const fs::path& file, std::string_view sql) {
    fs::remove(file);
    sqlite3* db = nullptr;
    if (sqlite3_open(file.string().c_str(), &db) != SQLITE_OK) {
        ADD_FAILURE() << "cannot create " << file << ": " << sqlite3_errmsg(db);
        sqlite3_close(db);
        return;
    }
    char* err = nullptr;
    if (sqlite3_exec(db, std::string(sql).c_str(), nullptr, nullptr, &err) != SQLITE_OK)
        ADD_FAILURE() << "fixture SQL failed: " << (err ? err : "?") << "\n" << sql;
    sqlite3_free(err);
    sqlite3_close(db);
}

SqlReader::SqlReader(const fs::path& file) {
    std::string uri = "file:";
    for (char c : file.string())
        uri += c == '%' ? "%25" : c == '?' ? "%3F" : c == '#' ? "%23" : std::string(1, c);
    uri += "?immutable=1";
    if (sqlite3_open_v2(uri.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) !=
        SQLITE_OK) {
        ADD_FAILURE() << "cannot open " << file << ": " << sqlite3_errmsg(db_);
        sqlite3_close(db_);
        db_ = nullptr;
    }
}

SqlReader::~SqlReader() { sqlite3_close(db_); }

bool SqlReader::hasTable(std::string_view table) const {
    return scalar("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='" +
                      std::string(table) + "'",
                  0) > 0;
}

int64_t SqlReader::scalar(std::string_view sql, int64_t fallback) const {
    sqlite3_stmt* st = nullptr;
    int64_t v = fallback;
    if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &st, nullptr) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

void SqlReader::each(std::string_view sql, const std::function<void(sqlite3_stmt*)>& row) const {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &st, nullptr) !=
        SQLITE_OK) {
        ADD_FAILURE() << "SQL failed: " << sqlite3_errmsg(db_) << "\n" << sql;
        return;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) row(st);
    if (rc != SQLITE_DONE)
        ADD_FAILURE() << "SQL step failed: " << sqlite3_errmsg(db_) << "\n" << sql;
    sqlite3_finalize(st);
}

int64_t SqlReader::int64(sqlite3_stmt* st, int col) { return sqlite3_column_int64(st, col); }
bool SqlReader::isNull(sqlite3_stmt* st, int col) {
    return sqlite3_column_type(st, col) == SQLITE_NULL;
}
std::string SqlReader::text(sqlite3_stmt* st, int col) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, col));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(st, col))) : std::string();
}

CsvTable readGolden(const TraceCase& c, const std::string& kind) {
    const fs::path file = goldenDir() / (c.name + "." + kind + ".csv");
    EXPECT_TRUE(fs::exists(file)) << file;
    std::string error;
    auto table = parseCsv(readFile(file), &error);
    EXPECT_EQ(error, "") << file;
    return table;
}

CsvTable parseCsv(std::string_view s, std::string* error) {
    CsvTable table;
    std::vector<std::string> row;
    std::string field;
    size_t i = 0;
    auto endRecord = [&] {
        row.push_back(std::move(field));
        field.clear();
        table.push_back(std::move(row));
        row.clear();
    };
    while (i < s.size()) {
        if (s[i] == '"' && field.empty()) { // quoted field
            ++i;
            for (;;) {
                if (i >= s.size()) {
                    if (error)
                        *error = "unterminated quoted field in record " +
                                 std::to_string(table.size() + 1);
                    return table;
                }
                if (s[i] == '"') {
                    if (i + 1 < s.size() && s[i + 1] == '"') {
                        field += '"';
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                field += s[i++];
            }
            if (i < s.size() && s[i] != ',' && s[i] != '\n' && s[i] != '\r') {
                if (error)
                    *error =
                        "text after a closing quote in record " + std::to_string(table.size() + 1);
                return table;
            }
            continue;
        }
        const char c = s[i];
        if (c == ',') {
            row.push_back(std::move(field));
            field.clear();
            ++i;
        } else if (c == '\r' && i + 1 < s.size() && s[i + 1] == '\n') {
            endRecord();
            i += 2;
        } else if (c == '\n') {
            endRecord();
            ++i;
        } else if (c == '"') {
            if (error)
                *error =
                    "quote inside an unquoted field in record " + std::to_string(table.size() + 1);
            return table;
        } else {
            field += c;
            ++i;
        }
    }
    if (!field.empty() || !row.empty()) endRecord(); // last record without a line break
    return table;
}

std::string formatCsvRow(const std::vector<std::string>& row) {
    std::string out;
    for (size_t i = 0; i < row.size(); ++i) {
        if (i) out += ',';
        if (row[i].find_first_of(",\"\r\n") == std::string::npos) {
            out += row[i];
            continue;
        }
        out += '"';
        for (char c : row[i]) out += c == '"' ? std::string("\"\"") : std::string(1, c);
        out += '"';
    }
    return out;
}

std::vector<std::string> splitLines(std::string_view text) {
    std::vector<std::string> lines;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        lines.emplace_back(text.substr(pos, nl - pos));
        pos = nl + 1;
    }
    return lines;
}

std::string lineDiff(std::string_view expected, std::string_view actual) {
    const auto a = splitLines(expected), b = splitLines(actual);
    const size_t n = a.size(), m = b.size();
    if (n * m > 16'000'000)
        return "(texts too large to diff: " + std::to_string(n) + " vs " + std::to_string(m) +
               " lines)\n";
    // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
    std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;)
            at(i, j) = a[i] == b[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    std::vector<std::pair<char, std::string>> script;
    size_t i = 0, j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && a[i] == b[j])
            script.emplace_back(' ', a[i++]), ++j;
        else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1)))
            script.emplace_back('-', a[i++]);
        else
            script.emplace_back('+', b[j++]);
    }
    constexpr size_t kContext = 2;
    std::vector<bool> show(script.size(), false);
    bool any = false;
    for (size_t k = 0; k < script.size(); ++k) {
        if (script[k].first == ' ') continue;
        any = true;
        for (size_t c = k >= kContext ? k - kContext : 0;
             c <= std::min(script.size() - 1, k + kContext); ++c)
            show[c] = true;
    }
    if (!any) return {};
    std::ostringstream out;
    out << "--- expected\n+++ actual\n";
    bool gap = true;
    for (size_t k = 0; k < script.size(); ++k) {
        if (!show[k]) {
            gap = true;
            continue;
        }
        if (gap) out << "@@ line " << k + 1 << " @@\n";
        gap = false;
        out << script[k].first << script[k].second << "\n";
    }
    return out.str();
}

std::string readFile(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void writeFile(const fs::path& file, std::string_view data) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

uint64_t hashFile(const fs::path& file) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : readFile(file)) h = (h ^ c) * 1099511628211ull;
    return h;
}

std::vector<std::string> listDir(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

CliResult runCli(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    CliResult r;
    r.rc = ls::cli::run(args, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

CsvTable runSummary(const TraceCase& c, const std::string& report, std::string& raw) {
    const auto r = runCli({"summary", c.path.string(), "--report", report});
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.err, "");
    std::string error;
    auto table = parseCsv(r.out, &error);
    EXPECT_EQ(error, "") << "our CSV does not parse";
    raw = r.out;
    return table;
}

} // namespace ls::test
