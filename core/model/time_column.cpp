#include "core/model/time_column.h"

#include "core/model/block_base.h"

#include <optional>
#include <utility>

namespace ls {

void TimeColumn::packBlocks(const Column<uint32_t>* order) {
    const size_t n = packed.size();
    if (blocked()) return;
    // Blocks hold whole times: the origin, the first time an importer's worker read, means
    // nothing from here on and would only make the model's bytes differ between loads.
    const Time was = std::exchange(origin, 0);
    if (n == 0) return;
    const size_t blocks = (n + kBlockRows - 1) / kBlockRows;
    Column<int64_t> base(blocks);
    Column<UInt24> offset(n);
    Column<uint32_t> rows;
    Column<int64_t> times;
    // Rows read in order: their 6-byte pages go back to the system as they are read.
    std::optional<column_memory::ReadOnce<Time48, ColumnAllocator<Time48>>> pages;
    if (!order) pages.emplace(packed);
    Time block[kBlockRows], sorted[kBlockRows];
    for (size_t b = 0; b < blocks; ++b) {
        const size_t first = b * kBlockRows, count = std::min(n - first, kBlockRows);
        for (size_t j = 0; j < count; ++j)
            block[j] = was + decode(packed[order ? (*order)[first + j] : first + j]);
        std::copy(block, block + count, sorted); // reachingBase reorders what it is given
        base[b] = ls::reachingBase(sorted, sorted + count, int64_t(kFar));
        for (size_t j = 0; j < count; ++j) {
            const Time d = block[j] - base[b];
            if (d >= 0 && d < Time(kFar)) {
                offset[first + j] = static_cast<uint32_t>(d);
            } else {
                offset[first + j] = kFar;
                rows.push_back(static_cast<uint32_t>(first + j));
                times.push_back(block[j]);
            }
        }
        if (pages) pages->readThrough(first + count - 1);
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
