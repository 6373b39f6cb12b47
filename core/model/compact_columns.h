#pragma once
// Compact columns for values that most rows lack, that repeat, or that mostly point a little way
// back: read like plain columns (c[i], c.size()), in constant time but for rare far references.
#include "core/model/column.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

namespace ls {

// A column of int32 values that most rows lack (PyTorch's seq, set on autograd ops only): one bit
// a row says which rows hold a value, a count per 64 rows places it among the values, kept in row
// order. 1.5 bits a row plus 4 bytes a value held, against 4 bytes a row.
class SparseInt32Column {
  public:
    static constexpr int32_t kAbsent = -1;

    Column<uint64_t> present; // bit i % 64 of word i / 64: row i holds a value
    Column<uint32_t> before;  // values held by the rows of the words before word w
    Column<int32_t> values;   // the values held, by row
    uint64_t rows = 0;

    size_t size() const { return static_cast<size_t>(rows); }
    bool empty() const { return rows == 0; }
    int32_t operator[](size_t i) const {
        const uint64_t word = present[i >> 6], bit = uint64_t(1) << (i & 63);
        if (!(word & bit)) return kAbsent;
        return values[before[i >> 6] + static_cast<uint32_t>(std::popcount(word & (bit - 1)))];
    }

    // The column of dense[0 .. n) (kAbsent where a row has none).
    template <typename Dense> static SparseInt32Column of(const Dense& dense, size_t n) {
        SparseInt32Column c;
        c.rows = n;
        const size_t words = (n + 63) / 64;
        c.present.assign(words, 0);
        c.before.assign(words, 0);
        size_t held = 0;
        for (size_t i = 0; i < n; ++i) {
            if ((i & 63) == 0) c.before[i >> 6] = static_cast<uint32_t>(held);
            if (dense[i] == kAbsent) continue;
            c.present[i >> 6] |= uint64_t(1) << (i & 63);
            ++held;
        }
        c.values.reserve(held);
        for (size_t i = 0; i < n; ++i) // dense[i] once: it may decode or gather the value
            if (const int32_t v = dense[i]; v != kAbsent) c.values.push_back(v);
        return c;
    }
    // The same in one pass over dense, for a caller who knows how many rows hold a value (a
    // gathered column counted in its own order): each value is decoded and gathered once.
    template <typename Dense>
    static SparseInt32Column of(const Dense& dense, size_t n, size_t held) {
        SparseInt32Column c;
        c.rows = n;
        const size_t words = (n + 63) / 64;
        c.present.assign(words, 0);
        c.before.assign(words, 0);
        c.values.reserve(held);
        for (size_t i = 0; i < n; ++i) {
            if ((i & 63) == 0) c.before[i >> 6] = static_cast<uint32_t>(c.values.size());
            const int32_t v = dense[i];
            if (v == kAbsent) continue;
            c.present[i >> 6] |= uint64_t(1) << (i & 63);
            c.values.push_back(v);
        }
        return c;
    }
    bool operator==(const SparseInt32Column& o) const {
        if (rows != o.rows) return false;
        for (size_t i = 0; i < size(); ++i)
            if ((*this)[i] != o[i]) return false;
        return true;
    }
};

// Row ids that are mostly a little before their own row (an NVTX range's parent, a few rows up in
// its thread): the distance back in 16 bits, 0 for none, kFar for one further back, whose id is
// then found by row in a side table. Id is a typed id (core/model/ids.h).
template <typename Id> class BackRefColumn {
  public:
    static constexpr uint16_t kNone = 0, kFar = 0xFFFF;

    Column<uint16_t> back;            // distance to the row referred to; kNone, kFar
    Column<uint32_t> farRows, farIds; // the kFar rows, ascending, and their ids

    size_t size() const { return back.size(); }
    bool empty() const { return back.empty(); }
    Id operator[](size_t i) const {
        const uint16_t d = back[i];
        if (d == kNone) return Id();
        if (d != kFar) return Id(static_cast<uint32_t>(i - d));
        const auto it = std::lower_bound(farRows.begin(), farRows.end(), static_cast<uint32_t>(i));
        return Id(farIds[static_cast<size_t>(it - farRows.begin())]);
    }
    // The code of row i referring to `to`; a kFar one also needs (i, to) in the side table, in
    // row order.
    static uint16_t code(size_t i, Id to) {
        if (!to.valid()) return kNone;
        return to.value < i && i - to.value < kFar ? static_cast<uint16_t>(i - to.value) : kFar;
    }
    bool operator==(const BackRefColumn& o) const {
        if (size() != o.size()) return false;
        for (size_t i = 0; i < size(); ++i)
            if ((*this)[i] != o[i]) return false;
        return true;
    }
};

// A column of values that repeat (a kernel's grid or block): each row's index into a table of
// the distinct values, 4 bytes a row whatever the value's size. Filled by push_back, or whole by
// of(); c[i] is a reference into the table.
template <typename T> class DictColumn {
  public:
    Column<T> distinct;    // each value once, in order of first use
    Column<uint32_t> code; // per row: its value's index in distinct

    size_t size() const { return code.size(); }
    bool empty() const { return code.empty(); }
    const T& operator[](size_t i) const { return distinct[code[i]]; }
    // Appends v (a linear search of the table: for tests and small tables).
    void push_back(const T& v) {
        const auto it = std::find(distinct.begin(), distinct.end(), v);
        code.push_back(static_cast<uint32_t>(it - distinct.begin()));
        if (it == distinct.end()) distinct.push_back(v);
    }
    // The column of values[0 .. n); Hash hashes a T.
    template <typename Hash, typename Values> static DictColumn of(const Values& values, size_t n) {
        DictColumn c;
        std::unordered_map<T, uint32_t, Hash> index;
        c.code.resize(n);
        for (size_t i = 0; i < n; ++i) {
            auto [it, added] = index.try_emplace(values[i], static_cast<uint32_t>(index.size()));
            if (added) c.distinct.push_back(values[i]);
            c.code[i] = it->second;
        }
        return c;
    }
    bool operator==(const DictColumn& o) const {
        if (size() != o.size()) return false;
        for (size_t i = 0; i < size(); ++i)
            if (!((*this)[i] == o[i])) return false;
        return true;
    }
};

} // namespace ls
