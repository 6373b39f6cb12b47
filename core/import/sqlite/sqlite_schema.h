#pragma once
// The tables of an SQLite file and their columns, read from its schema table (sqlite_master) and
// the CREATE TABLE statements in it, without SQLite: SQLite parses every statement of the schema
// on a connection's first query, which on a small Nsight Systems export (56 commented tables) is
// a third of the load. Here only the tables asked for are parsed. A statement this parser does not
// understand gives no columns, and the caller asks SQLite instead.
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

class Database;
class SqlitePages;

// One column as PRAGMA table_xinfo describes it.
struct SchemaColumn {
    std::string name;
    std::string type; // the declared type as written
    bool hasDefault = false;
    int primaryKey = 0; // 1-based position in the primary key, 0 when not in it
    bool descendingKey =
        false; // a column-level PRIMARY KEY DESC, which SQLite never makes a rowid alias
};

struct ParsedTable {
    std::vector<SchemaColumn> columns; // in record order
    bool withoutRowid = false;
    // The column that is the rowid (an INTEGER PRIMARY KEY, stored as NULL in records), or -1.
    int rowidAlias() const;
};

// The columns of a CREATE TABLE statement; nullopt for anything else (a view, a virtual table,
// CREATE TABLE … AS SELECT, generated columns) or a statement it cannot follow.
std::optional<ParsedTable> parseCreateTable(std::string_view sql);

// A row of sqlite_master.
struct SqliteSchemaEntry {
    std::string name, type, sql;
    int64_t rootPage = 0;
};

class SqliteSchema {
  public:
    using Entry = SqliteSchemaEntry;
    // The schema table read straight from the file's pages; throws SqliteError on a corrupt page.
    static SqliteSchema fromPages(const std::shared_ptr<const SqlitePages>& pages);
    // The same through SQLite.
    static SqliteSchema fromDatabase(const Database& db);

    // Tables and views, as Database::tables() lists them.
    const std::set<std::string>& tables() const { return tables_; }
    const Entry* find(std::string_view name) const;

  private:
    void index();

    std::vector<Entry> entries_; // sorted by name
    std::set<std::string> tables_;
};

} // namespace ls
