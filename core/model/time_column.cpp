#include "core/model/time_column.h"

#include <limits>

namespace ls {

void TimeColumn::packBlocks() {
    const size_t n = packed.size();
    if (n == 0 || blocked()) return;
    const size_t blocks = (n + kBlockRows - 1) / kBlockRows;
    Column<int64_t> base(blocks);
    Time sorted[kBlockRows];
    for (size_t b = 0; b < blocks; ++b) {
        const size_t first = b * kBlockRows, rows = std::min(n - first, kBlockRows);
        Time lowest = std::numeric_limits<Time>::max(), highest = std::numeric_limits<Time>::min();
        for (size_t i = 0; i < rows; ++i) {
            sorted[i] = decode(packed[first + i]);
            lowest = std::min(lowest, sorted[i]);
            highest = std::max(highest, sorted[i]);
        }
        base[b] = origin + lowest;
        if (highest - lowest < Time(kFar)) continue;
        // Some row is out of the lowest's reach: take the base that reaches the most rows (a
        // block where two threads meet keeps the larger part).
        std::sort(sorted, sorted + rows);
        size_t best = 0, reached = 0;
        for (size_t lo = 0, hi = 0; lo < rows; ++lo) {
            while (hi < rows && sorted[hi] - sorted[lo] < Time(kFar)) ++hi;
            if (hi - lo > reached) {
                reached = hi - lo;
                best = lo;
            }
        }
        base[b] = origin + sorted[best];
    }
    Column<UInt24> offset(n);
    Column<uint32_t> rows;
    Column<int64_t> times;
    // The 6-byte rows already read go back to the system every megabyte or so.
    constexpr size_t kDiscardRows = size_t(1) << 18;
    size_t discarded = 0;
    for (size_t i = 0; i < n; ++i) {
        const Time t = origin + decode(packed[i]);
        const Time d = t - base[i / kBlockRows];
        if (d >= 0 && d < Time(kFar)) {
            offset[i] = static_cast<uint32_t>(d);
        } else {
            offset[i] = kFar;
            rows.push_back(static_cast<uint32_t>(i));
            times.push_back(t);
        }
        if (i + 1 - discarded >= kDiscardRows) {
            column_memory::discard(packed.data(), packed.capacity() * sizeof(Time48),
                                   discarded * sizeof(Time48), (i + 1) * sizeof(Time48));
            discarded = i + 1;
        }
    }
    Column<Time48>().swap(packed);
    blockOffset = std::move(offset);
    blockBase = std::move(base);
    farRows = std::move(rows);
    farTimes = std::move(times);
}

bool TimeColumn::blocksConsistent() const {
    if (!blocked()) return blockOffset.empty() && farRows.empty() && farTimes.empty();
    const size_t n = blockOffset.size();
    if (!packed.empty() || blockBase.size() != (n + kBlockRows - 1) / kBlockRows ||
        farRows.size() != farTimes.size())
        return false;
    size_t k = 0;
    for (size_t i = 0; i < n; ++i)
        if (blockOffset[i] == kFar && (k >= farRows.size() || farRows[k++] != i)) return false;
    return k == farRows.size();
}

} // namespace ls
