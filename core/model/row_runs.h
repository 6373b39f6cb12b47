#pragma once
// A column of row numbers kept as runs of consecutive values where that is smaller: value i is
// runValue[k] + (i - runStart[k]) for the run k holding i. An NVTX table read in rowid order and
// grouped by thread has about as many runs as thread switches (2,400 for 8.1M ranges), so the
// column takes kilobytes instead of 4 bytes a row; a column without such runs stays plain.
#include "core/model/column.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ls {

struct RowRuns {
    Column<uint32_t> plain;              // every value, when runs would not be smaller
    Column<uint32_t> runStart, runValue; // else the runs, runStart ascending from 0
    uint64_t count = 0;                  // values held

    static RowRuns of(std::span<const uint32_t> rows);
    // rows taken in `order` (value i is rows[order[i]]), without gathering them first.
    static RowRuns of(std::span<const uint32_t> rows, std::span<const uint32_t> order);
    // n values given by value(i), without a column of them.
    template <typename Value> static RowRuns of(size_t n, Value&& value);
    uint32_t at(size_t i) const;
    std::vector<uint32_t> expand() const;
    size_t size() const { return static_cast<size_t>(count); }
    // Whether the representation is whole for `n` values (a cache file read back is checked).
    bool consistent(size_t n) const;
    bool operator==(const RowRuns&) const = default;

    // Values looked up in mostly ascending order: the run of the last lookup, or the next one,
    // nearly always holds the row, so a lookup rarely searches.
    class Cursor {
      public:
        explicit Cursor(const RowRuns& r) : r_(r) {}
        uint32_t operator()(size_t i) {
            if (!r_.plain.empty()) return r_.plain[i];
            const size_t n = r_.runStart.size();
            auto holds = [&](size_t k) {
                return r_.runStart[k] <= i && (k + 1 == n || i < r_.runStart[k + 1]);
            };
            if (!holds(run_)) {
                if (run_ + 1 < n && holds(run_ + 1))
                    ++run_;
                else
                    run_ = static_cast<size_t>(
                               std::upper_bound(r_.runStart.begin(), r_.runStart.end(), i) -
                               r_.runStart.begin()) -
                           1;
            }
            return r_.runValue[run_] + static_cast<uint32_t>(i - r_.runStart[run_]);
        }

      private:
        const RowRuns& r_;
        size_t run_ = 0;
    };
};

template <typename Value> RowRuns RowRuns::of(size_t n, Value&& value) {
    RowRuns r;
    r.count = n;
    // value(i) once a row and pass: it may gather through a permutation.
    auto eachRunStart = [&](auto&& f) { // f(i, value) at each row that starts a run
        uint32_t previous = 0;
        for (size_t i = 0; i < n; ++i) {
            const uint32_t v = value(i);
            if (i == 0 || v != previous + 1) f(i, v);
            previous = v;
        }
    };
    size_t runs = 0;
    eachRunStart([&](size_t, uint32_t) { ++runs; });
    if (runs * 2 > n) { // two words a run against one a row
        r.plain.resize(n);
        for (size_t i = 0; i < n; ++i) r.plain[i] = value(i);
        return r;
    }
    r.runStart.reserve(runs);
    r.runValue.reserve(runs);
    eachRunStart([&](size_t i, uint32_t v) {
        r.runStart.push_back(static_cast<uint32_t>(i));
        r.runValue.push_back(v);
    });
    return r;
}

} // namespace ls
