#include "core/import/common/raw_text.h"

#include "core/import/common/pytorch_marker.h"
#include "core/import/sqlite/sqlite_db.h"
#include "core/import/sqlite/sqlite_pages.h"
#include "core/import/sqlite/sqlite_source.h"
#include "core/model/columns.h"
#include "core/model/parallel.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>

namespace ls {
namespace {

// A range in a named domain carries "Domain:" before its parsed name; the export's text does
// not, so it is put back.
void keepDomainPrefix(std::string_view normalized, std::string& raw) {
    if (raw.starts_with(normalized)) return; // the common case, no domain
    const std::string_view parsed = parseMarker(raw).name;
    if (normalized.size() > parsed.size() && normalized.ends_with(parsed))
        raw.insert(0, normalized.substr(0, normalized.size() - parsed.size()));
}

// The SELECT list giving a row's text: the inline column, else the interned one's id.
std::string textColumns(const Database& db) {
    const auto cols = db.columns("NVTX_EVENTS");
    std::string sql = cols.count("text") ? "text" : "NULL";
    sql += cols.count("textId") && db.hasTable("StringIds") ? ", textId" : ", NULL";
    return sql;
}

} // namespace

RawTextReader::RawTextReader(const Trace& t) : t_(t) {
    try {
        source_ = std::make_unique<SqliteSource>(t.path);
        const auto cols = source_->columns("NVTX_EVENTS");
        const bool strings = cols.count("textId") && source_->hasTable("StringIds");
        if (source_->pages() && source_->pages()->keepsPagesMapped()) {
            const auto nvtx = source_->layout(
                "NVTX_EVENTS", {cols.count("text") ? "text" : "", strings ? "textId" : ""});
            const auto byId =
                strings ? source_->layout("StringIds", {"id", "value"}) : std::nullopt;
            if (nvtx && (!strings || (byId && byId->fields[0] == TableLayout::kRowid))) {
                nvtxByRow_ = std::make_unique<TableScan>(source_->pages(), *nvtx);
                if (byId) stringById_ = std::make_unique<TableScan>(source_->pages(), *byId);
                return;
            }
        }
        const Database& db = source_->database();
        std::string sql = "SELECT ";
        sql += cols.count("text") ? "text" : "NULL";
        sql += strings ? ", (SELECT value FROM StringIds WHERE id = textId)" : ", NULL";
        sql += " FROM NVTX_EVENTS WHERE rowid = ?1";
        byRow_ = std::make_unique<Statement>(db.handle(), sql);
    } catch (const SqliteError&) {
        byRow_.reset();
        nvtxByRow_.reset();
        stringById_.reset();
    }
}

RawTextReader::~RawTextReader() = default;

// The row's inline text, else its interned one; false when it has neither.
bool RawTextReader::readFromPages(int64_t row, std::string& raw) {
    nvtxByRow_->range(row, row);
    if (!nvtxByRow_->step()) return false;
    if (!nvtxByRow_->isNull(0)) {
        raw.assign(nvtxByRow_->text(0));
        return true;
    }
    if (!stringById_ || nvtxByRow_->isNull(1)) return false;
    const int64_t id = nvtxByRow_->int64(1);
    stringById_->range(id, id);
    if (!stringById_->step() || stringById_->isNull(1)) return false;
    raw.assign(stringById_->text(1));
    return true;
}

std::string RawTextReader::text(RangeId r, bool always) {
    const auto& ranges = t_.ranges;
    std::string normalized(t_.str(ranges.name[r.value])); // not const: returned by move
    if ((!always && !(ranges.flags[r.value] & kPytorchMarker)) || (!byRow_ && !nvtxByRow_))
        return normalized;
    try {
        const int64_t row = t_.rangeSourceRows.at(r.value);
        std::string raw;
        if (nvtxByRow_) {
            if (readFromPages(row, raw)) {
                keepDomainPrefix(normalized, raw);
                return raw;
            }
            return normalized;
        }
        byRow_->reset();
        byRow_->bind(1, row);
        if (byRow_->step() && !(byRow_->isNull(0) && byRow_->isNull(1))) {
            raw.assign(byRow_->isNull(0) ? byRow_->text(1) : byRow_->text(0));
            keepDomainPrefix(normalized, raw);
            return raw;
        }
    } catch (const SqliteError&) {
    }
    return normalized;
}

namespace {

// Appends texts to blocks of a fixed size instead of one growing string, which holds its old and
// new buffers at once while it grows (hundreds of MB more at the peak on 1M kernels).
class TextBlocks {
  public:
    std::string_view keep(std::string_view text) {
        constexpr size_t kBlock = size_t(4) << 20;
        if (blocks_.empty() || blocks_.back().capacity() - blocks_.back().size() < text.size()) {
            blocks_.emplace_back();
            blocks_.back().reserve(std::max(kBlock, text.size()));
        }
        std::string& block = blocks_.back();
        block += text;
        return std::string_view(block).substr(block.size() - text.size());
    }
    std::vector<std::string> take() { return std::move(blocks_); }

  private:
    std::vector<std::string> blocks_;
};

} // namespace

void appendMarkerFields(const Trace& t, RangeId id, std::string& out) {
    forEachMarkerPiece(t, id, [&](std::string_view piece) {
        out += piece;
        return true;
    });
}

std::string_view RawTexts::text(size_t i, std::string& buffer) const {
    if (!rebuilt_[i]) return kept_[i];
    buffer.clear();
    appendMarkerFields(t_, ranges_[i], buffer);
    buffer += kept_[i];
    return buffer;
}

size_t RawTexts::slice(size_t i, size_t from, char* out, size_t n, size_t& size) const {
    if (!rebuilt_[i]) {
        const std::string_view text = kept_[i];
        size = text.size();
        const size_t got = from < size ? std::min(n, size - from) : 0;
        std::memcpy(out, text.data() + std::min(from, size), got);
        return got;
    }
    // Pieces are made only as far as the asked bytes go: a text that goes on past them need not
    // say how far.
    size = 0;
    size_t got = 0;
    auto put = [&](std::string_view piece) {
        const size_t at = size; // where this piece starts in the whole text
        size += piece.size();
        if (size > from && got < n) {
            const size_t skip = from > at ? from - at : 0;
            const size_t take = std::min(n - got, piece.size() - skip);
            std::memcpy(out + got, piece.data() + skip, take);
            got += take;
        }
        return size <= from + n;
    };
    if (forEachMarkerPiece(t_, ranges_[i], put)) put(kept_[i]);
    return got;
}

void RawTexts::prefetchLocation(size_t i) const {
    __builtin_prefetch(&ranges_[i]);
    __builtin_prefetch(&kept_[i]);
    __builtin_prefetch(&rebuilt_[i]);
}

void RawTexts::prefetchText(size_t i) const {
    const uint32_t id = ranges_[i].value;
    const auto& r = t_.ranges;
    __builtin_prefetch(kept_[i].data());
    __builtin_prefetch(r.shape.rowAddress(id));
    __builtin_prefetch(r.name.rowAddress(id));
    __builtin_prefetch(&r.seq.present[id >> 6]);
    __builtin_prefetch(r.opId.rowAddress(id));
    __builtin_prefetch(r.sizes.rowAddress(id));
}

size_t RawTexts::keptBytes() const {
    size_t bytes = 0;
    for (const auto& block : blocks_) bytes += block.size();
    return bytes;
}

namespace {

// Where the texts of NVTX rows are read from: the mapped file where the table's layout allows
// (core/import/sqlite/sqlite_pages.h), else SQLite.
struct TextSource {
    std::shared_ptr<const SqlitePages> pages;
    std::optional<TableLayout> layout;
    explicit TextSource(const Trace& t) {
        try {
            const SqliteSource db(t.path);
            const auto cols = db.columns("NVTX_EVENTS");
            layout = db.layout("NVTX_EVENTS",
                               {"rowid", cols.count("text") ? "text" : "",
                                cols.count("textId") && db.hasTable("StringIds") ? "textId" : ""});
            if (layout) pages = db.pages();
        } catch (const SqliteError&) {
            // read through SQLite, or not at all
        }
    }
};

// Reads the texts of the export's rows rows[from, to) (ascending) on one connection: got(m, raw)
// with the row's raw text, missing(m, false) where the row has no text, missing(m, true) where the
// row or the file cannot be read any more.
// `raw` may be changed by got.
template <typename Got, typename Missing>
void readRows(const Trace& t, const TextSource& source, const std::vector<int64_t>& rows,
              size_t from, size_t to, Got&& got, Missing&& missing) {
    if (from == to) return;
    size_t m = from; // rows before m are done
    std::string raw;
    try {
        Database db(t.path);
        const std::string columns = textColumns(db);
        std::optional<Statement> interned; // exports without StringIds have inline texts only
        if (db.hasTable("StringIds"))
            interned.emplace(db.handle(), "SELECT value FROM StringIds WHERE id = ?1");
        auto take = [&](const auto& s, int textCol) {
            if (s.isNull(textCol) && s.isNull(textCol + 1)) return missing(m, false);
            if (!s.isNull(textCol)) {
                raw.assign(s.text(textCol));
            } else {
                if (!interned) return missing(m, false);
                interned->reset();
                interned->bind(1, s.int64(textCol + 1));
                if (!interned->step() || interned->isNull(0))
                    return missing(m, false); // an unknown id, as the load found it
                raw.assign(interned->text(0));
            }
            got(m, raw);
        };
        const int64_t first = rows[from], last = rows[to - 1];
        // Stepping over rows nobody asked for is cheaper than a b-tree descent per row as long as
        // at least one row in about 32 is wanted.
        const bool dense = static_cast<uint64_t>(last - first) / 32 <= to - from;
        if (dense && source.pages && source.layout) {
            TableScan scan(source.pages, *source.layout);
            scan.range(first, last);
            while (m < to &&
                   scan.stepKey()) { // rows nobody asked for are passed without being read
                const int64_t id = scan.rowid();
                if (rows[m] > id) continue;
                scan.load();
                for (; m < to && rows[m] <= id; ++m)
                    rows[m] == id ? take(scan, 1) : missing(m, true);
            }
        } else if (dense) {
            Statement scan(db.handle(), "SELECT rowid, " + columns +
                                            " FROM NVTX_EVENTS WHERE rowid BETWEEN ?1 AND ?2");
            scan.bind(1, first);
            scan.bind(2, last);
            while (m < to && scan.step()) {
                const int64_t id = scan.int64(0);
                for (; m < to && rows[m] <= id; ++m)
                    rows[m] == id ? take(scan, 1) : missing(m, true);
            }
        } else {
            Statement byRow(db.handle(),
                            "SELECT " + columns + " FROM NVTX_EVENTS WHERE rowid = ?1");
            for (; m < to; ++m) {
                byRow.reset();
                byRow.bind(1, rows[m]);
                byRow.step() ? take(byRow, 0) : missing(m, true);
            }
        }
    } catch (const SqliteError&) {
        // Not readable any more (or not an Nsight Systems export): the normalized names stand.
    }
    for (; m < to; ++m) missing(m, true);
}

} // namespace

RawTexts::RawTexts(const Trace& t, std::span<const RangeId> ranges, unsigned threads, bool always)
    : t_(t), ranges_(ranges), kept_(ranges.size()), rebuilt_(ranges.size()) {
    const auto& r = t.ranges;
    // Source rows are packed in runs (core/model/row_runs.h): unpacked once when most are read.
    const std::vector<uint32_t> unpacked =
        ranges.size() * 8 > r.size() ? t.rangeSourceRows.expand() : std::vector<uint32_t>();
    auto sourceRow = [&](RangeId id) {
        return unpacked.empty() ? t.rangeSourceRows.at(id.value) : unpacked[id.value];
    };
    std::vector<uint64_t> keyed; // (source row << 32) | index into ranges
    for (uint32_t i = 0; i < ranges.size(); ++i) {
        if (always || (r.flags[ranges[i].value] & kPytorchMarker))
            keyed.push_back(uint64_t(sourceRow(ranges[i])) << 32 | i);
        else
            kept_[i] = t.str(r.name[ranges[i].value]);
    }
    parallelSort(keyed.begin(), keyed.end(), std::max(1u, threads), std::less<>());
    std::vector<uint32_t> toRead(keyed.size()); // indexes into ranges, in the export's row order
    std::vector<int64_t> rows(keyed.size());    // their source rows
    for (size_t k = 0; k < keyed.size(); ++k) {
        toRead[k] = static_cast<uint32_t>(keyed[k]);
        rows[k] = static_cast<int64_t>(keyed[k] >> 32);
    }
    columns::release(keyed);
    if (toRead.empty()) return;

    // Each thread reads a run of rows on its own connection.
    const unsigned parts = toRead.size() < 100000 ? 1 : std::max(1u, threads);
    const TextSource source(t);
    std::vector<TextBlocks> blocks(parts);
    parallelFor(toRead.size(), parts, [&](size_t from, size_t to, unsigned part) {
        std::string fields;
        readRows(
            t, source, rows, from, to,
            [&](size_t m, std::string& raw) {
                const uint32_t i = toRead[m];
                keepDomainPrefix(t.str(r.name[ranges[i].value]), raw);
                fields.clear();
                if (r.flags[ranges[i].value] & kPytorchMarker)
                    appendMarkerFields(t, ranges[i], fields);
                rebuilt_[i] = !fields.empty() && raw.starts_with(fields);
                kept_[i] = blocks[part].keep(
                    std::string_view(raw).substr(rebuilt_[i] ? fields.size() : 0));
            },
            [&](size_t m, bool) { kept_[toRead[m]] = t.str(r.name[ranges[toRead[m]].value]); });
    });
    for (auto& part : blocks)
        for (auto& block : part.take()) blocks_.push_back(std::move(block));
}

void forEachRawText(const Trace& t, std::span<const RangeId> byRow,
                    const std::function<void(size_t, std::string_view)>& each) {
    const auto& r = t.ranges;
    std::vector<int64_t> rows(byRow.size());
    for (size_t i = 0; i < byRow.size(); ++i) {
        rows[i] = t.rangeSourceRows.at(byRow[i].value);
        if (i && rows[i] < rows[i - 1])
            throw std::invalid_argument("forEachRawText: ranges not in the export's row order");
    }
    readRows(
        t, TextSource(t), rows, 0, rows.size(),
        [&](size_t i, std::string& raw) {
            keepDomainPrefix(t.str(r.name[byRow[i].value]), raw);
            each(i, raw);
        },
        [&](size_t i, bool unreadable) {
            // Loaded without names, a text that cannot be read again has nothing to stand in
            // for it; a row without text has the empty name a full load gives it.
            if (unreadable && !(t.parts & kLoadNvtxNames))
                throw std::runtime_error("the NVTX texts of " + t.displayPath() +
                                         " could not be read again");
            each(i, t.str(r.name[byRow[i].value]));
        });
}

} // namespace ls
