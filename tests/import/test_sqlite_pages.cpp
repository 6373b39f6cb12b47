// TableScan reads rows straight from an SQLite file's pages: every value it gives equals what
// SQLite's own SELECT gives for the same columns and rowid window, on real exports (every event
// table the loader reads) and on files made to hit each corner of the format (records spilling
// onto overflow pages, the smallest and largest page sizes, reserved bytes, an INTEGER PRIMARY
// KEY, columns added later, NULLs, reals and texts in integer columns). Layouts it does not
// handle are refused, and a damaged page throws instead of crashing or looping. Rows passed
// over unread (stepKey) leave the rows after them as they are.
#include "core/import/nsys/nsys_schema.h"
#include "core/import/sqlite/sqlite_db.h"
#include "core/import/sqlite/sqlite_pages.h"
#include "core/import/sqlite/sqlite_source.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <sqlite3.h>

namespace {

using namespace ls::test;
using ls::Database;
using ls::SqlitePages;
using ls::Statement;
using ls::TableLayout;
using ls::TableScan;

// Every row of `table` in [first, last], both ways, column by column.
void expectSameRows(const fs::path& file, std::string_view table,
                    const std::vector<std::string_view>& columns, int64_t first, int64_t last) {
    const Database db(file.string());
    const auto layout = ls::SqliteSource(file.string()).layout(table, columns);
    ASSERT_TRUE(layout) << table;
    auto pages = SqlitePages::open(file.string());
    ASSERT_TRUE(pages);
    std::string sql = "SELECT ";
    const auto present = db.columns(table);
    for (size_t i = 0; i < columns.size(); ++i) {
        const std::string c(columns[i]);
        sql += (i ? ", " : "") +
               (c == "rowid" || present.count(c) ? "\"" + c + "\"" : std::string("NULL"));
    }
    sql += " FROM \"" + std::string(table) + "\" WHERE rowid BETWEEN ?1 AND ?2";
    Statement st(db.handle(), sql);
    st.bind(1, first);
    st.bind(2, last);
    TableScan scan(pages, *layout);
    scan.range(first, last);
    size_t rows = 0;
    const auto rowidColumn = std::find(columns.begin(), columns.end(), "rowid") - columns.begin();
    while (st.step()) {
        // Rows are read by step(), passed unread by stepKey(), or read by stepKey() then load():
        // a row passed over (one spilling onto overflow pages too) must not change the next.
        const size_t mode = rows % 3;
        ASSERT_TRUE(mode == 0 ? scan.step() : scan.stepKey())
            << table << ": ends early at row " << rows;
        if (rowidColumn < static_cast<std::ptrdiff_t>(columns.size())) {
            ASSERT_EQ(scan.rowid(), st.int64(static_cast<int>(rowidColumn)));
        }
        if (mode == 1) {
            ++rows;
            continue;
        }
        if (mode == 2) scan.load();
        for (int c = 0; c < static_cast<int>(columns.size()); ++c) {
            ASSERT_EQ(scan.isNull(c), st.isNull(c))
                << table << "." << columns[c] << " row " << rows;
            ASSERT_EQ(scan.int64(c), st.int64(c)) << table << "." << columns[c] << " row " << rows;
            ASSERT_EQ(scan.text(c), st.text(c)) << table << "." << columns[c] << " row " << rows;
        }
        ++rows;
    }
    EXPECT_FALSE(scan.step()) << table << ": rows past SQLite's";
}

void expectWholeTableSame(const fs::path& file, std::string_view table,
                          const std::vector<std::string_view>& columns) {
    const Database db(file.string());
    const auto range = db.rowidRange(table);
    if (!range) return; // an empty table
    expectSameRows(file, table, columns, range->first, range->second);
    // Windows that start and end inside leaves, as the loader's chunks do.
    const int64_t span = range->second - range->first;
    expectSameRows(file, table, columns, range->first + span / 3, range->first + 2 * span / 3);
    expectSameRows(file, table, columns, range->second, range->second);
    expectSameRows(file, table, columns, range->second + 1, range->second + 100);
}

TEST(SqlitePages, EveryEventTableOfRealExportsReadsAsSqliteReadsIt) {
    std::vector<fs::path> files = {
        sampleTrace(), sourceDir() / "tests/data/ranks/fsdp_nsys_bf16_h100x2_rank0.sqlite"};
    for (const char* shared :
         {"traces/ddp_bf16_h200x2_rank0.sqlite", "traces/gpt2_2layer_bf16_b8_h200.sqlite",
          "traces/pair_gpt1layer_fp16_h200.nsys.sqlite",
          "traces/third-party/cloverleaf_perlmutter.nsys.sqlite",
          "traces/third-party/saxpy_mpi_perlmutter.nsys.sqlite"})
        if (fs::exists(sharedDir() / shared)) files.push_back(sharedDir() / shared);
    for (const auto& file : files) {
        if (!fs::exists(file)) continue;
        SCOPED_TRACE(file.string());
        const Database db(file.string());
        for (const auto& spec : ls::nsysEventTables())
            if (db.hasTable(spec.table)) expectWholeTableSame(file, spec.table, spec.columns);
    }
}

struct Corner {
    const char* name;
    int pageSize;
    int reserved; // bytes at each page's end that SQLite leaves alone
};

class SqlitePagesLayouts : public ::testing::TestWithParam<Corner> {};

// Long texts spill onto overflow pages (chains of them on small pages); numbers take every
// integer serial type; a column added later is missing from the older rows' records.
TEST_P(SqlitePagesLayouts, ReadAsSqliteReadsThem) {
    const Corner corner = GetParam();
    TempDir dir;
    const fs::path file = dir / "t.sqlite";
    {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(file.string().c_str(), &db), SQLITE_OK);
        const auto exec = [&](const std::string& sql) {
            ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
                << sql << ": " << sqlite3_errmsg(db);
        };
        exec("PRAGMA page_size = " + std::to_string(corner.pageSize));
        if (corner.reserved) {
            int reserved = corner.reserved;
            ASSERT_EQ(sqlite3_file_control(db, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserved),
                      SQLITE_OK);
        }
        exec("CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c INTEGER)");
        exec("CREATE TABLE other (x INTEGER, y TEXT)"); // interleaves its pages with t's
        std::mt19937_64 rng(7);
        exec("BEGIN");
        for (int i = 1; i <= 3000; ++i) {
            const int64_t magnitude = int64_t(1) << (rng() % 63);
            const int64_t a = static_cast<int64_t>(rng() % static_cast<uint64_t>(magnitude)) *
                              (rng() % 2 ? 1 : -1);
            const size_t len = rng() % 10 == 0 ? 1000 + rng() % 70000 : rng() % 200;
            std::string text(len, 'x');
            for (char& ch : text) ch = static_cast<char>('a' + rng() % 26);
            std::string av = i % 97 == 0   ? "NULL"
                             : i % 89 == 0 ? "2.75"
                             : i % 83 == 0 ? "'42abc'"
                                           : std::to_string(a);
            exec("INSERT INTO t (id, a, b, c) VALUES (" + std::to_string(i * 3) + ", " + av + ", " +
                 (i % 50 == 0 ? "NULL" : "'" + text + "'") + ", " + std::to_string(i % 3) + ")");
            exec("INSERT INTO other VALUES (" + std::to_string(i) + ", '" + text.substr(0, 300) +
                 "')");
        }
        exec("COMMIT");
        exec("ALTER TABLE t ADD COLUMN d INTEGER");
        exec("INSERT INTO t (id, a, b, c, d) VALUES (100000, 1, 'late', 2, 77)");
        sqlite3_close(db);
    }
    const std::vector<std::string_view> columns = {"a", "b", "c", "d", "missing", "id", "rowid"};
    expectWholeTableSame(file, "t", columns);
    expectWholeTableSame(file, "other", {"x", "y", "rowid"});
}

INSTANTIATE_TEST_SUITE_P(Corners, SqlitePagesLayouts,
                         ::testing::Values(Corner{"Pages512", 512, 0}, Corner{"Pages4096", 4096, 0},
                                           Corner{"Pages65536", 65536, 0},
                                           Corner{"Reserved32", 1024, 32}),
                         [](const ::testing::TestParamInfo<Corner>& p) {
                             return std::string(p.param.name);
                         });

TEST(SqlitePages, LayoutsItDoesNotHandleAreLeftToSqlite) {
    TempDir dir;
    const fs::path file = dir / "t.sqlite";
    writeSqliteFixture(file, "CREATE TABLE plain (a INTEGER);"
                             "CREATE TABLE defaults (a INTEGER, b INTEGER DEFAULT 5);"
                             "CREATE TABLE reals (a INTEGER, r REAL);"
                             "CREATE TABLE keyed (k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID;"
                             "CREATE VIEW v AS SELECT a FROM plain;");
    const ls::SqliteSource db(file.string());
    EXPECT_TRUE(db.layout("plain", {"a", "rowid"}));
    EXPECT_TRUE(db.layout("defaults", {"a"})) << "the column with a default is not wanted";
    EXPECT_FALSE(db.layout("defaults", {"a", "b"}));
    EXPECT_FALSE(db.layout("reals", {"r"}));
    EXPECT_FALSE(db.layout("keyed", {"v"}));
    EXPECT_FALSE(db.layout("v", {"a"}));
    EXPECT_FALSE(db.layout("absent", {"a"}));

    // A UTF-16 file: SQLite converts its texts, the page reader does not open it.
    const fs::path utf16 = dir / "utf16.sqlite";
    writeSqliteFixture(
        utf16,
        "PRAGMA encoding = 'UTF-16le'; CREATE TABLE t (a TEXT); INSERT INTO t VALUES ('x');");
    EXPECT_FALSE(SqlitePages::open(utf16.string()));
    EXPECT_FALSE(SqlitePages::open((dir / "nothing.sqlite").string()));
}

// Every byte of a small file's table pages flipped in turn: the scan returns rows or throws
// SqliteError, never reads outside the file (the dev preset's sanitizers watch) or loops.
TEST(SqlitePages, DamagedPagesThrowAndNeverLoop) {
    TempDir dir;
    const fs::path file = dir / "t.sqlite";
    std::string sql = "PRAGMA page_size = 512; CREATE TABLE t (a INTEGER, b TEXT); BEGIN;";
    for (int i = 0; i < 400; ++i)
        sql += "INSERT INTO t VALUES (" + std::to_string(i * 7919) + ", '" +
               std::string(static_cast<size_t>(i % 7 == 0 ? 900 : 20), 'q') + "');";
    sql += "COMMIT;";
    writeSqliteFixture(file, sql);
    std::string bytes;
    {
        std::ifstream in(file, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const auto layout = ls::SqliteSource(file.string()).layout("t", {"a", "b", "rowid"});
    ASSERT_TRUE(layout);
    const fs::path damaged = dir / "damaged.sqlite";
    int threw = 0;
    for (size_t at = 512 * (layout->rootPage - 1); at < bytes.size(); at += 13) {
        std::string copy = bytes;
        copy[at] = static_cast<char>(copy[at] ^ 0x5a);
        {
            std::ofstream out(damaged, std::ios::binary | std::ios::trunc);
            out << copy;
        }
        auto pages = SqlitePages::open(damaged.string());
        ASSERT_TRUE(pages);
        try {
            TableScan scan(pages, *layout);
            scan.range(INT64_MIN, INT64_MAX);
            size_t rows = 0;
            while (scan.step()) {
                (void)scan.text(1);
                ASSERT_LT(++rows, 100000u) << "looping at byte " << at;
            }
        } catch (const ls::SqliteError& e) {
            EXPECT_EQ(e.code(), SQLITE_CORRUPT);
            ++threw;
        }
    }
    EXPECT_GT(threw, 10); // damage to the b-tree's structure is noticed
}

} // namespace
