#include "core/import/raw_text.h"

#include "core/import/pytorch_marker.h"
#include "core/import/sqlite_db.h"

namespace ls {

RawTextReader::RawTextReader(const Trace& t) : t_(t) {
    try {
        db_ = std::make_unique<Database>(t.path);
        const auto tables = db_->tables();
        const bool strings = tables.count("StringIds") > 0;
        const auto cols = db_->columns("NVTX_EVENTS");
        std::string sql = "SELECT ";
        sql += cols.count("text") ? "text" : "NULL";
        sql += cols.count("textId") && strings ? ", (SELECT value FROM StringIds WHERE id = textId)" : ", NULL";
        sql += " FROM NVTX_EVENTS WHERE rowid = ?1";
        byRow_ = std::make_unique<Statement>(db_->handle(), sql);
    } catch (const SqliteError&) {
        byRow_.reset();
        db_.reset();
    }
}

RawTextReader::~RawTextReader() = default;

std::string RawTextReader::text(RangeId r, bool always) {
    const auto& ranges = t_.ranges;
    std::string normalized(t_.str(ranges.name[r.value])); // not const: returned by move
    if ((!always && !(ranges.flags[r.value] & kPytorchMarker)) || !byRow_) return normalized;
    try {
        byRow_->reset();
        byRow_->bind(1, ranges.sourceRow[r.value]);
        if (byRow_->step() && !(byRow_->isNull(0) && byRow_->isNull(1))) {
            std::string raw(byRow_->isNull(0) ? byRow_->text(1) : byRow_->text(0));
            // A range in a named domain carries "Domain:" before its parsed name; keep it.
            const std::string_view parsed = parseMarker(raw).name;
            if (normalized.size() > parsed.size() && normalized.compare(normalized.size() - parsed.size(), parsed.size(), parsed) == 0)
                raw.insert(0, normalized, 0, normalized.size() - parsed.size());
            return raw;
        }
    } catch (const SqliteError&) {
    }
    return normalized;
}

} // namespace ls
