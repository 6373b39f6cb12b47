#include "core/import/sqlite/sqlite_db.h"

#include <sqlite3.h>

namespace ls {
namespace {

[[noreturn]] void fail(sqlite3* db, int rc, std::string_view context) {
    std::string msg(context);
    msg += ": ";
    msg += db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    throw SqliteError(rc, msg);
}

} // namespace

void configureSqliteOnce() {
    // Before SQLite initializes itself: without the allocator's statistics every malloc and free
    // skips a process-wide mutex, which the parallel table readers and the files of a session
    // otherwise contend on (sqlite3StatusUp and futex waits in a 64-file session's profile).
    static const bool configured = [] {
        sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); // SQLITE_MISUSE if already initialized: fine
        return sqlite3_initialize() == SQLITE_OK;
    }();
    (void)configured;
}

std::string immutableUri(const std::string& path) {
    // "file://" + an absolute path keeps a path starting with "//" from reading as an authority.
    std::string uri = !path.empty() && path[0] == '/' ? "file://" : "file:";
    for (unsigned char c : path) {
        if (c == '%' || c == '?' || c == '#' || c < 0x20) {
            static const char* hex = "0123456789ABCDEF";
            uri += '%';
            uri += hex[c >> 4];
            uri += hex[c & 15];
        } else {
            uri += static_cast<char>(c);
        }
    }
    uri += "?immutable=1";
    return uri;
}

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db) {
    const int rc =
        sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
    if (rc != SQLITE_OK) fail(db, rc, "prepare");
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::bind(int index, int64_t value) {
    const int rc = sqlite3_bind_int64(stmt_, index, value);
    if (rc != SQLITE_OK) fail(db_, rc, "bind");
}

bool Statement::step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, rc, "read");
}

void Statement::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

bool Statement::isNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
int64_t Statement::int64(int col) const { return sqlite3_column_int64(stmt_, col); }
double Statement::real(int col) const { return sqlite3_column_double(stmt_, col); }
int Statement::columnCount() const { return sqlite3_column_count(stmt_); }

std::string_view Statement::blob(int col) const {
    const void* p = sqlite3_column_blob(stmt_, col);
    const int n = sqlite3_column_bytes(stmt_, col);
    return p ? std::string_view(static_cast<const char*>(p), static_cast<size_t>(n))
             : std::string_view();
}

std::string_view Statement::text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    if (!p) return {};
    return {p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col))};
}

Database::Database(const std::string& path) {
    configureSqliteOnce();
    const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
    const int rc = sqlite3_open_v2(immutableUri(path).c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
        sqlite3_close(db_);
        db_ = nullptr;
        throw SqliteError(rc, "open: " + msg);
    }
    sqlite3_extended_result_codes(db_, 1);
    // Defence in depth: even a crafted schema cannot run functions or write.
    sqlite3_db_config(db_, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    char* err = nullptr;
    if (sqlite3_exec(db_, "PRAGMA query_only=ON", nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "PRAGMA failed";
        sqlite3_free(err);
        sqlite3_close(db_);
        db_ = nullptr;
        throw SqliteError(SQLITE_ERROR, "open: " + msg);
    }
}

Database::~Database() { sqlite3_close(db_); }

std::set<std::string> Database::tables() const {
    std::set<std::string> out;
    Statement st(db_, "SELECT name FROM sqlite_master WHERE type IN ('table','view')");
    while (st.step()) out.emplace(st.text(0));
    return out;
}

bool Database::hasTable(std::string_view table) const {
    return tables().count(std::string(table)) > 0;
}

std::set<std::string> Database::columns(std::string_view table) const {
    std::set<std::string> out;
    Statement st(db_, "SELECT name FROM pragma_table_info('" + std::string(table) + "')");
    while (st.step()) out.emplace(st.text(0));
    return out;
}

std::optional<std::pair<int64_t, int64_t>> Database::rowidRange(std::string_view table) const {
    // Two queries: SQLite answers a lone min() or max() of the rowid from the b-tree's edge,
    // but both in one SELECT scan the whole table.
    std::string from = " FROM \"";
    from.append(table).append("\"");
    const auto lo = scalar("SELECT min(rowid)" + from);
    const auto hi = scalar("SELECT max(rowid)" + from);
    if (!lo || !hi) return std::nullopt;
    return std::make_pair(*lo, *hi);
}

std::optional<int64_t> Database::scalar(std::string_view sql) const {
    Statement st(db_, sql);
    if (!st.step() || st.isNull(0)) return std::nullopt;
    return st.int64(0);
}

} // namespace ls
