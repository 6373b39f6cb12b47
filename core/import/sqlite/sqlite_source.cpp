#include "core/import/sqlite/sqlite_source.h"

#include "core/model/string_memo.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace ls {

namespace {

// LAYERSCOPE_SQLITE_READ=1 reads everything through SQLite, to compare.
bool pagesAllowed() {
    const char* viaSqlite = std::getenv("LAYERSCOPE_SQLITE_READ");
    return !(viaSqlite && *viaSqlite && std::string_view(viaSqlite) != "0");
}

} // namespace

SqliteSource::SqliteSource(std::string path)
    : path_(std::move(path)), pages_(pagesAllowed() ? SqlitePages::open(path_) : nullptr) {
    if (pages_) {
        try {
            schema_ = SqliteSchema::fromPages(pages_);
            return;
        } catch (const SqliteError&) {
            pages_.reset(); // not trusted: SQLite reads it, or says what is wrong with it
        }
    }
    schema_ = SqliteSchema::fromDatabase(database());
}

const Database& SqliteSource::database() const {
    if (!db_) db_.emplace(path_);
    return *db_;
}

const ParsedTable* SqliteSource::parsed(std::string_view table) const {
    auto it = parsed_.find(table);
    if (it == parsed_.end()) {
        const auto* entry = schema_.find(table);
        // Exports of one Nsight Systems version share their statements: parsed once a process.
        static StringMemo<std::optional<ParsedTable>> memo(4096);
        it = parsed_
                 .emplace(std::string(table), entry && entry->type == "table"
                                                  ? memo.get(entry->sql, parseCreateTable)
                                                  : std::nullopt)
                 .first;
    }
    return it->second ? &*it->second : nullptr;
}

std::set<std::string> SqliteSource::columns(std::string_view table) const {
    if (const ParsedTable* p = parsed(table)) {
        std::set<std::string> names;
        for (const auto& c : p->columns) names.insert(c.name);
        return names;
    }
    return database().columns(table);
}

bool SqliteSource::hasColumn(std::string_view table, std::string_view column) const {
    if (const ParsedTable* p = parsed(table))
        return std::any_of(p->columns.begin(), p->columns.end(),
                           [&](const SchemaColumn& c) { return c.name == column; });
    return database().columns(table).count(std::string(column)) > 0;
}

std::optional<TableLayout> SqliteSource::layout(std::string_view table,
                                                const std::vector<std::string_view>& wanted) const {
    const ParsedTable* p = pages_ ? parsed(table) : nullptr;
    if (!p) return std::nullopt;
    return tableLayout(*schema_.find(table), *p, wanted);
}

uint32_t SqliteSource::rootPage(std::string_view table) const {
    const ParsedTable* p = pages_ ? parsed(table) : nullptr;
    if (!p || p->withoutRowid) return 0;
    const int64_t root = schema_.find(table)->rootPage;
    return root > 0 && root <= pages_->pageCount() ? static_cast<uint32_t>(root) : 0;
}

std::optional<std::pair<int64_t, int64_t>> SqliteSource::rowidRange(std::string_view table) const {
    if (const uint32_t root = rootPage(table)) return ls::rowidRange(pages_, root);
    return database().rowidRange(table);
}

uint64_t SqliteSource::rowCount(std::string_view table) const {
    if (const uint32_t root = rootPage(table)) {
        TableScan scan(pages_, TableLayout{root, {}});
        scan.range(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
        uint64_t n = 0;
        while (scan.stepKey()) ++n;
        return n;
    }
    return static_cast<uint64_t>(
        database().scalar("SELECT count(*) FROM \"" + std::string(table) + "\"").value_or(0));
}

TableRows::TableRows(const SqliteSource& source, std::string_view table,
                     const std::vector<std::string_view>& columns) {
    if (auto layout = source.layout(table, columns)) {
        scan_.emplace(source.pages(), std::move(*layout));
        scan_->range(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
        return;
    }
    const auto present = source.columns(table);
    std::string sql = "SELECT ";
    for (size_t i = 0; i < columns.size(); ++i) {
        if (i) sql += ", ";
        const bool has = columns[i] == "rowid" || present.count(std::string(columns[i]));
        sql += has ? "\"" + std::string(columns[i]) + "\"" : std::string("NULL");
    }
    sql += " FROM \"" + std::string(table) + "\"";
    statement_.emplace(source.database().handle(), sql);
}

} // namespace ls
