#pragma once
// A column of row numbers kept as runs of consecutive values where that is smaller: value i is
// runValue[k] + (i - runStart[k]) for the run k holding i. An NVTX table read in rowid order and
// grouped by thread has about as many runs as thread switches (2,400 for 8.1M ranges), so the
// column takes kilobytes instead of 4 bytes a row; a column without such runs stays plain.
#include "core/model/column.h"

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
    static RowRuns of(std::span<const uint32_t> rows, const std::vector<uint32_t>& order);
    uint32_t at(size_t i) const;
    std::vector<uint32_t> expand() const;
    size_t size() const { return static_cast<size_t>(count); }
    // Whether the representation is whole for `n` values (a cache file read back is checked).
    bool consistent(size_t n) const;
    bool operator==(const RowRuns&) const = default;
};

} // namespace ls
