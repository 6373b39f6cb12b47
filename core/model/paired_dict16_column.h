#pragma once
// A 16-bit dictionary column that shares its codes with another (a range's sizes with its name):
// per code of the other column, this column's id. gpt12 has a few hundred names and a few
// thousand sizes but fewer than 65,536 (name, sizes) pairs, so one 2-byte code a row says both.
// Where the pairs do not fit 16-bit codes the column keeps codes of its own (`own`).
#include "core/model/narrow_columns.h"
#include "core/model/row_iterator.h"

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ls {

template <typename Id> class PairedDict16Column {
  public:
    Dict16Column<Id> own;    // when not paired
    Column<uint32_t> byPair; // when paired: this column's id per code of the first column
    uint8_t paired = 0;      // kept by the model cache

    size_t size() const { return paired ? first_->size() : own.size(); }
    bool empty() const { return size() == 0; }
    Id operator[](size_t i) const { return paired ? Id(byPair[first_->code[i]]) : own[i]; }
    const void* rowAddress(size_t i) const {
        return paired ? first_->rowAddress(i) : own.rowAddress(i);
    }
    using const_iterator = RowIterator<PairedDict16Column, Id>;
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }
    bool operator==(const PairedDict16Column& o) const {
        if (size() != o.size()) return false;
        for (size_t i = 0; i < size(); ++i)
            if ((*this)[i] != o[i]) return false;
        return true;
    }

    // Makes `first` and this column share codes: row i's pair (first[i], second[i]) gets one
    // code, written into first.code, when both have codes and the pairs fit 16 bits; else this
    // column is `second` as it is. `second` is consumed either way.
    void pair(Dict16Column<Id>& first, Dict16Column<Id>&& second);
    // The column whose codes are shared (the owner keeps it pointed through copies and moves).
    void pointAt(const Dict16Column<Id>* first) { first_ = first; }

  private:
    const Dict16Column<Id>* first_ = nullptr;
};

template <typename Id>
void PairedDict16Column<Id>::pair(Dict16Column<Id>& first, Dict16Column<Id>&& second) {
    const size_t n = first.size();
    paired = 0;
    byPair.clear();
    own = {};
    if (n == 0 || !first.wide.empty() || !second.wide.empty() || second.size() != n) {
        own = std::move(second);
        return;
    }
    // Pair codes by (first code, second code), in an open-addressing table (a few thousand
    // pairs). Each row's pair code replaces its second code in place, so no third code column
    // is faulted in (this runs near the load's peak).
    constexpr uint32_t kEmpty = UINT32_MAX;
    constexpr size_t kSlots = size_t(1) << 18; // four slots a possible pair
    std::vector<uint32_t> keys(kSlots, kEmpty);
    std::vector<uint16_t> codes(kSlots);
    Column<uint32_t> firstIds, secondIds;
    Column<uint16_t>& rows = second.code;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t key = uint32_t(first.code[i]) << 16 | rows[i];
        size_t s = (key * 0x9E3779B1u) >> 14; // 18 bits
        while (keys[s] != kEmpty && keys[s] != key) s = (s + 1) & (kSlots - 1);
        if (keys[s] == kEmpty) {
            if (firstIds.size() == Dict16Column<Id>::kMaxDistinct) {
                // Too many pairs: the rows already paired get their own codes back.
                std::unordered_map<uint32_t, uint16_t> codeOf;
                for (size_t c = 0; c < second.distinct.size(); ++c)
                    codeOf.emplace(second.distinct[c], static_cast<uint16_t>(c));
                for (size_t j = 0; j < i; ++j) rows[j] = codeOf.at(secondIds[rows[j]]);
                own = std::move(second);
                return;
            }
            keys[s] = key;
            codes[s] = static_cast<uint16_t>(firstIds.size());
            firstIds.push_back(first.distinct[first.code[i]]);
            secondIds.push_back(second.distinct[rows[i]]);
        }
        rows[i] = codes[s];
    }
    first.code = std::move(rows);
    first.distinct = std::move(firstIds);
    byPair = std::move(secondIds);
    paired = 1;
    second = {};
}

} // namespace ls
