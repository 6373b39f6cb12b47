#pragma once
// Reads a rowid table's rows straight from the b-tree pages of a mapped, immutable SQLite file
// (the format of sqlite.org/fileformat2.html), without SQLite's virtual machine, its page cache
// or a copy of each page: on a million-kernel export those took half of the load's CPU time.
// Used where the file's layout is one it understands (UTF-8, a rowid table, no column defaults);
// everything else goes through SQLite. Every offset is checked: a corrupt page throws
// SqliteError(SQLITE_CORRUPT), as SQLite would.
#include "core/model/platform.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ls {

struct ParsedTable;
struct SqliteSchemaEntry;

class SqlitePages {
  public:
    // Null when the file cannot be mapped or its header is not one this reader handles.
    static std::shared_ptr<const SqlitePages> open(const std::string& path);

    uint32_t pageCount() const { return pageCount_; }
    uint32_t usableSize() const { return usable_; }
    // Page n (1-based) as bytes; throws on a page number outside the file.
    const uint8_t* page(uint32_t n) const;
    uint32_t pageSize() const { return pageSize_; }
    // Pages [first, first + count) are read: they leave this process's resident memory (a load
    // reads each page once; mapped pages would otherwise add the file's size to the peak). A no-op
    // on files under 32 MiB.
    void release(uint32_t first, uint32_t count) const;
    // True for a file small enough to stay mapped whole (release does nothing).
    bool keepsPagesMapped() const;

  private:
    std::unique_ptr<platform::MappedFile> file_;
    uint32_t pageSize_ = 0, usable_ = 0, pageCount_ = 0;
};

// Where a table's columns are in its records: the table's root page and, per wanted column, its
// position in a record (or the rowid, or absent: read as NULL).
struct TableLayout {
    static constexpr int kRowid = -1, kAbsent = -2;
    uint32_t rootPage = 0;
    std::vector<int> fields;
};
// The layout of `table` for the wanted columns ("rowid" names the rowid); nullopt when the table
// is not a plain rowid table of this file (a view, WITHOUT ROWID, a wanted column with a default
// that old rows would take, a statement the schema parser does not follow) and must be read
// through SQLite.
std::optional<TableLayout> tableLayout(const SqliteSchemaEntry& entry, const ParsedTable& parsed,
                                       const std::vector<std::string_view>& wanted);

// The first and last rowid of the table whose b-tree is rooted at `root`; nullopt when it is empty.
std::optional<std::pair<int64_t, int64_t>>
rowidRange(const std::shared_ptr<const SqlitePages>& pages, uint32_t root);

// A cursor over the rows of one table with rowids in [first, last], in rowid order. Its accessors
// mirror Statement's and convert values as sqlite3_column_* does.
class TableScan {
  public:
    TableScan(std::shared_ptr<const SqlitePages> pages, TableLayout layout);
    ~TableScan();
    TableScan(const TableScan&) = delete;
    TableScan& operator=(const TableScan&) = delete;

    void range(int64_t first, int64_t last); // then step() from the first row in it
    bool step();
    // step() without reading the row's values: only rowid() is set until load() reads them. For
    // scans that pass over many rows they do not want.
    bool stepKey();
    void load();

    bool isNull(int col) const {
        const int f = layout_.fields[static_cast<size_t>(col)];
        return f >= 0 ? values_[static_cast<size_t>(f)].type == 0 : f == TableLayout::kAbsent;
    }
    int64_t int64(int col) const {
        const int f = layout_.fields[static_cast<size_t>(col)];
        if (f < 0) return f == TableLayout::kRowid ? rowid_ : 0;
        const Value& v = values_[static_cast<size_t>(f)];
        return v.type == 7 || v.type >= 12 ? convertedInt(v) : v.i;
    }
    std::string_view text(int col) const; // valid until the next step()
    int64_t rowid() const { return rowid_; }

  private:
    struct Level {
        uint32_t page;
        uint32_t cell; // the child to visit next: cell's, the right-most one at the cell count,
                       // none past it
    };
    struct Value {
        uint64_t type = 0; // SQLite serial type; 0 NULL
        const uint8_t* data = nullptr;
        int64_t i = 0; // an integer type's value
    };
    static int64_t convertedInt(const Value& v); // sqlite3_column_int64 of a REAL, TEXT or BLOB
    void descend(uint32_t page, int64_t atLeast);
    bool nextLeafCell();
    void decodeRecord(const uint8_t* record, uint64_t size);
    void done(uint32_t page); // a leaf or overflow page read: released in runs of consecutive pages
    void flushReleased();
    const uint8_t* assemble(const uint8_t* local, uint64_t localSize, uint64_t payload,
                            const uint8_t* overflowAt);

    std::shared_ptr<const SqlitePages> pages_;
    TableLayout layout_;
    int maxField_ = -1;
    int64_t last_ = 0, rowid_ = 0;
    std::vector<Level> stack_;                 // interior pages above the current leaf
    std::vector<std::vector<uint8_t>> copies_; // copies_[i]: stack_[i]'s page
    uint32_t leaf_ = 0, leafCell_ = 0, leafCells_ = 0, leafPointers_ = 0;
    const uint8_t* leafPage_ = nullptr;
    const uint8_t* cell_ = nullptr; // the current row's payload, after its rowid (stepKey)
    uint64_t payload_ = 0;
    uint64_t visited_ = 0; // pages entered since range(): more than the file has means a loop
    uint32_t releaseFirst_ = 0, releaseCount_ = 0;
    bool done_ = true;
    std::vector<Value> values_;    // by record field, up to maxField_
    std::vector<uint8_t> spilled_; // a record that continues on overflow pages, put together
    mutable std::string scratch_;  // a number read as text
};

} // namespace ls
