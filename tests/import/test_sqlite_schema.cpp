// The schema read without SQLite (core/import/sqlite/sqlite_schema.h) says what SQLite says: the
// same tables with the same root pages, and for every table the columns PRAGMA table_xinfo lists,
// in order, with their declared type, default and primary-key position, on every real SQLite file
// (Nsight Systems exports and nvprof databases) and on statements made to hit the grammar's
// corners. Statements it cannot follow give no columns instead of wrong ones. The first and last
// rowid read from the pages equal SQLite's min(rowid) and max(rowid).
#include "core/import/sqlite/sqlite_db.h"
#include "core/import/sqlite/sqlite_pages.h"
#include "core/import/sqlite/sqlite_schema.h"
#include "core/import/sqlite/sqlite_source.h"
#include "tests/support/test_support.h"

#include <fstream>
#include <gtest/gtest.h>

namespace {

using namespace ls::test;

std::vector<fs::path> realSqliteFiles() {
    std::vector<fs::path> files = {sampleTrace()};
    if (const fs::path f = sourceDir() / "tests/data/ranks/fsdp_nsys_bf16_h100x2_rank0.sqlite";
        fs::is_regular_file(f))
        files.push_back(f);
    for (const fs::path& dir : {sharedDir() / "traces", sharedDir() / "traces/third-party"}) {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(dir, ec)) {
            const std::string name = e.path().filename().string();
            if (name.ends_with(".sqlite") || name.ends_with(".nvvp") ||
                name.ends_with(".nvprof.sql"))
                files.push_back(e.path());
        }
    }
    return files;
}

// Every table of the file through both readers; returns how many tables were compared.
size_t expectSchemaAsSqliteSeesIt(const fs::path& file, bool allParse) {
    const ls::Database db(file.string());
    const auto pages = ls::SqlitePages::open(file.string());
    if (!pages) {
        ADD_FAILURE() << file << ": the page reader does not open it";
        return 0;
    }
    const auto schema = ls::SqliteSchema::fromPages(pages);
    EXPECT_EQ(schema.tables(), db.tables()) << file;
    size_t compared = 0;
    for (const auto& table : db.tables()) {
        const auto* entry = schema.find(table);
        if (!entry) continue;
        ls::Statement master(
            db.handle(), "SELECT rootpage, type FROM sqlite_master WHERE name = '" + table + "'");
        EXPECT_TRUE(master.step()) << table;
        EXPECT_EQ(entry->rootPage, master.int64(0)) << table;
        if (master.text(1) != "table") continue;
        const auto parsed = ls::parseCreateTable(entry->sql);
        if (!parsed) {
            EXPECT_FALSE(allParse) << file << ": " << table << " not parsed:\n" << entry->sql;
            continue;
        }
        ls::Statement info(
            db.handle(), "SELECT name, type, dflt_value IS NOT NULL, pk FROM pragma_table_xinfo('" +
                             table + "')");
        size_t i = 0;
        for (; info.step(); ++i) {
            if (i >= parsed->columns.size()) {
                ADD_FAILURE() << table << ": fewer columns than SQLite's";
                break;
            }
            const auto& c = parsed->columns[i];
            EXPECT_EQ(c.name, info.text(0)) << table;
            EXPECT_EQ(c.type, info.text(1)) << table << "." << c.name;
            EXPECT_EQ(c.hasDefault, info.int64(2) != 0) << table << "." << c.name;
            EXPECT_EQ(c.primaryKey, info.int64(3)) << table << "." << c.name;
        }
        EXPECT_EQ(i, parsed->columns.size()) << table << ": more columns than SQLite's";
        ++compared;
    }
    return compared;
}

TEST(SqliteSchema, EveryTableOfRealFilesHasTheColumnsSqliteLists) {
    size_t files = 0, tables = 0;
    for (const auto& file : realSqliteFiles()) {
        std::ifstream in(file, std::ios::binary);
        char magic[16] = {};
        in.read(magic, sizeof magic);
        if (std::string_view(magic, 15) != "SQLite format 3") continue;
        SCOPED_TRACE(file.string());
        tables += expectSchemaAsSqliteSeesIt(file, true);
        ++files;
    }
    EXPECT_GE(files, 1u);
    EXPECT_GE(tables, 20u * files) << "exports have dozens of tables each";
    if (files < 3) GTEST_SKIP() << "only the bundled sample compared: ../shared/traces absent";
}

TEST(SqliteSchema, CornersOfTheGrammarReadAsSqliteReadsThem) {
    TempDir dir;
    const fs::path file = dir / "t.sqlite";
    writeSqliteFixture(
        file,
        "CREATE TABLE plain (a INTEGER, b TEXT);"
        "CREATE TABLE \"quoted \"\"name\"\"\" ([weird col] INT, `back``tick` TEXT, 'single' BLOB);"
        "CREATE TABLE IF NOT EXISTS main.qualified (x INTEGER PRIMARY KEY, y UNSIGNED BIG INT);"
        "CREATE TABLE comments ( -- a line comment, with (parentheses), and 'quotes\n"
        "  /* a block, comment */ a INTEGER /* inline */ NOT NULL, -- another\n"
        "  b VARCHAR( 10 , 2 ) DEFAULT ('x,y') CHECK (b <> ')')\n"
        ");"
        "CREATE TABLE tablekey (a TEXT, b INTEGER, c INTEGER, PRIMARY KEY (c, a));"
        "CREATE TABLE aliasdesc (id INTEGER, v TEXT, CONSTRAINT k PRIMARY KEY (id DESC));"
        "CREATE TABLE coldesc (id INTEGER PRIMARY KEY DESC, v TEXT);"
        "CREATE TABLE notype (a, b DEFAULT 3, c CONSTRAINT named NOT NULL);"
        "CREATE TABLE norowid (k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID;"
        "CREATE TABLE strict_t (a INTEGER, b TEXT) STRICT;"
        "CREATE TABLE refs (a INTEGER REFERENCES plain(a) ON DELETE CASCADE, b INTEGER UNIQUE "
        "COLLATE NOCASE);"
        "CREATE TABLE gen (a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2) VIRTUAL);"
        "CREATE TABLE selected AS SELECT a, b FROM plain;"
        "CREATE VIEW v AS SELECT a FROM plain;"
        "CREATE INDEX i ON plain (a);");
    expectSchemaAsSqliteSeesIt(file, false);

    const auto schema = ls::SqliteSchema::fromPages(ls::SqlitePages::open(file.string()));
    const auto parsed = [&](const char* table) {
        return ls::parseCreateTable(schema.find(table)->sql);
    };
    for (const char* table : {"plain", "quoted \"name\"", "qualified", "comments", "tablekey",
                              "aliasdesc", "coldesc", "notype", "norowid", "strict_t", "refs"})
        EXPECT_TRUE(parsed(table)) << table << " must parse";
    EXPECT_FALSE(parsed("gen")) << "generated columns are not stored as listed";
    EXPECT_TRUE(parsed("selected"))
        << "SQLite stores CREATE TABLE … AS SELECT with its columns listed";
    EXPECT_FALSE(ls::parseCreateTable("CREATE TABLE s AS SELECT 1 AS a"));
    EXPECT_FALSE(ls::parseCreateTable("CREATE VIRTUAL TABLE f USING fts5(a)"));
    EXPECT_FALSE(ls::parseCreateTable("CREATE TABLE t (a INTEGER, \"unterminated TEXT)"));
    EXPECT_FALSE(ls::parseCreateTable("CREATE TABLE t (a INTEGER"));
    EXPECT_FALSE(ls::parseCreateTable("CREATE TABLE t (a INTEGER) WITHOUT"));
    EXPECT_EQ(parsed("qualified")->rowidAlias(), 0);
    EXPECT_EQ(parsed("aliasdesc")->rowidAlias(), 0)
        << "a table-level PRIMARY KEY (id DESC) is a rowid alias";
    EXPECT_EQ(parsed("coldesc")->rowidAlias(), -1)
        << "a column-level INTEGER PRIMARY KEY DESC is not";
    EXPECT_EQ(parsed("tablekey")->rowidAlias(), -1) << "a key of two columns is not";
    EXPECT_EQ(parsed("plain")->rowidAlias(), -1);
    EXPECT_TRUE(parsed("norowid")->withoutRowid);
    EXPECT_EQ(schema.find("i")->type, "index");
    EXPECT_FALSE(schema.tables().count("i"));
    EXPECT_TRUE(schema.tables().count("v"));

    // What the loader reads of them equals SQLite's rows, the rowid alias included.
    const ls::SqliteSource source(file.string());
    const ls::Database db(file.string());
    ASSERT_TRUE(source.pages());
    EXPECT_EQ(source.layout("aliasdesc", {"id", "v"})->fields,
              (std::vector<int>{ls::TableLayout::kRowid, 1}));
    EXPECT_EQ(source.layout("coldesc", {"id", "v"})->fields, (std::vector<int>{0, 1}));
    EXPECT_FALSE(source.layout("comments", {"b"})) << "a column with a default";
    EXPECT_FALSE(source.layout("gen", {"a"}));
    EXPECT_EQ(source.columns("selected"), db.columns("selected"));
}

TEST(SqliteSchema, RowidRangeFromThePagesEqualsSqlites) {
    TempDir dir;
    const fs::path file = dir / "t.sqlite";
    std::string sql =
        "PRAGMA page_size = 512; CREATE TABLE empty (a INTEGER); CREATE TABLE one (a INTEGER);"
        "CREATE TABLE many (a INTEGER, b TEXT); CREATE TABLE trimmed (a INTEGER); INSERT INTO "
        "one(rowid, a) VALUES (-42, 1); BEGIN;";
    for (int i = 0; i < 5000; ++i)
        sql += "INSERT INTO many(rowid, a, b) VALUES (" + std::to_string(i * 3 + 7) + ", " +
               std::to_string(i) + ", 'text');";
    for (int i = 0; i < 3000; ++i) sql += "INSERT INTO trimmed VALUES (" + std::to_string(i) + ");";
    sql += "COMMIT; DELETE FROM trimmed WHERE rowid > 1000; DELETE FROM trimmed WHERE rowid < 500;";
    writeSqliteFixture(file, sql);
    std::vector<fs::path> files = {file, sampleTrace()};
    if (fs::exists(sharedDir() / "traces/ddp_bf16_h200x2_rank0.sqlite"))
        files.push_back(sharedDir() / "traces/ddp_bf16_h200x2_rank0.sqlite");
    for (const auto& f : files) {
        const ls::Database db(f.string());
        const ls::SqliteSource source(f.string());
        ASSERT_TRUE(source.pages()) << f;
        for (const auto& table : db.tables()) {
            if (source.columns(table).empty()) continue;
            EXPECT_EQ(source.rowidRange(table), db.rowidRange(table)) << f << ": " << table;
            EXPECT_EQ(source.rowCount(table),
                      static_cast<uint64_t>(
                          db.scalar("SELECT count(*) FROM \"" + table + "\"").value_or(-1)))
                << table;
        }
    }
    const ls::SqliteSource source(file.string());
    EXPECT_EQ(source.rowidRange("empty"), std::nullopt);
    EXPECT_EQ(source.rowidRange("one"), std::make_pair(int64_t{-42}, int64_t{-42}));
    EXPECT_EQ(source.rowidRange("trimmed"), std::make_pair(int64_t{500}, int64_t{1000}));
}

} // namespace
