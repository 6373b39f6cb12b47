#pragma once
// Ends of timed rows (API calls, NVTX ranges) kept as durations from their row's start: 4 bytes a
// row instead of a 6-byte time, since nearly every call and range lasts less than 4.29 s. The few
// that do not (an iteration range, an unended range stretched to the capture end) and any end
// before its start are kept whole in a side table by row. Reads look like a plain column's:
// rows.end[i] is a TimeNs.
#include "core/model/column.h"
#include "core/model/row_iterator.h"
#include "core/model/time_column.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace ls {

class EndColumn {
  public:
    using Time = int64_t; // TimeNs
    static constexpr uint32_t kFar = UINT32_MAX;

    Column<uint32_t> length;   // end - start; kFar: in the side table
    Column<uint32_t> farRows;  // the kFar rows, ascending
    Column<int64_t> farLength; // their end - start

    size_t size() const { return length.size(); }
    bool empty() const { return length.empty(); }
    // One load, one add, and a branch never taken but for the side table's rows.
    Time operator[](size_t i) const {
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
    Time far(size_t i) const {
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

// The start and end of timed rows. Importers write start and importEnd (6-byte times from one
// origin); assembly packs the ends into `end` once the rows are in their order (packEnds) and
// frees importEnd. `end` reads through `start`, so copies and moves point it at their own.
struct TimedRows {
    TimeColumn start;
    EndColumn end;
    TimeColumn importEnd;

    TimedRows() { end.start_ = &start; }
    TimedRows(const TimedRows& o) : start(o.start), end(o.end), importEnd(o.importEnd) {
        end.start_ = &start;
    }
    TimedRows(TimedRows&& o) noexcept
        : start(std::move(o.start)), end(std::move(o.end)), importEnd(std::move(o.importEnd)) {
        end.start_ = &start;
    }
    TimedRows& operator=(const TimedRows& o) {
        if (this != &o) {
            start = o.start;
            end = o.end;
            importEnd = o.importEnd;
        }
        end.start_ = &start;
        return *this;
    }
    TimedRows& operator=(TimedRows&& o) noexcept {
        start = std::move(o.start);
        end = std::move(o.end);
        importEnd = std::move(o.importEnd);
        end.start_ = &start;
        return *this;
    }
    ~TimedRows() = default;

    size_t size() const { return start.size(); }
    void setOrigin(int64_t origin) { start.origin = importEnd.origin = origin; }
    void packEnds() {
        end.assign(start, importEnd);
        Column<Time48>().swap(importEnd.packed);
    }
};

} // namespace ls
