#pragma once
// Ends of timed rows (API calls, NVTX ranges) kept as durations from their row's start: 3 bytes a
// row instead of a 6-byte time, since nearly every call and range lasts less than 16.8 ms (20
// of gpt12's 37,582 ranges, none of its calls, last longer). Those that do (an iteration
// range, an unended range stretched to the capture end) and any end before its start are kept
// whole in a side table by row. Reads look like a plain column's: rows.end[i] is a TimeNs.
#include "core/model/column.h"
#include "core/model/hot_inline.h"
#include "core/model/row_iterator.h"
#include "core/model/time_column.h"
#include "core/model/uint24.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace ls {

class EndColumn {
  public:
    using Time = int64_t; // TimeNs
    static constexpr uint32_t kFar = UInt24::kMax;

    Column<UInt24> length;     // end - start; kFar: in the side table
    Column<uint32_t> farRows;  // the kFar rows, ascending
    Column<int64_t> farLength; // their end - start

    size_t size() const { return length.size(); }
    bool empty() const { return length.empty(); }
    // One load, one add, and a branch never taken but for the side table's rows.
    LS_HOT_INLINE Time operator[](size_t i) const {
        const uint32_t d = length[i];
        const Time s = (*start_)[i];
        if (d != kFar) [[likely]]
            return s + d;
        return s + far(i);
    }
    using const_iterator = RowIterator<EndColumn, Time>;
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }
    // The length of side-table row i.
    LS_COLD Time far(size_t i) const {
        const auto it = std::lower_bound(farRows.begin(), farRows.end(), static_cast<uint32_t>(i));
        return farLength[static_cast<size_t>(it - farRows.begin())];
    }
    // The code of a row lasting `d`; a kFar one also needs (row, d) in the side table, by row.
    static uint32_t code(Time d) {
        return d >= 0 && d < Time(kFar) ? static_cast<uint32_t>(d) : kFar;
    }
    // Replaces the column by ends[0 .. start.size()) against `start`.
    template <typename Ends> void assign(const TimeColumn& start, const Ends& ends) {
        const size_t n = start.size();
        length.resize(n);
        farRows.clear();
        farLength.clear();
        for (size_t i = 0; i < n; ++i) {
            const Time d = ends[i] - start[i];
            length[i] = code(d);
            if (length[i] == kFar) {
                farRows.push_back(static_cast<uint32_t>(i));
                farLength.push_back(d);
            }
        }
    }
    bool operator==(const EndColumn& o) const {
        if (size() != o.size()) return false;
        for (size_t i = 0; i < size(); ++i)
            if ((*this)[i] != o[i]) return false;
        return true;
    }

  private:
    friend struct TimedRows;
    const TimeColumn* start_ = nullptr; // the owning rows' start (TimedRows keeps it pointed)
};

// Ends as importers write them, 4 bytes a row from the first row read: a row's code is its
// duration below 2^31 ns, else kFarBit plus an index into `far`, which holds the duration. Unlike
// EndColumn's side table by row, the code travels with its row, so the generic column operations
// (compact, permute, core/model/columns.h) keep it right while the rows are still moving. A
// writer working in parallel keeps its far durations to itself and hands them over in one go
// (adopt()).
class ImportEndColumn {
  public:
    using Time = int64_t; // TimeNs
    static constexpr uint32_t kFarBit = uint32_t(1) << 31;

    Column<uint32_t> code;
    Column<int64_t> far;

    size_t size() const { return code.size(); }
    bool empty() const { return code.empty(); }
    Time duration(size_t i) const {
        const uint32_t c = code[i];
        if (!(c & kFarBit)) [[likely]]
            return c;
        return far[c & ~kFarBit];
    }
    Time operator[](size_t i) const { return (*start_)[i] + duration(i); }
    // The code of a duration `d` when local far durations number `farCount`: a far one also
    // goes to the writer's own list at that index.
    static uint32_t encode(Time d, size_t farCount) {
        return d >= 0 && d < Time(kFarBit) ? static_cast<uint32_t>(d)
                                           : kFarBit | static_cast<uint32_t>(farCount);
    }
    static bool isFar(uint32_t c) { return (c & kFarBit) != 0; }
    // Moves a writer's far durations in; returns what to add to its codes' indexes.
    uint32_t adopt(const std::vector<int64_t>& local) {
        const auto offset = static_cast<uint32_t>(far.size());
        far.insert(far.end(), local.begin(), local.end());
        return offset;
    }
    void set(size_t i, Time end) {
        const Time d = end - (*start_)[i];
        code[i] = encode(d, far.size());
        if (isFar(code[i])) far.push_back(d);
    }
    void push_back(Time end) {
        const Time d = end - (*start_)[code.size()];
        code.push_back(encode(d, far.size()));
        if (isFar(code.back())) far.push_back(d);
    }

  private:
    friend struct TimedRows;
    const TimeColumn* start_ = nullptr; // the owning rows' start (TimedRows keeps it pointed)
};

// The start and end of timed rows. Importers write start (6-byte times from one origin) and
// importEnd; assembly packs the ends into `end` once the rows are in their order (packEnds) and
// frees importEnd. Both ends read through `start`, so copies and moves point them at their own.
struct TimedRows {
    TimeColumn start;
    EndColumn end;
    ImportEndColumn importEnd;

    TimedRows() { point(); }
    TimedRows(const TimedRows& o) : start(o.start), end(o.end), importEnd(o.importEnd) { point(); }
    TimedRows(TimedRows&& o) noexcept
        : start(std::move(o.start)), end(std::move(o.end)), importEnd(std::move(o.importEnd)) {
        point();
    }
    TimedRows& operator=(const TimedRows& o) {
        if (this != &o) {
            start = o.start;
            end = o.end;
            importEnd = o.importEnd;
        }
        point();
        return *this;
    }
    TimedRows& operator=(TimedRows&& o) noexcept {
        start = std::move(o.start);
        end = std::move(o.end);
        importEnd = std::move(o.importEnd);
        point();
        return *this;
    }
    ~TimedRows() = default;

    size_t size() const { return start.size(); }
    void setOrigin(int64_t origin) { start.origin = origin; }
    // The import codes become the model's lengths, the import column's pages given back as they
    // are read (this runs near the load's peak): the two are not both resident. With `order`,
    // row i of the lengths is row order[i] of the codes (as TimeColumn::packBlocks).
    void packEnds(const Column<uint32_t>* order = nullptr) {
        end.farRows.clear();
        end.farLength.clear();
        const size_t n = importEnd.code.size();
        Column<UInt24> length(n);
        std::optional<column_memory::ReadOnce<uint32_t, ColumnAllocator<uint32_t>>> pages;
        if (!order) pages.emplace(importEnd.code);
        for (size_t i = 0; i < n; ++i) {
            const int64_t d = importEnd.duration(order ? (*order)[i] : i);
            length[i] = EndColumn::code(d);
            if (length[i] == EndColumn::kFar) {
                end.farRows.push_back(static_cast<uint32_t>(i));
                end.farLength.push_back(d);
            }
            if (pages) pages->readThrough(i);
        }
        end.length = std::move(length);
        Column<uint32_t>().swap(importEnd.code);
        Column<int64_t>().swap(importEnd.far);
    }

  private:
    void point() { end.start_ = importEnd.start_ = &start; }
};

} // namespace ls
