#pragma once
// A column of nanosecond times in 6 bytes a row instead of 8: each time is kept as a signed
// 48-bit offset from the column's origin, which covers 39 hours either side of it. Reads look
// like a plain column's (c[i], c.size(), iterators give TimeNs by value); writes go through
// set() and push_back(). `packed` is a plain Column, so the generic column operations
// (core/model/columns.h: resize, concat, permute, compact) and the model cache handle it as they
// do any other; the origin is kept beside it.
//
// Once the rows are in their final order, packBlocks() narrows the column to 3 bytes a row: the
// distance above a base per 64 rows (64 ranges of a thread, sorted by start, nearly always lie
// within 16.8 ms), with the rows out of reach (1 to 4 % of the ranges of the recordings here:
// idle stretches, and where one thread's rows meet the next's) in a side table by row. A packed
// column is read only.
#include "core/model/column.h"
#include "core/model/hot_inline.h"
#include "core/model/row_iterator.h"
#include "core/model/uint24.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>

namespace ls {

// A signed 48-bit integer in three 16-bit words (alignment 2, so a column of them is dense).
struct Time48 {
    uint16_t w[3] = {0, 0, 0};
    bool operator==(const Time48&) const = default;
};
static_assert(sizeof(Time48) == 6);

class TimeColumn {
  public:
    using Time = int64_t; // TimeNs
    static constexpr Time kMaxOffset = (Time(1) << 47) - 1;
    static constexpr Time kMinOffset = -(Time(1) << 47);

    static constexpr size_t kBlockRows = 64;
    static constexpr uint32_t kFar = UInt24::kMax;

    Column<Time48> packed; // offsets from origin, until packBlocks()
    Time origin = 0;       // set before the first row is written; 0 once packed into blocks
    // After packBlocks(): per row its distance above its block's base (kFar: in the side table).
    Column<UInt24> blockOffset;
    Column<int64_t> blockBase; // per 64 rows; empty before packBlocks()
    Column<uint32_t> farRows;  // the kFar rows, ascending
    Column<int64_t> farTimes;  // their times

    bool blocked() const { return !blockBase.empty(); }
    size_t size() const { return blocked() ? blockOffset.size() : packed.size(); }
    bool empty() const { return size() == 0; }
    LS_HOT_INLINE Time operator[](size_t i) const {
        if (blocked()) [[likely]] {
            const uint32_t d = blockOffset[i];
            if (d != kFar) [[likely]]
                return blockBase[i / kBlockRows] + d;
            return far(i);
        }
        return origin + decode(packed[i]);
    }
    LS_COLD Time far(size_t i) const {
        const auto it = std::lower_bound(farRows.begin(), farRows.end(), static_cast<uint32_t>(i));
        return farTimes[static_cast<size_t>(it - farRows.begin())];
    }
    Time front() const { return (*this)[0]; }
    Time back() const { return (*this)[size() - 1]; }

    // Whether t can be held with this origin (a time 39 hours or more from it cannot).
    static bool fits(Time t, Time origin) {
        const Time d = t - origin; // both within ±2^62 (importers drop absurd times)
        return d >= kMinOffset && d <= kMaxOffset;
    }
    bool fits(Time t) const { return fits(t, origin); }
    // t must fit (fits()); one that does not is clamped to the nearest time that does.
    static Time48 encode(Time t, Time origin) {
        Time d = t - origin;
        d = d < kMinOffset ? kMinOffset : d > kMaxOffset ? kMaxOffset : d;
        const auto u = static_cast<uint64_t>(d);
        return Time48{{static_cast<uint16_t>(u), static_cast<uint16_t>(u >> 16),
                       static_cast<uint16_t>(u >> 32)}};
    }
    static Time decode(Time48 p) {
        const uint64_t u = uint64_t(p.w[0]) | uint64_t(p.w[1]) << 16 | uint64_t(p.w[2]) << 32;
        return static_cast<Time>(u << 16) >> 16; // sign-extends bit 47
    }
    // Writes: before packBlocks() only.
    void set(size_t i, Time t) { packed[i] = encode(t, origin); }
    void push_back(Time t) { packed.push_back(encode(t, origin)); }
    void resize(size_t n) { packed.resize(n); }
    void clear() {
        packed.clear();
        Column<UInt24>().swap(blockOffset);
        Column<int64_t>().swap(blockBase);
        farRows.clear();
        farTimes.clear();
    }
    // To 3 bytes a row (see the top). The 6-byte column's pages are given back as they are
    // read, so the two forms are not both resident (this runs near the load's peak). With
    // `order`, row i of the packed column is row order[i] of this one (the rows move as they
    // pack, instead of being permuted first).
    void packBlocks(const Column<uint32_t>* order = nullptr);
    // The block form of a column that is in it: its parts agree (a model cache read back).
    bool blocksConsistent() const;

    using const_iterator = RowIterator<TimeColumn, Time>;
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }

    // Equal times, whatever the origins.
    bool operator==(const TimeColumn& o) const {
        if (size() != o.size()) return false;
        for (size_t i = 0; i < size(); ++i)
            if ((*this)[i] != o[i]) return false;
        return true;
    }
};

} // namespace ls
