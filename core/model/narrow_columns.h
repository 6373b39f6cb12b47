#pragma once
// Narrow columns for 32-bit values that take few distinct values (names, threads) or stay close
// to their neighbours (PyTorch op ids, API results): 1 or 2 bytes a row instead of 4, read like
// plain columns (c[i], c.size()) in constant time, with a branch that only rare rows take.
#include "core/model/block_base.h"
#include "core/model/column.h"
#include "core/model/row_iterator.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

namespace ls {

// Typed ids (core/model/ids.h) of which a trace has few distinct ones (an NVTX range's name, an
// API call's thread): per row a 16-bit index into a table of the distinct ids, or, for a column
// with more than 65,536 of them, the ids themselves.
template <typename Id> class Dict16Column {
  public:
    static constexpr size_t kMaxDistinct = size_t(1) << 16;

    Column<uint16_t> code;     // per row: its id's index in distinct (empty when wide)
    Column<uint32_t> distinct; // each id once, in order of first use
    Column<Id> wide;           // per row: the id, when more than kMaxDistinct are distinct

    size_t size() const { return code.size() + wide.size(); }
    bool empty() const { return size() == 0; }
    Id operator[](size_t i) const { return wide.empty() ? Id(distinct[code[i]]) : wide[i]; }
    using const_iterator = RowIterator<Dict16Column, Id>;
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }
    // Where row i's code lies, for a prefetch.
    const void* rowAddress(size_t i) const {
        return wide.empty() ? static_cast<const void*>(code.data() + i) : wide.data() + i;
    }

    // The column of ids[0 .. n). Ids are indexes into a table (strings, threads), so a dense
    // lookup table finds each one's code; a column of sparse values uses a hash map.
    template <typename Ids> static Dict16Column of(const Ids& ids, size_t n) {
        Dict16Column c;
        if (n == 0) return c;
        uint32_t most = 0;
        for (size_t i = 0; i < n; ++i) most = std::max(most, ids[i].value);
        constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
        c.code.resize(n);
        auto makeWide = [&] {
            Column<uint16_t>().swap(c.code);
            Column<uint32_t>().swap(c.distinct);
            c.wide.resize(n);
            for (size_t i = 0; i < n; ++i) c.wide[i] = ids[i];
        };
        if (most < 4 * n + kMaxDistinct) {
            std::vector<uint32_t> slot(size_t(most) + 1, kNone);
            for (size_t i = 0; i < n; ++i) {
                uint32_t& s = slot[ids[i].value];
                if (s == kNone) {
                    if (c.distinct.size() == kMaxDistinct) {
                        makeWide();
                        return c;
                    }
                    s = static_cast<uint32_t>(c.distinct.size());
                    c.distinct.push_back(ids[i].value);
                }
                c.code[i] = static_cast<uint16_t>(s);
            }
            return c;
        }
        std::unordered_map<uint32_t, uint32_t> slot;
        for (size_t i = 0; i < n; ++i) {
            auto [it, added] = slot.try_emplace(ids[i].value, static_cast<uint32_t>(slot.size()));
            if (added) {
                if (c.distinct.size() == kMaxDistinct) {
                    makeWide();
                    return c;
                }
                c.distinct.push_back(ids[i].value);
            }
            c.code[i] = static_cast<uint16_t>(it->second);
        }
        return c;
    }
    // The column of(from's rows in `order`): row i is from's row (*order)[i], or row i without
    // an order. A coded column is recoded through its own codes, a table of at most 65,536, not
    // through the ids (which may run into the millions): the same column, several times faster.
    static Dict16Column gather(const Dict16Column& from, const Column<uint32_t>* order) {
        const size_t n = from.size();
        if (!from.wide.empty()) {
            struct Rows {
                const Dict16Column& c;
                const Column<uint32_t>* order;
                Id operator[](size_t i) const { return c[order ? (*order)[i] : i]; }
            };
            return of(Rows{from, order}, n);
        }
        Dict16Column c;
        c.code = unwrittenColumn<uint16_t>(n);
        constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
        std::vector<uint32_t> byCode(from.distinct.size(), kNone);
        std::unordered_map<uint32_t, uint32_t> byId; // one id under two codes gets one code
        for (size_t i = 0; i < n; ++i) {
            const uint16_t was = from.code[order ? (*order)[i] : i];
            uint32_t& s = byCode[was];
            if (s == kNone) {
                const auto [it, added] =
                    byId.try_emplace(from.distinct[was], static_cast<uint32_t>(c.distinct.size()));
                if (added) c.distinct.push_back(from.distinct[was]);
                s = it->second;
            }
            c.code[i] = static_cast<uint16_t>(s);
        }
        return c;
    }
    bool operator==(const Dict16Column& o) const {
        if (size() != o.size()) return false;
        for (size_t i = 0; i < size(); ++i)
            if ((*this)[i] != o[i]) return false;
        return true;
    }
};

// int32 values that sit close to the others of their block of 64 rows (op ids numbered in order,
// API results nearly all 0): per block a base, per row an Offset-sized distance above it. A row
// without a value (Absent) or too far from the base takes a code of its own; the far ones are
// found by row in a side table.
template <typename Offset, int32_t Absent> class BlockInt32Column {
  public:
    static constexpr int32_t kAbsent = Absent;
    static constexpr Offset kAbsentCode = std::numeric_limits<Offset>::max();
    static constexpr Offset kFarCode = kAbsentCode - 1;
    static constexpr size_t kBlockRows = 64;

    Column<int32_t> base;     // per block of 64 rows
    Column<Offset> offset;    // per row: value - base, kAbsentCode, kFarCode
    Column<uint32_t> farRows; // the kFarCode rows, ascending
    Column<int32_t> farValues;

    size_t size() const { return offset.size(); }
    bool empty() const { return offset.empty(); }
    int32_t operator[](size_t i) const {
        const Offset o = offset[i];
        if (o < kFarCode) [[likely]]
            return static_cast<int32_t>(int64_t(base[i / kBlockRows]) + o);
        return o == kAbsentCode ? Absent : far(i);
    }
    const void* rowAddress(size_t i) const { return offset.data() + i; } // for a prefetch
    using const_iterator = RowIterator<BlockInt32Column, int32_t>;
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }
    int32_t far(size_t i) const {
        const auto it = std::lower_bound(farRows.begin(), farRows.end(), static_cast<uint32_t>(i));
        return farValues[static_cast<size_t>(it - farRows.begin())];
    }

    // The column of values[0 .. n) (Absent where a row has none).
    template <typename Values> static BlockInt32Column of(const Values& values, size_t n) {
        BlockInt32Column c;
        c.offset.resize(n);
        c.base.resize((n + kBlockRows - 1) / kBlockRows);
        std::vector<int32_t> held;
        int32_t block[kBlockRows]; // each value read once: `values` may decode or gather it
        for (size_t first = 0; first < n; first += kBlockRows) {
            const size_t last = std::min(n, first + kBlockRows);
            held.clear();
            for (size_t i = first; i < last; ++i) {
                block[i - first] = values[i];
                if (block[i - first] != Absent) held.push_back(block[i - first]);
            }
            const int32_t b = reachingBase(held.data(), held.data() + held.size(), kFarCode);
            c.base[first / kBlockRows] = b;
            for (size_t i = first; i < last; ++i) {
                const int32_t v = block[i - first];
                const int64_t d = int64_t(v) - b;
                if (v == Absent) {
                    c.offset[i] = kAbsentCode;
                } else if (d >= 0 && d < kFarCode) {
                    c.offset[i] = static_cast<Offset>(d);
                } else {
                    c.offset[i] = kFarCode;
                    c.farRows.push_back(static_cast<uint32_t>(i));
                    c.farValues.push_back(v);
                }
            }
        }
        return c;
    }
    bool operator==(const BlockInt32Column& o) const {
        if (size() != o.size()) return false;
        for (size_t i = 0; i < size(); ++i)
            if ((*this)[i] != o[i]) return false;
        return true;
    }
};

// Typed ids that rise with the rows, or nearly, in up to two runs at once (an op's range, ops
// being found in range order; a kernel's innermost range and op, kernels being in start order,
// while the forward thread's and the autograd thread's ranges, far apart in range order, take
// turns): per block of 64 rows two bases, per row 2 bytes, a bit choosing the base and 15 bits
// the distance above it. An invalid id, and one out of both bases' reach, take a code of their
// own; the latter are found by row in a side table.
template <typename Id> class BlockIdColumn {
  public:
    static constexpr size_t kBlockRows = 64;
    static constexpr uint16_t kSecondBase = 0x8000;
    static constexpr uint32_t kReach = 0x7FFE; // distances 0 .. kReach - 1 from either base
    static constexpr uint16_t kFarCode = 0xFFFE, kInvalidCode = 0xFFFF;

    Column<uint32_t> base;    // two per block
    Column<uint16_t> offset;  // per row
    Column<uint32_t> farRows; // the kFarCode rows, ascending
    Column<uint32_t> farIds;

    size_t size() const { return offset.size(); }
    bool empty() const { return offset.empty(); }
    Id operator[](size_t i) const {
        const uint16_t o = offset[i];
        if (o < kFarCode) [[likely]]
            return Id(base[2 * (i / kBlockRows) + (o >> 15)] + (o & 0x7FFF));
        return o == kInvalidCode ? Id() : Id(far(i));
    }
    using const_iterator = RowIterator<BlockIdColumn, Id>;
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }
    uint32_t far(size_t i) const {
        const auto it = std::lower_bound(farRows.begin(), farRows.end(), static_cast<uint32_t>(i));
        return farIds[static_cast<size_t>(it - farRows.begin())];
    }

    // The column of ids[0 .. n).
    template <typename Ids> static BlockIdColumn of(const Ids& ids, size_t n) {
        BlockIdColumn c;
        c.offset.resize(n);
        c.base.assign(2 * ((n + kBlockRows - 1) / kBlockRows), 0);
        std::vector<uint32_t> held;
        for (size_t first = 0; first < n; first += kBlockRows) {
            const size_t last = std::min(n, first + kBlockRows);
            held.clear();
            for (size_t i = first; i < last; ++i)
                if (ids[i].valid()) held.push_back(ids[i].value);
            uint32_t* b = &c.base[2 * (first / kBlockRows)];
            basesOf(held, b);
            for (size_t i = first; i < last; ++i) {
                const Id id = ids[i];
                if (!id.valid()) {
                    c.offset[i] = kInvalidCode;
                } else if (id.value >= b[0] && id.value - b[0] < kReach) {
                    c.offset[i] = static_cast<uint16_t>(id.value - b[0]);
                } else if (id.value >= b[1] && id.value - b[1] < kReach) {
                    c.offset[i] = static_cast<uint16_t>(kSecondBase | (id.value - b[1]));
                } else {
                    c.offset[i] = kFarCode;
                    c.farRows.push_back(static_cast<uint32_t>(i));
                    c.farIds.push_back(id.value);
                }
            }
        }
        return c;
    }
    bool operator==(const BlockIdColumn& o) const {
        if (size() != o.size()) return false;
        for (size_t i = 0; i < size(); ++i)
            if ((*this)[i] != o[i]) return false;
        return true;
    }

  private:
    // Two bases that put the most of a block's ids within reach: the start of the fullest window,
    // then of the fullest window among the ids the first leaves out.
    static void basesOf(std::vector<uint32_t>& held, uint32_t* b) {
        if (held.empty()) return;
        std::sort(held.begin(), held.end());
        // Over the sorted ids, one pass with a window end that only moves on (held has at most
        // 64 ids): the window starting at a counted id holding the most counted ids.
        auto fullest = [&](auto&& counts) {
            std::array<uint8_t, kBlockRows + 1> before{}; // counted ids before each position
            for (size_t j = 0; j < held.size(); ++j)
                before[j + 1] = static_cast<uint8_t>(before[j] + (counts(held[j]) ? 1 : 0));
            size_t best = 0, bestCount = 0;
            for (size_t a = 0, z = 0; a < held.size(); ++a) {
                z = std::max(z, a);
                while (z < held.size() && held[z] - held[a] < kReach) ++z;
                const size_t count = size_t(before[z]) - before[a];
                if (counts(held[a]) && count > bestCount) bestCount = count, best = a;
            }
            return bestCount ? held[best] : held[0];
        };
        b[0] = fullest([](uint32_t) { return true; });
        b[1] = fullest([&](uint32_t v) { return !(v >= b[0] && v - b[0] < kReach); });
    }
};

} // namespace ls
