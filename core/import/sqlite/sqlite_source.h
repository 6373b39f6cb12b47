#pragma once
// An SQLite trace file as the importers read it: its schema and small tables straight from the
// mapped pages (core/import/sqlite/sqlite_pages.h, core/import/sqlite/sqlite_schema.h) where the
// file allows, and through a read-only SQLite connection, opened on first need, for everything else
// (LAYERSCOPE_SQLITE_READ=1 in the environment: for everything).
#include "core/import/sqlite/sqlite_db.h"
#include "core/import/sqlite/sqlite_pages.h"
#include "core/import/sqlite/sqlite_schema.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ls {

class SqliteSource {
  public:
    // Throws SqliteError when the file is not a database SQLite can read.
    explicit SqliteSource(std::string path);

    const std::string& path() const { return path_; }
    const std::set<std::string>& tables() const { return schema_.tables(); }
    bool hasTable(std::string_view table) const {
        return schema_.tables().count(std::string(table)) > 0;
    }
    std::set<std::string> columns(std::string_view table) const;
    bool hasColumn(std::string_view table, std::string_view column) const;
    // Where the wanted columns are in the table's records; nullopt when it must be read through
    // SQLite.
    std::optional<TableLayout> layout(std::string_view table,
                                      const std::vector<std::string_view>& wanted) const;
    std::optional<std::pair<int64_t, int64_t>> rowidRange(std::string_view table) const;
    uint64_t rowCount(std::string_view table) const;

    // Null when the file's pages are not read directly (a layout this reader does not handle).
    const std::shared_ptr<const SqlitePages>& pages() const { return pages_; }
    // The connection, opened on first use (each open parses the whole schema).
    const Database& database() const;
    const Database* openedDatabase() const { return db_ ? &*db_ : nullptr; }

  private:
    uint32_t rootPage(std::string_view table) const; // 0 unless a rowid table read from the pages
    // The table's CREATE TABLE statement parsed once; null when it is not a table or not parsed.
    const ParsedTable* parsed(std::string_view table) const;

    std::string path_;
    std::shared_ptr<const SqlitePages> pages_;
    SqliteSchema schema_;
    mutable std::optional<Database> db_;
    mutable std::map<std::string, std::optional<ParsedTable>, std::less<>> parsed_;
};

// One table's rows in rowid order with the columns asked for (one the table lacks reads as NULL),
// from the pages where the table's layout allows, else through SQLite. Accessors as Statement's.
class TableRows {
  public:
    TableRows(const SqliteSource& source, std::string_view table,
              const std::vector<std::string_view>& columns);

    bool step() { return scan_ ? scan_->step() : statement_->step(); }
    bool isNull(int col) const { return scan_ ? scan_->isNull(col) : statement_->isNull(col); }
    int64_t int64(int col) const { return scan_ ? scan_->int64(col) : statement_->int64(col); }
    std::string_view text(int col) const {
        return scan_ ? scan_->text(col) : statement_->text(col);
    }

  private:
    std::optional<TableScan> scan_;
    std::optional<Statement> statement_;
};

} // namespace ls
