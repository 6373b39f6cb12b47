#include "core/present/fwd_bwd_data.h"

#include <algorithm>

namespace ls {

std::vector<uint32_t> opRowsByGpuTime(const std::vector<OpSideRow>& rows) {
    std::vector<uint32_t> order(rows.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    // Compared as doubles, as the op tables' GPU time column sorts (OpSideModel::numberOrder).
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return static_cast<double>(rows[b].gpuTimeNs) < static_cast<double>(rows[a].gpuTimeNs);
    });
    return order;
}

std::shared_ptr<const FwdBwdData> buildFwdBwdData(const Trace& t,
                                                  std::shared_ptr<const FwdBwdPairs> pairs) {
    auto d = std::make_shared<FwdBwdData>();
    d->forwardByTime = opRowsByGpuTime(pairs->forward);
    d->backwardByTime = opRowsByGpuTime(pairs->backward);
    std::vector<uint8_t> seen(t.strings.size() + 1, 0);
    for (uint32_t o = 0; o < t.ops.size(); ++o)
        if (const StringId layer = t.ops.layer[o]; layer.valid() && !seen[layer.value]++)
            d->layers.emplace_back(t.str(layer));
    std::sort(d->layers.begin(), d->layers.end());
    d->byLayer = fwdBwdByLayer(t);
    d->byOpType = fwdBwdByOpType(t, *pairs);
    d->pairs = std::move(pairs);
    return d;
}

} // namespace ls
