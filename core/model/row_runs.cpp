#include "core/model/row_runs.h"

#include <algorithm>

namespace ls {

RowRuns RowRuns::of(std::span<const uint32_t> rows) {
    return of(rows.size(), [&](size_t i) { return rows[i]; });
}

RowRuns RowRuns::of(std::span<const uint32_t> rows, std::span<const uint32_t> order) {
    return of(order.size(), [&](size_t i) { return rows[order[i]]; });
}

uint32_t RowRuns::at(size_t i) const {
    if (!plain.empty()) return plain[i];
    const size_t k = static_cast<size_t>(std::upper_bound(runStart.begin(), runStart.end(),
                                                          static_cast<uint32_t>(i)) -
                                         runStart.begin()) -
                     1;
    return runValue[k] + static_cast<uint32_t>(i - runStart[k]);
}

std::vector<uint32_t> RowRuns::expand() const {
    if (!plain.empty()) return {plain.begin(), plain.end()};
    std::vector<uint32_t> out(size());
    for (size_t k = 0; k < runStart.size(); ++k) {
        const size_t end = k + 1 < runStart.size() ? runStart[k + 1] : out.size();
        for (size_t i = runStart[k]; i < end; ++i)
            out[i] = runValue[k] + static_cast<uint32_t>(i - runStart[k]);
    }
    return out;
}

bool RowRuns::consistent(size_t n) const {
    if (count != n) return false;
    if (!plain.empty()) return plain.size() == n && runStart.empty() && runValue.empty();
    if (runStart.size() != runValue.size()) return false;
    if (n == 0) return runStart.empty();
    if (runStart.empty() || runStart[0] != 0 || runStart.back() >= n) return false;
    return std::adjacent_find(runStart.begin(), runStart.end(),
                              [](uint32_t a, uint32_t b) { return a >= b; }) == runStart.end();
}

} // namespace ls
