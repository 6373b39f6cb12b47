#pragma once
// The raw NVTX text of a range, on demand. PyTorch marker texts are unique per call and are not
// kept in memory (the parsed fields say the same); they are re-read from the export by row.
#include "core/model/trace.h"

#include <charconv>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

class Database;
class SqliteSource;
class Statement;
class TableScan;

class RawTextReader {
  public:
    explicit RawTextReader(const Trace& t);
    ~RawTextReader();
    // Falls back to the normalized name when the file cannot be read any more. Only PyTorch
    // markers are re-read unless always is set (their normalized name is their text otherwise).
    std::string text(RangeId r, bool always = false);

  private:
    bool readFromPages(int64_t row, std::string& raw);

    const Trace& t_;
    // A small export's rows are looked up in its mapped pages (no SQLite schema to parse); a big
    // one's through SQLite, whose page cache is bounded where mapped pages would stay resident.
    std::unique_ptr<SqliteSource> source_;
    std::unique_ptr<TableScan> nvtxByRow_, stringById_;
    std::unique_ptr<Database> db_;
    std::unique_ptr<Statement> byRow_;
};

// The texts of many ranges at once (an NVTX report over a million kernels needs millions):
// marker texts are read in the export's row order, in one pass over the table when they are
// dense in it, instead of one b-tree lookup per range. Same fallbacks as RawTextReader::text.
// Of a marker text only what its parsed fields do not say is kept (input_op_ids, mostly): the
// rest is rebuilt from them when asked, and kept whole where rebuilding would not give it back.
class RawTexts {
  public:
    // `ranges` must outlive this object. Like RawTextReader::text, only PyTorch markers are
    // read unless `always` is set.
    RawTexts(const Trace& t, std::span<const RangeId> ranges, unsigned threads = 1,
             bool always = false);
    // The text of ranges[i]. The view is into this object or into `buffer`.
    std::string_view text(size_t i, std::string& buffer) const;
    // Up to n bytes of that text from byte `from` on, copied to out, without building the whole
    // text (a sort that looks 16 bytes further at a time). Its size goes to `size`: the whole
    // size where the text ends within from + n bytes, else only some size past from + n.
    size_t slice(size_t i, size_t from, char* out, size_t n, size_t& size) const;
    // Asks memory for what text(i) reads: a report that reads texts in their sorted order reads
    // them in no order in memory, and can ask a few texts ahead. In two steps, the second a few
    // texts after the first: where a text is (locate), then its fields and bytes.
    void prefetchLocation(size_t i) const;
    void prefetchText(size_t i) const;
    size_t size() const { return kept_.size(); }
    size_t keptBytes() const; // of the texts read, what is held

  private:
    const Trace& t_;
    std::span<const RangeId> ranges_;
    std::vector<std::string> blocks_; // never grown past their reserve: views into them stay valid
    std::vector<std::string_view> kept_; // the whole text, or what follows the rebuilt part
    std::vector<uint8_t> rebuilt_;       // 1 where kept_ follows the marker's rebuilt fields
};

// The raw texts of ranges in the export's row order (source rows not descending), each handed to
// each(i, text) in that order on the calling thread, the view valid until it returns: for
// reports that write rows in that order and need not keep the texts. Same fallbacks as
// RawTextReader::text with `always` set, except in a trace loaded without NVTX names, which has no
// names to fall back on: a text that cannot be read then throws std::runtime_error. Throws
// std::invalid_argument if not in row order.
void forEachRawText(const Trace& t, std::span<const RangeId> byRow,
                    const std::function<void(size_t, std::string_view)>& each);

// A PyTorch marker's text up to its input_op_ids as emit_nvtx writes it, from the parsed
// fields: "aten::addmm, seq = 5, op_id = 12, sizes = [[8, 768], [768, 3072]]".
void appendMarkerFields(const Trace& t, RangeId r, std::string& out);

// The same text as the pieces it is made of, handed to piece(view) in order while it returns
// true (a sort that looks at 16 bytes of a text need not make the rest); a view lives until
// piece returns. False if piece stopped it.
template <typename Piece> bool forEachMarkerPiece(const Trace& t, RangeId id, Piece&& piece) {
    const auto& r = t.ranges;
    const uint32_t i = id.value;
    if (!piece(t.str(r.name[i]))) return false;
    auto number = [&](std::string_view key, int64_t v) {
        char digits[24];
        return piece(key) &&
               piece(std::string_view(
                   digits, static_cast<size_t>(
                               std::to_chars(digits, digits + sizeof digits, v).ptr - digits)));
    };
    if (r.seq[i] >= 0 &&
        !number(r.flags[i] & kSeqIsStashed ? ", stashed seq = " : ", seq = ", r.seq[i]))
        return false;
    if (r.opId[i] >= 0 && !number(", op_id = ", r.opId[i])) return false;
    if (r.sizes[i].valid() && !t.str(r.sizes[i]).empty())
        return piece(", sizes = ") && piece(t.str(r.sizes[i]));
    return true;
}

} // namespace ls
