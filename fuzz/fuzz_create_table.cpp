// Fuzz target: the CREATE TABLE parser that lays out tables read straight from an export's pages
// (core/import/sqlite/sqlite_schema.h), differentially: whatever SQLite accepts and the parser
// reads, it reads with SQLite's columns, in SQLite's order, with SQLite's declared types, defaults
// and primary-key positions. A wrong column there would read another column's values.
#include "core/import/sqlite/sqlite_schema.h"
#include "fuzz/fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <sqlite3.h>
#include <string>
#include <vector>

namespace {

struct Column {
    std::string name, type;
    bool hasDefault;
    int pk;
};

std::string textAt(sqlite3_stmt* st, int col) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, col));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(st, col))) : std::string();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string sql(reinterpret_cast<const char*>(data), size);
    (void)ls::parseCreateTable(sql); // never crashes, whatever the text

    sqlite3* db = nullptr;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 0;
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK) {
        std::vector<std::pair<std::string, std::string>> tables; // name, stored statement
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(
            db, "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL", -1,
            &st, nullptr);
        while (st && sqlite3_step(st) == SQLITE_ROW)
            tables.emplace_back(textAt(st, 0), textAt(st, 1));
        sqlite3_finalize(st);
        for (const auto& [name, stored] : tables) {
            const auto parsed = ls::parseCreateTable(stored);
            if (!parsed) continue; // left to SQLite: allowed
            std::vector<Column> expected;
            sqlite3_prepare_v2(
                db,
                "SELECT name, type, dflt_value IS NOT NULL, pk, hidden FROM pragma_table_xinfo(?1)",
                -1, &st, nullptr);
            sqlite3_bind_text(st, 1, name.c_str(), -1, SQLITE_TRANSIENT);
            bool hidden = false;
            while (st && sqlite3_step(st) == SQLITE_ROW) {
                expected.push_back({textAt(st, 0), textAt(st, 1), sqlite3_column_int(st, 2) != 0,
                                    sqlite3_column_int(st, 3)});
                hidden |= sqlite3_column_int(st, 4) != 0;
            }
            sqlite3_finalize(st);
            FUZZ_CHECK(!hidden); // generated columns must not parse
            FUZZ_CHECK(parsed->columns.size() == expected.size());
            for (size_t i = 0; i < expected.size(); ++i) {
                FUZZ_CHECK(parsed->columns[i].name == expected[i].name);
                FUZZ_CHECK(parsed->columns[i].type == expected[i].type);
                FUZZ_CHECK(parsed->columns[i].hasDefault == expected[i].hasDefault);
                FUZZ_CHECK(parsed->columns[i].primaryKey == expected[i].pk);
            }
        }
    }
    sqlite3_close(db);
    return 0;
}
