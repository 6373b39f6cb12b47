#pragma once
// An NVTX range's kind, flags and nesting depth in one byte a row instead of three: a trace has
// a few dozen combinations of them (push/pop ranges at a dozen depths, a few flag sets), so each
// row keeps the index of its combination in a table of them; past 256 combinations the rows
// keep their combinations whole. The three are read through views that look like plain columns
// (r.kind[i], r.flags[i], r.depth[i], begin/end).
#include "core/model/column.h"
#include "core/model/row_iterator.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ls {

enum class RangeKind : uint8_t { PushPop, StartEnd, Mark };

struct RangeShape {
    RangeKind kind = RangeKind::PushPop;
    uint8_t flags = 0; // RangeFlag bits
    uint8_t depth = 0; // 0 for outermost; capped at 255
    bool operator==(const RangeShape&) const = default;
};
static_assert(sizeof(RangeShape) == 3);

class RangeShapeColumn {
  public:
    static constexpr size_t kMaxDistinct = 256;

    Column<uint8_t> code;        // per row: its combination's index in distinct (empty when wide)
    Column<RangeShape> distinct; // each combination once, in order of first use
    Column<RangeShape> wide;     // per row, when more than kMaxDistinct are distinct

    size_t size() const { return code.size() + wide.size(); }
    bool empty() const { return size() == 0; }
    RangeShape operator[](size_t i) const { return wide.empty() ? distinct[code[i]] : wide[i]; }
    const void* rowAddress(size_t i) const { // for a prefetch
        return wide.empty() ? static_cast<const void*>(code.data() + i) : wide.data() + i;
    }

    // The column of rows [0, n) with the given kinds, flags and depths.
    template <typename Kinds, typename Flags, typename Depths>
    static RangeShapeColumn of(const Kinds& kinds, const Flags& flags, const Depths& depths,
                               size_t n) {
        RangeShapeColumn c;
        c.code.resize(n);
        // Index of each combination by its bits (a direct table of 4 × 256 × 256 slots).
        constexpr uint16_t kNone = 0xFFFF;
        std::vector<uint16_t> slot(size_t(4) << 16, kNone);
        for (size_t i = 0; i < n; ++i) {
            const RangeShape s{kinds[i], flags[i], depths[i]};
            const size_t key =
                size_t(static_cast<uint8_t>(s.kind) & 3) << 16 | size_t(s.flags) << 8 | s.depth;
            uint16_t& k = slot[key];
            if (k == kNone || c.distinct[k] != s) {
                if (c.distinct.size() == kMaxDistinct) {
                    Column<uint8_t>().swap(c.code);
                    Column<RangeShape>().swap(c.distinct);
                    c.wide.resize(n);
                    for (size_t j = 0; j < n; ++j) c.wide[j] = {kinds[j], flags[j], depths[j]};
                    return c;
                }
                k = static_cast<uint16_t>(c.distinct.size());
                c.distinct.push_back(s);
            }
            c.code[i] = static_cast<uint8_t>(k);
        }
        return c;
    }
};

// One of the three as a read-only column (RangeColumns::kind, flags, depth).
template <typename T, T RangeShape::*Field> class RangeShapeField {
  public:
    explicit RangeShapeField(const RangeShapeColumn* c) : c_(c) {}
    void pointAt(const RangeShapeColumn* c) { c_ = c; }
    size_t size() const { return c_->size(); }
    bool empty() const { return c_->empty(); }
    T operator[](size_t i) const { return (*c_)[i].*Field; }
    using const_iterator = RowIterator<RangeShapeField, T>;
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }
    bool operator==(const RangeShapeField& o) const {
        return size() == o.size() && std::equal(begin(), end(), o.begin());
    }

  private:
    const RangeShapeColumn* c_;
};

} // namespace ls
