#pragma once
// A column of plain values (a kernel's shared memory sizes, its FLOPs and bytes) of which a trace
// has few distinct ones: per row a 16-bit index into a table of the distinct values, or, past
// 65,536 of them, the values themselves. Reads look like a plain column's (c[i] is the value).
// Values are told apart by their bits, so every NaN of one bit pattern is one value.
#include "core/model/column.h"
#include "core/model/row_iterator.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <unordered_map>

namespace ls {

template <typename T> class ValueDict16Column {
  public:
    static constexpr size_t kMaxDistinct = size_t(1) << 16;
    static_assert(sizeof(T) == 4 || sizeof(T) == 8);
    using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
    static Bits bitsOf(T v) { return std::bit_cast<Bits>(v); }

    Column<uint16_t> code; // per row: its value's index in distinct (empty when wide)
    Column<T> distinct;    // each value once, in order of first use
    Column<T> wide;        // per row: the value, when more than kMaxDistinct are distinct

    size_t size() const { return code.size() + wide.size(); }
    bool empty() const { return size() == 0; }
    T operator[](size_t i) const { return wide.empty() ? distinct[code[i]] : wide[i]; }
    using const_iterator = RowIterator<ValueDict16Column, T>;
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }

    template <typename Values> static ValueDict16Column of(const Values& values, size_t n) {
        ValueDict16Column c;
        c.code.resize(n);
        std::unordered_map<Bits, uint16_t> index;
        for (size_t i = 0; i < n; ++i) {
            auto [it, added] =
                index.try_emplace(bitsOf(values[i]), static_cast<uint16_t>(index.size()));
            if (added) {
                if (c.distinct.size() == kMaxDistinct) {
                    Column<uint16_t>().swap(c.code);
                    Column<T>().swap(c.distinct);
                    c.wide.resize(n);
                    for (size_t j = 0; j < n; ++j) c.wide[j] = values[j];
                    return c;
                }
                c.distinct.push_back(values[i]);
            }
            c.code[i] = it->second;
        }
        return c;
    }
    // One more row, for columns built a row at a time (small tables, tests): the value is looked
    // for among the distinct ones.
    void push_back(T v) {
        if (!wide.empty()) {
            wide.push_back(v);
            return;
        }
        const auto it = std::find_if(distinct.begin(), distinct.end(),
                                     [&](T d) { return bitsOf(d) == bitsOf(v); });
        if (it == distinct.end() && distinct.size() == kMaxDistinct) {
            widen();
            wide.push_back(v);
            return;
        }
        code.push_back(static_cast<uint16_t>(it - distinct.begin()));
        if (it == distinct.end()) distinct.push_back(v);
    }
    // The codes become values (every row's), for a column past kMaxDistinct.
    void widen() {
        wide.resize(code.size());
        for (size_t i = 0; i < code.size(); ++i) wide[i] = distinct[code[i]];
        Column<uint16_t>().swap(code);
        Column<T>().swap(distinct);
    }
    // Equal values row by row, bit for bit (a NaN equals itself).
    bool operator==(const ValueDict16Column& o) const {
        if (size() != o.size()) return false;
        for (size_t i = 0; i < size(); ++i)
            if (bitsOf((*this)[i]) != bitsOf(o[i])) return false;
        return true;
    }
};

// Fills a ValueDict16Column's rows in any order (a kernel's FLOPs as its op is priced), every row
// starting as `initial`. A small table of recent values spares most writes the hash map.
template <typename T> class ValueDict16Writer {
  public:
    using Column16 = ValueDict16Column<T>;
    using Bits = typename Column16::Bits;

    ValueDict16Writer(Column16& c, size_t n, T initial) : c_(c) {
        c_ = {};
        c_.code.assign(n, 0);
        c_.distinct.push_back(initial);
        index_.emplace(Column16::bitsOf(initial), 0);
        recent_.fill({Column16::bitsOf(initial), 0});
    }
    void set(size_t i, T v) {
        if (!c_.wide.empty()) {
            c_.wide[i] = v;
            return;
        }
        const Bits bits = Column16::bitsOf(v);
        Recent& r = recent_[static_cast<size_t>((bits ^ (bits >> 29)) * 0x9E3779B97F4A7C15ull >>
                                                (64 - kRecentBits))];
        if (r.bits != bits) {
            auto [it, added] = index_.try_emplace(bits, static_cast<uint32_t>(index_.size()));
            if (added) {
                if (c_.distinct.size() == Column16::kMaxDistinct) {
                    c_.widen();
                    index_.clear();
                    c_.wide[i] = v;
                    return;
                }
                c_.distinct.push_back(v);
            }
            r = {bits, it->second};
        }
        c_.code[i] = static_cast<uint16_t>(r.code);
    }

  private:
    static constexpr unsigned kRecentBits = 8;
    struct Recent {
        Bits bits;
        uint32_t code;
    };
    Column16& c_;
    std::unordered_map<Bits, uint32_t> index_;
    std::array<Recent, size_t(1) << kRecentBits> recent_{};
};

} // namespace ls
