#include "core/model/time_column.h"

#include "core/model/block_base.h"

namespace ls {

void TimeColumn::packBlocks() {
    const size_t n = packed.size();
    if (n == 0 || blocked()) return;
    const size_t blocks = (n + kBlockRows - 1) / kBlockRows;
    Column<int64_t> base(blocks);
    Time sorted[kBlockRows];
    for (size_t b = 0; b < blocks; ++b) {
        const size_t first = b * kBlockRows, rows = std::min(n - first, kBlockRows);
        for (size_t i = 0; i < rows; ++i) sorted[i] = decode(packed[first + i]);
        base[b] = origin + ls::reachingBase(sorted, sorted + rows, int64_t(kFar));
    }
    Column<UInt24> offset(n);
    Column<uint32_t> rows;
    Column<int64_t> times;
    column_memory::ReadOnce pages(packed); // the 6-byte rows read go back to the system
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
        pages.readThrough(i);
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
