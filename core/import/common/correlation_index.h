#pragma once
// API calls by (process, correlation id), for the GPU operations and memory events to find the
// call that launched them, and for assembly to find the calls an export holds twice. It is built
// at the load's peak (every table read), so it holds no ids, only rows: per process bucket its
// calls' rows in id order, the ids read from the calls' own column. CUPTI numbers calls as they
// start, so calls in start order are in id order already: where one bucket holds every call, as
// in a trace of one process, the index is the rows themselves and takes no memory at all.
#include "core/import/common/row_flags.h"
#include "core/model/column.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <tuple>
#include <vector>

namespace ls {

class CorrelationIndex {
  public:
    static constexpr uint32_t kNone = UINT32_MAX;

    // Rows [0, n), each in bucket bucketOf(i) < buckets with id idOf(i). backtrace(i): the row is
    // the CUDA backtrace twin of a call (older exports hold two rows per id), which gives way to
    // the call. Of the rows sharing a bucket and a non-zero id, the first call (else the first
    // twin) is kept and the others are duplicates; id 0 (no correlation) has none.
    template <typename BucketOf, typename IdOf, typename Backtrace>
    void build(size_t n, size_t buckets, BucketOf bucketOf, IdOf idOf, Backtrace backtrace);
    // The row kept for (bucket, id), the lowest one for id 0; kNone when there is none. idOf:
    // the rows' ids as build() had them (the rows may have been packed since).
    template <typename IdOf> uint32_t find(uint32_t bucket, uint32_t id, IdOf idOf) const {
        size_t hint = SIZE_MAX;
        return find(bucket, id, idOf, hint);
    }
    // The same, searching outward from `hint` (the position the last find of the caller ended
    // at, which it updates): GPU work in start order asks for ids in nearly rising order, so
    // each answer is a few steps from the last instead of a search of all calls.
    template <typename IdOf>
    uint32_t find(uint32_t bucket, uint32_t id, IdOf idOf, size_t& hint) const;
    uint64_t duplicateCount() const { return duplicateCount_; }
    // Per row, whether it is a duplicate (empty when none is); the index keeps none.
    RowFlags takeDuplicates() { return std::move(duplicates_); }
    void clear();

  private:
    uint32_t rowAt(size_t p) const { return rows_.empty() ? static_cast<uint32_t>(p) : rows_[p]; }
    void drop(uint32_t row, size_t n);

    std::vector<size_t> begin_; // per bucket, where its rows start; one more at the end
    Column<uint32_t> rows_;     // by bucket, then id; empty: one bucket holds rows 0..n in order
    RowFlags duplicates_;
    uint64_t duplicateCount_ = 0;
};

template <typename BucketOf, typename IdOf, typename Backtrace>
void CorrelationIndex::build(size_t n, size_t buckets, BucketOf bucketOf, IdOf idOf,
                             Backtrace backtrace) {
    clear();
    begin_.assign(buckets + 1, 0);
    for (uint32_t i = 0; i < n; ++i) ++begin_[bucketOf(i) + 1];
    std::partial_sum(begin_.begin(), begin_.end(), begin_.begin());
    // A twin sorts after the call of its id; at id 0 (no duplicates) only the row counts, so
    // that find() gives the lowest.
    auto key = [&](uint32_t row) {
        const uint32_t id = idOf(row);
        return std::tuple(id, id != 0 && backtrace(row), row);
    };
    auto less = [&](uint32_t a, uint32_t b) { return key(a) < key(b); };
    // Where one bucket holds every row (a trace of one process) and the rows are in key order
    // already, the index is the rows themselves.
    bool identity = false;
    for (size_t b = 0; b < buckets; ++b) identity |= begin_[b + 1] - begin_[b] == n;
    for (uint32_t i = 1; i < n && identity; ++i) identity = !(key(i) < key(i - 1));
    if (!identity) {
        rows_.resize(n);
        std::vector<size_t> next(begin_.begin(), begin_.end() - 1);
        for (uint32_t i = 0; i < n; ++i) rows_[next[bucketOf(i)]++] = i;
        for (size_t b = 0; b < buckets; ++b) {
            const auto first = rows_.begin() + static_cast<std::ptrdiff_t>(begin_[b]),
                       last = rows_.begin() + static_cast<std::ptrdiff_t>(begin_[b + 1]);
            if (!std::is_sorted(first, last, less)) std::sort(first, last, less);
        }
    }
    for (size_t b = 0; b < buckets; ++b)
        for (size_t p = begin_[b] + 1; p < begin_[b + 1]; ++p) {
            const uint32_t id = idOf(rowAt(p));
            if (id != 0 && idOf(rowAt(p - 1)) == id) drop(rowAt(p), n);
        }
}

template <typename IdOf>
uint32_t CorrelationIndex::find(uint32_t bucket, uint32_t id, IdOf idOf, size_t& hint) const {
    if (bucket + 1 >= begin_.size()) return kNone;
    const size_t first = begin_[bucket], last = begin_[bucket + 1];
    if (first == last) return kNone;
    // The first position with an id >= id lies in [lo, hi]: found by steps doubling away from
    // the hint, then a binary search between the last two.
    size_t lo = first, hi = last;
    if (hint >= first && hint < last) {
        const auto below = [&](size_t p) { return idOf(rowAt(p)) < id; };
        size_t at = hint, step = 1;
        if (below(at)) {
            while (last - at > step && below(at + step)) {
                at += step;
                step *= 2;
            }
            lo = at + 1;
            hi = last - at > step ? at + step : last;
        } else {
            while (at - first >= step && !below(at - step)) {
                at -= step;
                step *= 2;
            }
            lo = at - first >= step ? at - step + 1 : first;
            hi = at;
        }
    }
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (idOf(rowAt(mid)) < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < last) hint = lo;
    return lo < last && idOf(rowAt(lo)) == id ? rowAt(lo) : kNone;
}

} // namespace ls
