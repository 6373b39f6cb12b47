#pragma once
// Fills a Dict16Column in place while the reader's chunks are merged. Workers write each row's
// chunk-local id as its 16-bit code (a chunk holds far fewer distinct names and threads than
// 65,535); the merge, chunk by chunk, replaces it with the row's code in one dictionary for the
// whole column. So the column takes 2 bytes a row from the start of the read, where whole ids
// would take 4. Past 65,536 distinct ids the column turns wide (4 bytes a row), as
// Dict16Column::of does.
#include "core/import/common/row_flags.h"
#include "core/model/narrow_columns.h"

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ls {

// The code a worker writes for a chunk-local id too large for 16 bits; the row and its id are
// then kept in the chunk's list of such rows (a chunk of a crafted file with that many distinct
// names, or one read in a single pass).
inline constexpr uint16_t kWideLocalCode = 0xFFFF;

template <typename Id> class Dict16Filler {
  public:
    // `valid`: per row, whether the reader kept it (rows it skipped hold no code).
    Dict16Filler(Dict16Column<Id>& column, const RowFlags& valid) : c_(column), valid_(valid) {}

    // Row i's chunk-local code, as the worker wrote it (before set(i, ...)).
    uint16_t local(size_t i) const { return c_.code[i]; }
    // Before a chunk's rows are set: every id they may be set to. A chunk that would take the
    // column past 65,536 distinct ids turns it wide first, while its own rows still hold their
    // local codes.
    void beginChunk(const std::vector<Id>& ids) {
        if (wide_) return;
        size_t fresh = 0;
        for (Id id : ids) fresh += codeOf_.count(id.value) == 0;
        if (codeOf_.size() + fresh > Dict16Column<Id>::kMaxDistinct) return widen();
        for (Id id : ids)
            if (codeOf_.try_emplace(id.value, static_cast<uint32_t>(codeOf_.size())).second)
                c_.distinct.push_back(id.value);
    }
    // Whether the column turned wide: set() only, codes are no more.
    bool wide() const { return wide_; }
    // The column's code of `id` (one of beginChunk's), while it is not wide: a chunk looks its
    // ids up once, then sets its rows by setCode.
    uint16_t codeOf(Id id) const { return static_cast<uint16_t>(codeOf_.at(id.value)); }
    void setCode(size_t i, uint16_t code) { c_.code[i] = code; }
    // Sets row i, whose local code was read already, to `id` (one of beginChunk's).
    void set(size_t i, Id id) {
        if (wide_)
            c_.wide[i] = id;
        else
            c_.code[i] = static_cast<uint16_t>(codeOf_.at(id.value));
    }
    // Rows [begin, end) are set (every valid one).
    void done(size_t begin, size_t end) { done_.emplace_back(begin, end); }
    // Once every chunk is merged: a wide column drops its codes.
    void finish() {
        if (!wide_) return;
        Column<uint16_t>().swap(c_.code);
        Column<uint32_t>().swap(c_.distinct);
    }

  private:
    // The rows of the chunks done become ids; the rest keep their local codes, still to be read,
    // until finish().
    void widen() {
        wide_ = true;
        c_.wide.resize(c_.code.size());
        for (const auto& [begin, end] : done_)
            for (size_t j = begin; j < end; ++j)
                if (valid_[j]) c_.wide[j] = Id(c_.distinct[c_.code[j]]);
        codeOf_.clear();
    }

    Dict16Column<Id>& c_;
    const RowFlags& valid_;
    std::unordered_map<uint32_t, uint32_t> codeOf_;
    std::vector<std::pair<size_t, size_t>> done_;
    bool wide_ = false;
};

} // namespace ls
