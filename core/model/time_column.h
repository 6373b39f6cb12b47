#pragma once
// A column of nanosecond times in 6 bytes a row instead of 8: each time is kept as a signed
// 48-bit offset from the column's origin, which covers 39 hours either side of it. Reads look
// like a plain column's (c[i], c.size(), iterators give TimeNs by value); writes go through
// set() and push_back(). `packed` is a plain Column, so the generic column operations
// (core/model/columns.h: resize, concat, permute, compact) and the model cache handle it as they
// do any other; the origin is kept beside it.
#include "core/model/column.h"
#include "core/model/row_iterator.h"

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

    Column<Time48> packed; // offsets from origin
    Time origin = 0;       // set before the first row is written; kept by the model cache

    size_t size() const { return packed.size(); }
    bool empty() const { return packed.empty(); }
    Time operator[](size_t i) const { return origin + decode(packed[i]); }
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
    void set(size_t i, Time t) { packed[i] = encode(t, origin); }
    void push_back(Time t) { packed.push_back(encode(t, origin)); }
    void resize(size_t n) { packed.resize(n); }
    void clear() { packed.clear(); }

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
