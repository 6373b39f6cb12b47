#include "core/import/sqlite/sqlite_pages.h"

#include "core/import/sqlite/sqlite_db.h"
#include "core/import/sqlite/sqlite_schema.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sqlite3.h>

namespace ls {
namespace {

constexpr uint8_t kInteriorTable = 0x05, kLeafTable = 0x0D;
constexpr size_t kMaxDepth = 40; // a b-tree of 4 KiB pages holding 2^63 rows is 20 deep

[[noreturn]] void corrupt(const char* what) {
    throw SqliteError(SQLITE_CORRUPT,
                      std::string("database disk image is malformed (") + what + ")");
}

uint32_t be16(const uint8_t* p) { return uint32_t(p[0]) << 8 | p[1]; }
uint32_t be32(const uint8_t* p) {
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

// A SQLite varint at p, not reading at or past end.
uint64_t varintNearEnd(const uint8_t*& p, const uint8_t* end) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) {
        if (p >= end) corrupt("varint past the page");
        const uint8_t b = *p++;
        v = (v << 7) | (b & 0x7f);
        if (!(b & 0x80)) return v;
    }
    if (p >= end) corrupt("varint past the page");
    return (v << 8) | *p++;
}

inline uint64_t varint(const uint8_t*& p, const uint8_t* end) {
    if (end - p < 9) return varintNearEnd(p, end);
    uint64_t v = 0; // all nine bytes a varint may take are on the page: no checks per byte
    for (int i = 0; i < 8; ++i) {
        const uint8_t b = *p++;
        v = (v << 7) | (b & 0x7f);
        if (!(b & 0x80)) return v;
    }
    return (v << 8) | *p++;
}

// Bytes a value of serial type t takes in a record's body.
uint64_t serialSize(uint64_t t) {
    static constexpr uint8_t kFixed[12] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0};
    if (t >= 12) return (t - 12) / 2;
    if (t == 10 || t == 11) corrupt("reserved serial type");
    return kFixed[t];
}

int64_t bigEndianInt(const uint8_t* p, int bytes) {
    int64_t v = static_cast<int8_t>(p[0]); // sign-extends
    for (int i = 1; i < bytes; ++i) v = (v << 8) | p[i];
    return v;
}

double bigEndianReal(const uint8_t* p) {
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

// sqlite3_column_int64 of a REAL: saturating, NaN as 0.
int64_t realToInt(double r) {
    if (std::isnan(r)) return 0;
    if (r <= static_cast<double>(std::numeric_limits<int64_t>::min()))
        return std::numeric_limits<int64_t>::min();
    if (r >= static_cast<double>(std::numeric_limits<int64_t>::max()))
        return std::numeric_limits<int64_t>::max();
    return static_cast<int64_t>(r);
}

// sqlite3_column_int64 of a TEXT or BLOB: the leading integer, 0 when there is none.
int64_t textToInt(std::string_view s) {
    size_t i = 0;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' ||
                            s[i] == '\f' || s[i] == '\v'))
        ++i;
    bool negative = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
    uint64_t v = 0;
    bool overflow = false;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
        if (v > (std::numeric_limits<uint64_t>::max() - 9) / 10) overflow = true;
        v = v * 10 + static_cast<uint64_t>(s[i] - '0');
    }
    constexpr uint64_t kMaxPositive = uint64_t(std::numeric_limits<int64_t>::max());
    if (negative)
        return overflow || v > kMaxPositive + 1 ? std::numeric_limits<int64_t>::min()
                                                : static_cast<int64_t>(0 - v);
    return overflow || v > kMaxPositive ? std::numeric_limits<int64_t>::max()
                                        : static_cast<int64_t>(v);
}

bool containsNoCase(std::string_view hay, std::string_view needle) {
    return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [](char a, char b) {
               return std::toupper(static_cast<unsigned char>(a)) ==
                      std::toupper(static_cast<unsigned char>(b));
           }) != hay.end();
}

} // namespace

std::shared_ptr<const SqlitePages> SqlitePages::open(const std::string& path) {
    auto file = platform::MappedFile::open(path);
    if (!file || file->size() < 512) return nullptr;
    const uint8_t* h = file->data();
    if (std::memcmp(h, "SQLite format 3", 16) != 0) return nullptr;
    uint32_t pageSize = be16(h + 16);
    if (pageSize == 1) pageSize = 65536;
    if (pageSize < 512 || (pageSize & (pageSize - 1)) != 0) return nullptr;
    const uint32_t reserved = h[20];
    if (h[19] > 2 || pageSize - reserved < 480)
        return nullptr;                              // a read version SQLite 3 does not know
    if (be32(h + 56) != SQLITE_UTF8) return nullptr; // UTF-16 texts: SQLite converts them
    auto pages = std::shared_ptr<SqlitePages>(new SqlitePages);
    pages->pageSize_ = pageSize;
    pages->usable_ = pageSize - reserved;
    pages->pageCount_ =
        static_cast<uint32_t>(std::min<uint64_t>(file->size() / pageSize, UINT32_MAX));
    pages->file_ = std::move(file);
    return pages;
}

const uint8_t* SqlitePages::page(uint32_t n) const {
    if (n == 0 || n > pageCount_) corrupt("page number outside the file");
    return file_->data() + static_cast<size_t>(n - 1) * pageSize_;
}

bool SqlitePages::keepsPagesMapped() const {
    // A small file stays mapped whole until its reader ends: each release is a system call that
    // also interrupts every other core running this process to flush its TLB.
    constexpr uint64_t kSmallFile = 32u << 20;
    return file_->size() < kSmallFile;
}

void SqlitePages::release(uint32_t first, uint32_t count) const {
    if (first == 0 || count == 0 || keepsPagesMapped()) return;
    // Out to 2 MiB boundaries: a fault maps a page's whole folio (up to 2 MiB), neighbours
    // included.
    constexpr size_t kWindow = 2 << 20;
    const size_t begin = static_cast<size_t>(first - 1) * pageSize_ / kWindow * kWindow;
    const size_t end =
        (static_cast<size_t>(first - 1 + count) * pageSize_ + kWindow - 1) / kWindow * kWindow;
    file_->release(begin, end - begin);
}

std::optional<TableLayout> tableLayout(const SqliteSchemaEntry& entry, const ParsedTable& parsed,
                                       const std::vector<std::string_view>& wanted) {
    if (entry.type != "table" || entry.rootPage <= 0 || entry.rootPage > UINT32_MAX ||
        parsed.withoutRowid)
        return std::nullopt;
    TableLayout layout;
    layout.rootPage = static_cast<uint32_t>(entry.rootPage);
    const int alias = parsed.rowidAlias();
    const auto& columns = parsed.columns;
    for (std::string_view w : wanted) {
        const auto it = std::find_if(columns.begin(), columns.end(),
                                     [&](const SchemaColumn& c) { return c.name == w; });
        if (it == columns.end()) {
            layout.fields.push_back(w == "rowid" ? TableLayout::kRowid : TableLayout::kAbsent);
            continue;
        }
        // An INTEGER PRIMARY KEY is the rowid, stored as NULL in the record.
        if (it - columns.begin() == alias) {
            layout.fields.push_back(TableLayout::kRowid);
            continue;
        }
        // A default applies to rows written before the column was added (their records are
        // short); REAL columns hold whole numbers as integers that SQLite turns back into REALs.
        if (it->hasDefault || containsNoCase(it->type, "REAL") ||
            containsNoCase(it->type, "FLOA") || containsNoCase(it->type, "DOUB"))
            return std::nullopt;
        layout.fields.push_back(static_cast<int>(it - columns.begin()));
    }
    return layout;
}

std::optional<std::pair<int64_t, int64_t>>
rowidRange(const std::shared_ptr<const SqlitePages>& pages, uint32_t root) {
    TableScan first(pages, TableLayout{root, {}});
    first.range(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
    if (!first.stepKey()) return std::nullopt;
    const int64_t lo = first.rowid();
    // The last rowid: down the right-most children to the last cell of the right-most leaf.
    const uint32_t usable = pages->usableSize();
    uint32_t pageNo = root;
    for (size_t depth = 0;; ++depth) {
        if (depth > kMaxDepth) corrupt("b-tree loop");
        const uint8_t* page = pages->page(pageNo);
        const uint32_t head = pageNo == 1 ? 100 : 0;
        const uint8_t type = page[head];
        const uint32_t cells = be16(page + head + 3);
        if (type == kInteriorTable) {
            pageNo = be32(page + head + 8);
            continue;
        }
        const uint32_t pointers = head + 8;
        if (type != kLeafTable || pointers + 2 * cells > usable) corrupt("not a table b-tree page");
        if (cells == 0) break; // an empty right-most leaf: count through every row below
        const uint32_t at = be16(page + pointers + 2 * (cells - 1));
        if (at < pointers + 2 * cells || at >= usable) corrupt("cell outside its page");
        const uint8_t* p = page + at;
        varint(p, page + usable); // payload size
        return std::make_pair(lo, static_cast<int64_t>(varint(p, page + usable)));
    }
    int64_t hi = lo;
    while (first.stepKey()) hi = first.rowid();
    return std::make_pair(lo, hi);
}

TableScan::TableScan(std::shared_ptr<const SqlitePages> pages, TableLayout layout)
    : pages_(std::move(pages)), layout_(std::move(layout)) {
    for (int f : layout_.fields) maxField_ = std::max(maxField_, f);
    values_.resize(static_cast<size_t>(maxField_ + 1));
}

TableScan::~TableScan() {
    if (leaf_) done(leaf_);
    flushReleased();
}

void TableScan::done(uint32_t page) {
    // Runs of nearby pages, gaps included: tables written side by side interleave their pages,
    // and the system maps a faulting page's neighbours too, which this scan never visits.
    constexpr uint32_t kRun = 256, kGap = 32;
    if (releaseCount_ && page >= releaseFirst_ && page < releaseFirst_ + releaseCount_ + kGap &&
        releaseCount_ < kRun) {
        releaseCount_ = std::max(releaseCount_, page - releaseFirst_ + 1);
        return;
    }
    flushReleased();
    releaseFirst_ = page;
    releaseCount_ = 1;
}

void TableScan::flushReleased() {
    pages_->release(releaseFirst_, releaseCount_);
    releaseCount_ = 0;
}

void TableScan::range(int64_t first, int64_t last) {
    if (leaf_) done(leaf_); // the previous range's last leaf
    leaf_ = 0;
    last_ = last;
    stack_.clear();
    leafCell_ = leafCells_ = 0;
    done_ = first > last;
    rowid_ = std::numeric_limits<int64_t>::min();
    visited_ = 0;
    if (!done_) descend(layout_.rootPage, first);
}

// Goes down from `page` to the leaf holding the first rowid >= atLeast, remembering on the stack
// where to go on from in each interior page.
void TableScan::descend(uint32_t pageNo, int64_t atLeast) {
    const uint32_t usable = pages_->usableSize();
    for (;;) {
        if (stack_.size() > kMaxDepth || ++visited_ > pages_->pageCount()) corrupt("b-tree loop");
        const uint8_t* page = pages_->page(pageNo);
        const uint32_t head = pageNo == 1 ? 100 : 0;
        const uint8_t type = page[head];
        const uint32_t cells = be16(page + head + 3);
        const uint32_t pointers = head + (type == kInteriorTable ? 12 : 8);
        if ((type != kInteriorTable && type != kLeafTable) || pointers + 2 * cells > usable)
            corrupt("not a table b-tree page");
        const auto cellAt = [&](uint32_t i) {
            const uint32_t at = be16(page + pointers + 2 * i);
            if (at < pointers + 2 * cells || at >= usable) corrupt("cell outside its page");
            return page + at;
        };
        const uint8_t* end = page + usable;
        if (type == kLeafTable) {
            // The first cell whose rowid is >= atLeast (the first cell when going on to the next
            // leaf).
            uint32_t lo = 0, hi = atLeast == std::numeric_limits<int64_t>::min() ? 0 : cells;
            while (lo < hi) {
                const uint32_t mid = (lo + hi) / 2;
                const uint8_t* p = cellAt(mid);
                varint(p, end); // payload size
                if (static_cast<int64_t>(varint(p, end)) < atLeast)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            leaf_ = pageNo;
            leafCell_ = lo;
            leafCells_ = cells;
            leafPage_ = page;
            leafPointers_ = pointers;
            return;
        }
        // Interior: cell i's child holds rowids <= its key; the right-most child the rest.
        uint32_t lo = 0, hi = atLeast == std::numeric_limits<int64_t>::min() ? 0 : cells;
        while (lo < hi) {
            const uint32_t mid = (lo + hi) / 2;
            const uint8_t* p = cellAt(mid) + 4;
            if (p >= end) corrupt("cell outside its page");
            if (static_cast<int64_t>(varint(p, end)) < atLeast)
                lo = mid + 1;
            else
                hi = mid;
        }
        const uint8_t* cell = lo < cells ? cellAt(lo) : nullptr;
        if (cell && cell + 4 > end) corrupt("cell outside its page");
        const uint32_t child = cell ? be32(cell) : be32(page + head + 8);
        // Kept as a copy and dropped from the mapping: the system maps a page's whole (up to
        // 2 MiB) folio with it, which would stay resident for as long as the scan runs.
        const size_t level = stack_.size();
        if (copies_.size() <= level) copies_.resize(level + 1);
        copies_[level].assign(page, page + usable);
        stack_.push_back({pageNo, lo + 1});
        pages_->release(pageNo, 1);
        pageNo = child;
    }
}

// Moves to the next leaf cell, climbing to the next subtree when a leaf is done.
bool TableScan::nextLeafCell() {
    while (leafCell_ >= leafCells_) {
        if (leaf_) done(leaf_);
        leaf_ = 0;
        for (;;) {
            if (stack_.empty()) return false;
            Level& top = stack_.back();
            const uint8_t* page = copies_[stack_.size() - 1].data();
            const uint32_t head = top.page == 1 ? 100 : 0;
            const uint32_t cells = be16(page + head + 3);
            if (top.cell > cells) {
                stack_.pop_back();
                continue;
            }
            uint32_t child;
            if (top.cell < cells) {
                const uint32_t at = be16(page + head + 12 + 2 * top.cell);
                if (at + 4 > pages_->usableSize()) corrupt("cell outside its page");
                child = be32(page + at);
            } else {
                child = be32(page + head + 8);
            }
            ++top.cell;
            descend(child, std::numeric_limits<int64_t>::min());
            break;
        }
    }
    return true;
}

bool TableScan::step() {
    if (!stepKey()) return false;
    load();
    return true;
}

bool TableScan::stepKey() {
    if (done_) return false;
    if (!nextLeafCell()) {
        done_ = true;
        return false;
    }
    const uint32_t usable = pages_->usableSize();
    const uint32_t at = be16(leafPage_ + leafPointers_ + 2 * leafCell_++);
    if (at < leafPointers_ + 2 * leafCells_ || at >= usable) corrupt("cell outside its page");
    const uint8_t* end = leafPage_ + usable;
    const uint8_t* p = leafPage_ + at;
    const uint64_t payload = varint(p, end);
    const auto rowid = static_cast<int64_t>(varint(p, end));
    if (rowid <= rowid_ && rowid_ != std::numeric_limits<int64_t>::min())
        corrupt("rowids out of order");
    rowid_ = rowid;
    if (rowid > last_) {
        done_ = true;
        return false;
    }
    cell_ = p;
    payload_ = payload;
    return true;
}

void TableScan::load() {
    const uint32_t usable = pages_->usableSize();
    const uint8_t* end = leafPage_ + usable;
    const uint8_t* p = cell_;
    const uint64_t payload = payload_;
    // How much of the payload is on this page (the file format's rule), the rest on overflow pages.
    const uint64_t maxLocal = usable - 35;
    uint64_t local = payload;
    if (payload > maxLocal) {
        const uint64_t minLocal = (uint64_t(usable) - 12) * 32 / 255 - 23;
        const uint64_t k = minLocal + (payload - minLocal) % (usable - 4);
        local = k <= maxLocal ? k : minLocal;
    }
    if (static_cast<uint64_t>(end - p) < local + (local < payload ? 4 : 0))
        corrupt("record past its page");
    const uint8_t* record = local == payload ? p : assemble(p, local, payload, p + local);
    decodeRecord(record, payload);
}

const uint8_t* TableScan::assemble(const uint8_t* local, uint64_t localSize, uint64_t payload,
                                   const uint8_t* overflowAt) {
    const uint32_t usable = pages_->usableSize();
    if (payload > uint64_t(pages_->pageCount()) * usable) corrupt("record larger than the file");
    spilled_.resize(payload);
    std::memcpy(spilled_.data(), local, localSize);
    uint64_t have = localSize;
    uint32_t next = be32(overflowAt);
    for (uint32_t hops = 0; have < payload; ++hops) {
        if (hops > pages_->pageCount()) corrupt("overflow loop");
        const uint8_t* page = pages_->page(next);
        const uint64_t take = std::min<uint64_t>(usable - 4, payload - have);
        std::memcpy(spilled_.data() + have, page + 4, take);
        have += take;
        const uint32_t read = next;
        next = be32(page);
        done(read);
    }
    return spilled_.data();
}

void TableScan::decodeRecord(const uint8_t* record, uint64_t size) {
    const uint8_t* end = record + size;
    const uint8_t* p = record;
    const uint64_t headerSize = varint(p, end);
    if (headerSize > size || record + headerSize < p) corrupt("record header");
    const uint8_t* headerEnd = record + headerSize;
    uint64_t body = headerSize;
    for (int f = 0; f <= maxField_; ++f) {
        Value& v = values_[static_cast<size_t>(f)];
        if (p >= headerEnd) { // a record shorter than the table: columns added later read as NULL
            v = Value{};
            continue;
        }
        v.type = *p < 0x80 ? *p++ : varint(p, headerEnd);
        const uint64_t n = serialSize(v.type);
        if (body + n > size) corrupt("record body");
        v.data = record + body;
        body += n;
        // Integers decoded once here: the readers ask for most values as integers.
        switch (v.type) {
        case 1:
            v.i = bigEndianInt(v.data, 1);
            break;
        case 2:
            v.i = bigEndianInt(v.data, 2);
            break;
        case 3:
            v.i = bigEndianInt(v.data, 3);
            break;
        case 4:
            v.i = bigEndianInt(v.data, 4);
            break;
        case 5:
            v.i = bigEndianInt(v.data, 6);
            break;
        case 6:
            v.i = bigEndianInt(v.data, 8);
            break;
        case 9:
            v.i = 1;
            break;
        default:
            v.i = 0;
            break; // NULL, 0; reals and texts convert on request
        }
    }
}

int64_t TableScan::convertedInt(const Value& v) {
    if (v.type == 7) return realToInt(bigEndianReal(v.data));
    return textToInt(std::string_view(reinterpret_cast<const char*>(v.data), serialSize(v.type)));
}

std::string_view TableScan::text(int col) const {
    const int f = layout_.fields[static_cast<size_t>(col)];
    if (f == TableLayout::kAbsent) return {};
    const uint64_t type = f == TableLayout::kRowid ? 6 : values_[static_cast<size_t>(f)].type;
    if (type == 0) return {};
    if (type >= 12)
        return {reinterpret_cast<const char*>(values_[static_cast<size_t>(f)].data),
                serialSize(type)};
    scratch_.resize(32);
    if (type == 7) { // SQLite's "%!.15g": a whole number keeps a ".0"
        const double r = bigEndianReal(values_[static_cast<size_t>(f)].data);
        scratch_.resize(
            static_cast<size_t>(std::snprintf(scratch_.data(), scratch_.size(), "%.15g", r)));
        if (std::isfinite(r) && scratch_.find_first_of(".e") == std::string::npos)
            scratch_ += ".0";
        else if (const size_t e = scratch_.find('e');
                 e != std::string::npos && scratch_.find('.') == std::string::npos)
            scratch_.insert(e, ".0");
        return scratch_;
    }
    const auto [ptr, ec] =
        std::to_chars(scratch_.data(), scratch_.data() + scratch_.size(), int64(col));
    scratch_.resize(static_cast<size_t>(ptr - scratch_.data()));
    return scratch_;
}

} // namespace ls
