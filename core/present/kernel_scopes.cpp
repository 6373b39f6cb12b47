#include "core/present/kernel_scopes.h"

#include "core/pytorch/correlation.h"

#include <algorithm>

namespace ls {

std::vector<KernelId> layerRowsOnEveryRank(const AllRanksView& all, std::string_view layer) {
    std::vector<KernelId> rows;
    for (uint32_t t = 0; t < all.traces.size(); ++t) {
        // Each trace interns its own strings: the layer is found by name in each.
        const StringId there = all.traces[t]->strings.find(layer);
        if (!there.valid()) continue;
        for (KernelId k : kernelsOfLayer(*all.traces[t], there))
            rows.push_back(all.kernels->rowOf(t, k));
    }
    return rows;
}

std::optional<std::pair<double, double>> gpuSpanOf(const Trace& t,
                                                   const std::vector<KernelId>& kernels) {
    std::optional<std::pair<double, double>> span;
    for (KernelId k : kernels) {
        const auto start = static_cast<double>(t.kernels.start[k.value]);
        const auto end = static_cast<double>(t.kernels.end[k.value]);
        span = span ? std::make_pair(std::min(span->first, start), std::max(span->second, end))
                    : std::make_pair(start, end);
    }
    return span;
}

} // namespace ls
