// Corrupted traces (issue 14): flipped bytes, zeroed and random pages, truncations, broken
// header fields and broken schema text, made at test time from real exports (the bundled sample,
// and ../shared's pair_gpt1layer when present) with fixed seeds; nothing corrupted is committed.
// Every variant must give a clean one-line error of an expected kind, or a load that counts what
// it skipped in its report and whose views and reports build; never a crash (the dev preset runs
// this under ASan + UBSan) or a hang (a watchdog per load). The CLI answers 0 or 3 with one
// `error:` line, and nothing is ever written into or beside a variant or the original file.
#include "core/load/load.h"
#include "core/reports/nvtx_kern_summary.h"
#include "core/reports/nvtx_summary.h"
#include "core/reports/summary.h"
#include "core/views/fwd_bwd.h"
#include "core/views/kernel_table.h"
#include "core/views/layer_tree.h"
#include "tests/support/test_support.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sqlite3.h>
#include <tuple>

namespace {

using namespace ls::test;
using ls::LoadErrorKind;

constexpr auto kLoadWatchdog = std::chrono::seconds(30);

struct Source {
    std::string name;
    fs::path path;
    bool bundled;
    size_t scale; // random offsets per page region: the bigger source gets fewer variants
};
void PrintTo(const Source& s, std::ostream* os) { *os << s.name; }

std::vector<Source> sources() {
    return {
        {"sample", sampleTrace(), true, 4},
        {"pair_gpt1layer", sharedDir() / "traces" / "pair_gpt1layer_fp16_h200.nsys.sqlite", false,
         2},
    };
}

// One corrupted copy of the source: a name and what to do to a copy of the original bytes (made
// only when the variant is written, so a big source is never held many times over).
struct Variant {
    std::string name;
    std::function<void(std::string&)> mutate;
};

uint32_t readBe(const std::string& b, size_t at, int n) {
    uint32_t v = 0;
    for (int i = 0; i < n; ++i)
        v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<size_t>(i)]);
    return v;
}
void writeBe(std::string& b, size_t at, int n, uint32_t v) {
    for (int i = n - 1; i >= 0; --i, v >>= 8)
        b[at + static_cast<size_t>(i)] = static_cast<char>(v & 0xFF);
}
// The header's page count (offset 28) is trusted only while the change counter (24) equals the
// version-valid-for number (92): break that so SQLite sizes the database from the file.
void untrustPageCount(std::string& b) { writeBe(b, 92, 4, readBe(b, 24, 4) + 1); }

// Makes the variants of one source. Pages are numbered from 1 as SQLite does.
class Mutator {
  public:
    explicit Mutator(const fs::path& file) : original_(readFile(file)) {
        pageSize_ = readBe(original_, 16, 2);
        if (pageSize_ == 1) pageSize_ = 65536;
        pages_ = original_.size() / pageSize_;
        // Root pages of the tables the loader reads most: corrupting their b-tree headers hits
        // the small-table readers and the parallel chunk readers.
        SqlReader db(file);
        db.each("SELECT name, rootpage FROM sqlite_master WHERE type = 'table' AND name IN "
                "('StringIds', "
                "'CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_RUNTIME', 'NVTX_EVENTS', "
                "'TARGET_INFO_GPU', "
                "'CUPTI_ACTIVITY_KIND_MEMCPY') ORDER BY name",
                [&](sqlite3_stmt* st) {
                    roots_.emplace_back(SqlReader::text(st, 0),
                                        static_cast<size_t>(SqlReader::int64(st, 1)));
                });
    }

    const std::string& original() const { return original_; }
    size_t pageSize() const { return pageSize_; }
    size_t pages() const { return pages_; }
    const std::vector<std::pair<std::string, size_t>>& roots() const { return roots_; }
    std::string bytesOf(const Variant& v) const {
        std::string b = original_;
        v.mutate(b);
        return b;
    }

    // Single bytes inverted in the header, at random offsets of the first, middle and last pages,
    // in the b-tree page headers of the main tables' root pages, and many at once.
    std::vector<Variant> flippedBytes(size_t scale) const {
        std::vector<Variant> v;
        std::mt19937 rng(1401);
        const auto flip = [&](std::string name, size_t at) {
            v.push_back({std::move(name),
                         [at](std::string& b) { b[at] = static_cast<char>(b[at] ^ 0xFF); }});
        };
        for (size_t at : {0,  15, 16, 17, 18, 19, 20, 21, 23, 24, 28, 31,
                          32, 36, 40, 44, 47, 52, 56, 59, 64, 92, 96})
            flip("header byte " + std::to_string(at), at);
        const auto inPage = [&](const std::string& what, size_t page, size_t count) {
            for (size_t i = 0; i < count; ++i) {
                const size_t lo = page == 1 ? 100 : 0; // page 1 starts with the file header
                const size_t at = (page - 1) * pageSize_ + lo + rng() % (pageSize_ - lo);
                flip(what + " page " + std::to_string(page) + " byte " + std::to_string(at), at);
            }
        };
        for (size_t page = 1; page <= 4; ++page) inPage("first", page, scale);
        for (size_t page = pages_ / 2 - 1; page <= pages_ / 2 + 1; ++page)
            inPage("middle", page, scale);
        inPage("last", pages_, scale);
        // A table b-tree page header: type, first freeblock, cell count, cell content start,
        // fragmented bytes, right-most child pointer.
        for (const auto& [table, root] : roots_)
            for (size_t off : {0, 1, 3, 4, 5, 7, 8, 11})
                flip(table + " root page " + std::to_string(root) + " header +" +
                         std::to_string(off),
                     (root - 1) * pageSize_ + (root == 1 ? 100 : 0) + off);
        for (unsigned seed = 7000; seed < 7000 + 2 * scale; ++seed)
            v.push_back({"64 random flips, seed " + std::to_string(seed), [seed](std::string& b) {
                             std::mt19937 r(seed);
                             for (int i = 0; i < 64; ++i) {
                                 const size_t at = 100 + r() % (b.size() - 100);
                                 b[at] = static_cast<char>(b[at] ^ (1 + r() % 255));
                             }
                         }});
        return v;
    }

    // Whole pages zeroed or filled with random bytes: the first ones (schema, strings), the main
    // tables' root pages, the middle and the last page.
    std::vector<Variant> wholePages() const {
        std::set<size_t> chosen = {1, 2, 3, 5, pages_ / 3, pages_ / 2, pages_ - 1, pages_};
        for (const auto& [table, root] : roots_) chosen.insert(root);
        std::vector<Variant> v;
        const size_t ps = pageSize_;
        const auto randomFill = [](std::string& b, size_t from, size_t to, unsigned seed) {
            std::mt19937 r(seed);
            for (size_t i = from; i < to; ++i) b[i] = static_cast<char>(r() & 0xFF);
        };
        for (size_t page : chosen) {
            const size_t from = (page - 1) * ps;
            v.push_back({"zeroed page " + std::to_string(page), [from, ps](std::string& b) {
                             std::fill_n(b.begin() + static_cast<std::ptrdiff_t>(from), ps, '\0');
                         }});
            v.push_back({"random page " + std::to_string(page), [=](std::string& b) {
                             randomFill(b, from, from + ps, 2024 + static_cast<unsigned>(page));
                         }});
        }
        // Random bytes over the page but the file header kept: SQLite gets past the magic.
        v.push_back({"random page 1 after the header",
                     [=](std::string& b) { randomFill(b, 100, ps, 2023); }});
        return v;
    }

    // Cut at page boundaries and inside pages, three ways: header as it was (the page count then
    // says the file is short), page count made untrusted (SQLite meets the missing pages itself),
    // and page count rewritten to match (pointers into the missing pages).
    std::vector<Variant> truncations() const {
        std::set<size_t> at;
        for (size_t page : {1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 24, 32, 48, 64, 96, 128, 256, 512})
            if (page < pages_) at.insert(page * pageSize_);
        for (size_t page : {pages_ / 3, pages_ / 2, pages_ - 2, pages_ - 1})
            at.insert(page * pageSize_);
        for (size_t cut : {size_t(10), size_t(99), size_t(100), size_t(101), pageSize_ / 2,
                           pageSize_ + 100, 3 * pageSize_ + 2000, original_.size() / 2 + 1234,
                           original_.size() - pageSize_ / 2, original_.size() - 1})
            at.insert(cut);
        std::vector<Variant> v;
        const size_t ps = pageSize_;
        for (size_t cut : at) {
            const std::string where =
                std::to_string(cut) + (cut % pageSize_ ? " (mid-page)" : " (page boundary)");
            v.push_back({"truncated at " + where, [cut](std::string& b) { b.resize(cut); }});
            if (cut < 100) continue;
            v.push_back({"truncated at " + where + ", page count untrusted", [cut](std::string& b) {
                             b.resize(cut);
                             untrustPageCount(b);
                         }});
            v.push_back(
                {"truncated at " + where + ", page count rewritten", [cut, ps](std::string& b) {
                     b.resize(cut);
                     writeBe(b, 28, 4, static_cast<uint32_t>((cut + ps - 1) / ps));
                 }});
        }
        return v;
    }

    // Header fields set to wrong or absurd values, one at a time.
    std::vector<Variant> headerFields() const {
        std::vector<Variant> v;
        const auto set = [&](std::string name, size_t at, int n, uint32_t value) {
            v.push_back({std::move(name), [=](std::string& b) { writeBe(b, at, n, value); }});
        };
        for (uint32_t ps :
             {0u, 1u, 2u, 3u, 256u, 512u, 1024u, 2048u, 4095u, 8192u, 16384u, 32768u, 0xFFFFu})
            set("page size " + std::to_string(ps), 16, 2, ps);
        const auto p = static_cast<uint32_t>(pages_);
        for (uint32_t pc : {0u, 1u, 2u, p / 2, p - 1, p + 1, 2 * p, 0x7FFFFFFFu, 0xFFFFFFFFu})
            set("page count " + std::to_string(pc), 28, 4, pc);
        // Page count absurd and untrusted: SQLite sizes the database from the file instead.
        v.push_back({"page count 0xFFFFFFFF, untrusted", [](std::string& b) {
                         writeBe(b, 28, 4, 0xFFFFFFFFu);
                         untrustPageCount(b);
                     }});
        for (uint32_t b : {0u, 2u, 3u, 255u}) set("write version " + std::to_string(b), 18, 1, b);
        for (uint32_t b : {0u, 2u, 3u, 255u}) set("read version " + std::to_string(b), 19, 1, b);
        for (uint32_t b : {1u, 32u, 255u}) set("reserved bytes " + std::to_string(b), 20, 1, b);
        for (size_t at : {21, 22, 23})
            set("payload fraction byte " + std::to_string(at) + " = 0", at, 1, 0);
        for (uint32_t t : {1u, p + 5, 0xFFFFFFFFu})
            set("freelist trunk " + std::to_string(t), 32, 4, t);
        for (uint32_t n : {1u, 1000u, 0xFFFFFFFFu})
            set("freelist count " + std::to_string(n), 36, 4, n);
        set("schema cookie 0", 40, 4, 0);
        for (uint32_t f : {0u, 5u, 255u}) set("schema format " + std::to_string(f), 44, 4, f);
        set("largest root page (auto-vacuum) 3", 52, 4, 3);
        set("largest root page (auto-vacuum) 0xFFFFFFFF", 52, 4, 0xFFFFFFFFu);
        for (uint32_t e : {0u, 2u, 3u, 99u}) set("text encoding " + std::to_string(e), 56, 4, e);
        set("incremental vacuum 1", 64, 4, 1);
        set("version-valid-for 0", 92, 4, 0);
        return v;
    }

    // The schema text SQLite keeps in sqlite_master, broken inside a table's CREATE statement:
    // SQLite then refuses the whole schema, and its message quotes the statement from the broken
    // token on, line breaks included (found by random flips: 'T' of TABLE turned into a quote).
    std::vector<Variant> schemaText() const {
        std::vector<Variant> v;
        for (const std::string table :
             {"ENUM_NSYS_EVENT_TYPE", "StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "NVTX_EVENTS",
              "TARGET_INFO_GPU"}) {
            const size_t at = original_.find("CREATE TABLE " + table + " (");
            if (at == std::string::npos) continue;
            const size_t keyword = at + 7, paren = at + 13 + table.size() + 1;
            for (const auto& [what, offset, byte] :
                 {std::tuple<std::string, size_t, char>{"quote for the T of TABLE", keyword, '\''},
                  {"double quote for the T of TABLE", keyword, '"'},
                  {"'[' for the opening parenthesis", paren, '['},
                  {"NUL for the opening parenthesis", paren, '\0'}})
                v.push_back(
                    {table + ": " + what, [offset, byte](std::string& b) { b[offset] = byte; }});
        }
        return v;
    }

  private:
    std::string original_;
    size_t pageSize_ = 0, pages_ = 0;
    std::vector<std::pair<std::string, size_t>> roots_;
};

std::string kindName(LoadErrorKind k) {
    switch (k) {
    case LoadErrorKind::NotFound:
        return "NotFound";
    case LoadErrorKind::IsDirectory:
        return "IsDirectory";
    case LoadErrorKind::Unreadable:
        return "Unreadable";
    case LoadErrorKind::Empty:
        return "Empty";
    case LoadErrorKind::NotSqlite:
        return "NotSqlite";
    case LoadErrorKind::Corrupt:
        return "Corrupt";
    case LoadErrorKind::NoGpuTables:
        return "NoGpuTables";
    case LoadErrorKind::UnsupportedFormat:
        return "UnsupportedFormat";
    case LoadErrorKind::Cancelled:
        return "Cancelled";
    case LoadErrorKind::NeedsConverter:
        return "NeedsConverter";
    case LoadErrorKind::ConverterFailed:
        return "ConverterFailed";
    }
    return "?";
}

struct Tally {
    size_t loaded = 0, withAnomalies = 0, errors = 0;
    std::map<std::string, size_t> byKind;
    double slowest = 0;
    std::string slowestName;
};

// Loads file in a thread; fails the test when it takes longer than the watchdog. A load still
// running after a cancel and another watchdog period would hang the suite: abort with its name.
ls::LoadResult loadWithWatchdog(const fs::path& file, const std::string& label, double& seconds) {
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    const auto t0 = std::chrono::steady_clock::now();
    auto future = std::async(std::launch::async, [file, cancel] {
        ls::LoadOptions options;
        options.threads = 2;
        options.cancel = cancel.get();
        return ls::loadTrace(file.string(), options);
    });
    if (future.wait_for(kLoadWatchdog) != std::future_status::ready) {
        ADD_FAILURE() << label << ": the load took more than " << kLoadWatchdog.count() << " s";
        *cancel = true;
        if (future.wait_for(kLoadWatchdog) != std::future_status::ready) {
            std::cerr << "FATAL: " << label << ": the load hangs even when cancelled (" << file
                      << ")" << std::endl;
            std::abort();
        }
    }
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return future.get();
}

// What views and reports do with a trace that loaded: none may crash on what a corrupted file
// let through (the GUI builds the same structures on its loader thread).
void exerciseLoadedTrace(const std::shared_ptr<const ls::Trace>& t, const std::string& label) {
    SCOPED_TRACE(label);
    const size_t n = t->kernels.size();
    EXPECT_EQ(t->kernels.end.size(), n);
    EXPECT_EQ(t->kernels.name.size(), n);
    EXPECT_EQ(t->kernelLinks.range.size(), n);
    EXPECT_EQ(t->kernelLinks.layer.size(), n);
    EXPECT_EQ(t->ranges.name.size(), t->ranges.size());
    EXPECT_LE(t->captureStart, t->captureEnd);
    for (size_t i = 0; i < n; ++i)
        ASSERT_LE(t->kernels.start[i], t->kernels.end[i]) << "kernel " << i;
    ls::KernelTable table(t);
    if (n) {
        std::vector<ls::KernelId> rows;
        for (size_t i = 0; i < n; ++i) rows.push_back(ls::KernelId(static_cast<uint32_t>(i)));
        table.sort(rows, ls::KernelField::Duration, true);
        (void)table.text(rows.front(), ls::KernelField::NvtxRange);
        (void)table.nvtxPath(rows.back());
    }
    const ls::LayerTree tree = ls::buildLayerTree(*t);
    EXPECT_GE(tree.size(), 1u);
    (void)ls::buildFwdBwdPairs(*t);
    uint64_t kernelsInSummary = 0;
    for (const auto& row :
         ls::kernelSummary(*t, ls::KernelGrouping::Name, ls::KernelNaming::Demangled))
        kernelsInSummary += row.stats.count;
    EXPECT_EQ(kernelsInSummary, n);
    (void)ls::layerSummary(*t);
    ls::nvtxKernelSummary(*t, [](const ls::NvtxKernRow&) {});
}

class CorruptedTraces : public ::testing::TestWithParam<Source> {
  protected:
    void SetUp() override {
        if (!GetParam().bundled) LS_REQUIRE_FILE(GetParam().path);
        sizeBefore_ = fs::file_size(GetParam().path);
        hashBefore_ = hashFile(GetParam().path);
    }
    void TearDown() override {
        if (!fs::exists(GetParam().path)) return;
        // The user's file is never written to, whatever we did with its copies.
        EXPECT_EQ(fs::file_size(GetParam().path), sizeBefore_);
        EXPECT_EQ(hashFile(GetParam().path), hashBefore_) << GetParam().path << " changed";
        for (const char* suffix : {"-journal", "-wal", "-shm"})
            EXPECT_FALSE(fs::exists(GetParam().path.string() + suffix))
                << suffix << " beside " << GetParam().path;
    }

    // Writes each variant, loads it, checks the outcome and that nothing was written; runs the
    // CLI on every cliEvery-th variant. Prints how many loaded and how many gave which error.
    void run(const Mutator& m, const std::string& family, const std::vector<Variant>& variants,
             size_t cliEvery) {
        ASSERT_FALSE(variants.empty());
        TempDir dir;
        Tally tally;
        size_t cliRuns = 0;
        for (size_t i = 0; i < variants.size(); ++i) {
            const Variant& v = variants[i];
            const std::string label = GetParam().name + ": " + family + ": " + v.name;
            SCOPED_TRACE(label);
            const fs::path file = dir / ("variant-" + std::to_string(i) + ".sqlite");
            const std::string bytes = m.bytesOf(v);
            writeFile(file, bytes);
            double seconds = 0;
            const ls::LoadResult r = loadWithWatchdog(file, label, seconds);
            if (seconds > tally.slowest) tally.slowest = seconds, tally.slowestName = v.name;
            if (r.ok()) {
                EXPECT_FALSE(r.error.has_value());
                ++tally.loaded;
                tally.withAnomalies += !r.trace->report.empty();
                exerciseLoadedTrace(r.trace, label);
            } else {
                ++tally.errors;
                ASSERT_TRUE(r.error.has_value()) << "no trace and no error";
                const LoadErrorKind k = r.error->kind;
                ++tally.byKind[kindName(k)];
                EXPECT_TRUE(k == LoadErrorKind::NotSqlite || k == LoadErrorKind::Corrupt ||
                            k == LoadErrorKind::Unreadable || k == LoadErrorKind::NoGpuTables ||
                            k == LoadErrorKind::Empty)
                    << "kind " << kindName(k) << ": " << r.error->reason;
                EXPECT_FALSE(r.error->reason.empty());
                EXPECT_EQ(r.error->reason.find('\n'), std::string::npos)
                    << "one line: " << r.error->reason;
                EXPECT_EQ(r.error->reason.find('\r'), std::string::npos)
                    << "one line: " << r.error->reason;
            }
            if (i % cliEvery == 0) {
                ++cliRuns;
                checkCli({"info", file.string()}, file);
                if (i % (3 * cliEvery) == 0) {
                    checkCli({"kernels", file.string()}, file);
                    checkCli({"summary", file.string(), "--report", "nvtx_kern_sum"}, file);
                }
            }
            // Opened read-only and immutable: the variant is unchanged and nothing appeared beside
            // it.
            EXPECT_TRUE(readFile(file) == bytes) << "the load wrote into the file";
            EXPECT_EQ(listDir(dir.path()), std::vector<std::string>{file.filename().string()})
                << "files appeared beside it";
            fs::remove(file);
        }
        std::string kinds;
        for (const auto& [kind, count] : tally.byKind)
            kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(count);
        std::cout << "[ corrupted ] " << GetParam().name << ", " << family << ": "
                  << variants.size() << " variants: " << tally.loaded << " loaded ("
                  << tally.withAnomalies << " with anomalies in the report), " << tally.errors
                  << " errors (" << (kinds.empty() ? "none" : kinds) << "); " << cliRuns
                  << " through the CLI; slowest load " << tally.slowest << " s ("
                  << tally.slowestName << ")" << std::endl;
        RecordProperty("variants", static_cast<int>(variants.size()));
        RecordProperty("loaded", static_cast<int>(tally.loaded));
        RecordProperty("errors", static_cast<int>(tally.errors));
    }

    void checkCli(const std::vector<std::string>& args, const fs::path& file) {
        SCOPED_TRACE(args[0]);
        const CliResult r = runCli(args);
        ASSERT_TRUE(r.rc == 0 || r.rc == 3) << "exit status " << r.rc << "\nstderr:\n" << r.err;
        if (r.rc == 0) {
            EXPECT_FALSE(r.out.empty());
            return;
        }
        EXPECT_EQ(r.out, "");
        const auto lines = splitLines(r.err);
        ASSERT_EQ(lines.size(), 1u) << "stderr:\n" << r.err;
        EXPECT_EQ(r.err.back(), '\n');
        EXPECT_EQ(lines[0].rfind("error: " + file.string() + ": ", 0), 0u) << lines[0];
        EXPECT_GT(lines[0].size(), ("error: " + file.string() + ": ").size())
            << "a reason after the file name";
    }

    uintmax_t sizeBefore_ = 0;
    uint64_t hashBefore_ = 0;
};

TEST_P(CorruptedTraces, FlippedBytes) {
    const Mutator m(GetParam().path);
    ASSERT_GE(m.pages(), 8u);
    ASSERT_GE(m.roots().size(), 4u) << "the source lacks the main tables";
    run(m, "flipped bytes", m.flippedBytes(GetParam().scale), 6);
}

TEST_P(CorruptedTraces, ZeroedAndRandomPages) {
    const Mutator m(GetParam().path);
    run(m, "zeroed and random pages", m.wholePages(), 3);
}

TEST_P(CorruptedTraces, Truncations) {
    const Mutator m(GetParam().path);
    run(m, "truncations", m.truncations(), 4);
}

TEST_P(CorruptedTraces, HeaderFields) {
    const Mutator m(GetParam().path);
    run(m, "header fields", m.headerFields(), 3);
}

TEST_P(CorruptedTraces, SchemaText) {
    const Mutator m(GetParam().path);
    const auto variants = m.schemaText();
    ASSERT_GE(variants.size(), 12u) << "CREATE TABLE statements not found in the file";
    run(m, "schema text", variants, 2);
}

// The mutations are not vacuous: the unmodified copy loads cleanly, and the kinds of damage SQLite
// must notice do give errors (so a loader that ignored them would fail the counts above).
TEST_P(CorruptedTraces, UnmodifiedCopyLoadsAndObviousDamageIsAnError) {
    const Mutator m(GetParam().path);
    TempDir dir;
    writeFile(dir / "copy.sqlite", m.original());
    double seconds = 0;
    const auto clean = loadWithWatchdog(dir / "copy.sqlite", "unmodified copy", seconds);
    ASSERT_TRUE(clean.ok()) << clean.error->reason;
    EXPECT_GT(clean.trace->kernels.size(), 0u);
    // The original itself, in place (TearDown then checks it was not written to).
    const auto original = loadWithWatchdog(GetParam().path, "original", seconds);
    ASSERT_TRUE(original.ok()) << original.error->reason;
    EXPECT_EQ(original.trace->kernels.size(), clean.trace->kernels.size());
    EXPECT_EQ(original.trace->apiCalls.size(), clean.trace->apiCalls.size());

    struct Expected {
        std::string what;
        std::string bytes;
        LoadErrorKind kind;
    };
    std::string noMagic = m.original();
    noMagic[0] = 'X';
    std::string zeroFirstPage = m.original();
    std::fill_n(zeroFirstPage.begin(), m.pageSize(), '\0');
    std::string shortByOnePage = m.original().substr(0, m.original().size() - m.pageSize());
    std::string badPageSize = m.original();
    writeBe(badPageSize, 16, 2, 3);
    for (const Expected& e :
         {Expected{"magic", noMagic, LoadErrorKind::NotSqlite},
          Expected{"zeroed first page", zeroFirstPage, LoadErrorKind::NotSqlite},
          Expected{"short by one page", shortByOnePage, LoadErrorKind::Corrupt},
          Expected{"page size 3", badPageSize, LoadErrorKind::NotSqlite}}) {
        writeFile(dir / "bad.sqlite", e.bytes);
        const auto r = loadWithWatchdog(dir / "bad.sqlite", e.what, seconds);
        ASSERT_FALSE(r.ok()) << e.what;
        EXPECT_EQ(kindName(r.error->kind), kindName(e.kind)) << e.what << ": " << r.error->reason;
    }
}

INSTANTIATE_TEST_SUITE_P(Sources, CorruptedTraces, ::testing::ValuesIn(sources()),
                         [](const auto& p) { return p.param.name; });

} // namespace
