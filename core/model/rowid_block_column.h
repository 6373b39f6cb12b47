#pragma once
// A range's PyTorch op id or seq as importers write it: 2 bytes a row instead of 4 while the rows
// are read. Both are counters that grow with time, so the rows of 64 consecutive export rowids
// hold values within a few hundred of each other: a row keeps its distance from a base per such
// block of rowids. The block is the row's rowid's, not its position's, so the code stays right
// while compaction and the thread grouping move the rows (core/model/columns.h); reading a value
// back takes the row's rowid (Trace::rangeSourceRows once the rows are in order).
//
// Only where the reader places each row at its rowid (the usual nsys export) is the column coded;
// elsewhere (a JSON trace, sparse rowids read in one pass) the values are written whole to `wide`.
#include "core/model/column.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ls {

class RowidBlockInt32Column {
  public:
    static constexpr size_t kBlockRows = 64;
    static constexpr uint16_t kAbsent = 0xFFFF; // the value -1
    static constexpr uint16_t kFar = 0xFFFE;    // out of its block's reach: in `far`
    static constexpr int32_t kNoBase = INT32_MIN;
    // A far value, by the row's place among the rowids (rowid - firstRowid).
    using Far = std::pair<uint32_t, int32_t>;

    Column<uint16_t> code; // coded rows (moves with its row)
    Column<int32_t> wide;  // or every value whole (-1 when absent)
    Column<int32_t> base;  // per 64 rowids from firstRowid; kNoBase until a value is written
    std::vector<Far> far;  // ascending once the writers' lists are in (adoptFar)
    int64_t firstRowid = 0;

    size_t size() const { return code.empty() ? wide.size() : code.size(); }
    bool coded() const { return !code.empty(); }

    // Sized for `rows` rows placed at rowid firstRow + position.
    void presizeCoded(int64_t firstRow, size_t rows) {
        firstRowid = firstRow;
        presizeZeroed(code, rows);
        base.assign((rows + kBlockRows - 1) / kBlockRows, kNoBase);
        far.clear();
    }
    // The code of value v (>= 0, or -1: absent) at place `at` (rowid - firstRowid). The first
    // value written into a block sets its base, so one writer must own each block of 64 places;
    // a value out of reach goes to the writer's own list, handed over later (adoptFar).
    uint16_t encode(size_t at, int32_t v, std::vector<Far>& localFar) {
        if (v < 0) return kAbsent;
        int32_t& b = base[at / kBlockRows];
        if (b == kNoBase) b = v - int32_t(kFar / 2); // v >= 0: cannot overflow
        const int64_t d = int64_t(v) - b;
        if (d >= 0 && d < kFar) return static_cast<uint16_t>(d);
        localFar.emplace_back(static_cast<uint32_t>(at), v);
        return kFar;
    }
    void adoptFar(std::vector<Far>& local) {
        far.insert(far.end(), local.begin(), local.end());
        std::vector<Far>().swap(local);
    }
    // Once every writer's list is in: ascending by place, for lookups.
    void sortFar() { std::sort(far.begin(), far.end()); }

    // Row i's value, its export rowid given by rowidOf() (called only when needed: not for an
    // absent value, nor for a wide column).
    template <typename RowidOf> int32_t value(size_t i, RowidOf&& rowidOf) const {
        if (!coded()) return wide[i];
        const uint16_t c = code[i];
        if (c == kAbsent) return -1;
        const auto at = static_cast<uint64_t>(int64_t(rowidOf()) - firstRowid);
        if (c != kFar) [[likely]]
            return base[at / kBlockRows] + int32_t(c);
        const auto it = std::lower_bound(far.begin(), far.end(), Far{uint32_t(at), INT32_MIN});
        return it != far.end() && it->first == at ? it->second : -1;
    }
    // How many rows hold a value (in any order of the rows).
    size_t heldCount() const {
        if (!coded())
            return static_cast<size_t>(
                std::count_if(wide.begin(), wide.end(), [](int32_t v) { return v >= 0; }));
        return static_cast<size_t>(
            std::count_if(code.begin(), code.end(), [](uint16_t c) { return c != kAbsent; }));
    }
    void clear() {
        Column<uint16_t>().swap(code);
        Column<int32_t>().swap(wide);
        Column<int32_t>().swap(base);
        std::vector<Far>().swap(far);
    }
};

} // namespace ls
