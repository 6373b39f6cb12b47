#pragma once
// A thin RAII layer over SQLite for reading exports: connections are always read-only and
// immutable (no journal, no WAL, no lock file), so the user's file and folder are never written.
#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace ls {

class SqliteError : public std::runtime_error {
  public:
    SqliteError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
    int code() const { return code_; }

  private:
    int code_;
};

class Statement {
  public:
    Statement(sqlite3* db, std::string_view sql);
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    void bind(int index, int64_t value);
    // Advances to the next row; false when done. Throws SqliteError on failure.
    bool step();
    void reset();

    bool isNull(int col) const;
    int64_t int64(int col) const;
    double real(int col) const;
    std::string_view text(int col) const;
    std::string_view blob(int col) const;
    int columnCount() const;

  private:
    sqlite3* db_;
    sqlite3_stmt* stmt_ = nullptr;
};

class Database {
  public:
    // Opens path read-only and immutable. Throws SqliteError.
    explicit Database(const std::string& path);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    sqlite3* handle() const { return db_; }
    bool hasTable(std::string_view table) const;
    std::set<std::string> tables() const;
    std::set<std::string> columns(std::string_view table) const;
    std::optional<std::pair<int64_t, int64_t>> rowidRange(std::string_view table) const;
    // Runs a query expected to return one integer (or nothing).
    std::optional<int64_t> scalar(std::string_view sql) const;

  private:
    sqlite3* db_ = nullptr;
};

// Process-wide SQLite settings, applied before its first use (every connection calls it).
void configureSqliteOnce();

// "file:" URI for path with immutable=1, percent-encoding the characters URIs reserve.
std::string immutableUri(const std::string& path);

} // namespace ls
