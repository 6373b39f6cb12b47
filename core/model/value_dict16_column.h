#pragma once
// A column of plain values (a kernel's shared memory sizes) of which a trace has few distinct
// ones: per row a 16-bit index into a table of the distinct values, or, past 65,536 of them, the
// values themselves. Reads look like a plain column's (c[i] is the value).
#include "core/model/column.h"
#include "core/model/row_iterator.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

namespace ls {

template <typename T> class ValueDict16Column {
  public:
    static constexpr size_t kMaxDistinct = size_t(1) << 16;

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
        std::unordered_map<T, uint16_t> index;
        for (size_t i = 0; i < n; ++i) {
            auto [it, added] = index.try_emplace(values[i], static_cast<uint16_t>(index.size()));
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
        const auto it = std::find(distinct.begin(), distinct.end(), v);
        if (it == distinct.end() && distinct.size() == kMaxDistinct) {
            wide.reserve(code.size() + 1);
            for (uint16_t c : code) wide.push_back(distinct[c]);
            wide.push_back(v);
            Column<uint16_t>().swap(code);
            Column<T>().swap(distinct);
            return;
        }
        code.push_back(static_cast<uint16_t>(it - distinct.begin()));
        if (it == distinct.end()) distinct.push_back(v);
    }
    bool operator==(const ValueDict16Column& o) const {
        if (size() != o.size()) return false;
        for (size_t i = 0; i < size(); ++i)
            if ((*this)[i] != o[i]) return false;
        return true;
    }
};

} // namespace ls
