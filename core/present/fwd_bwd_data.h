#pragma once
// What the Forward/Backward tab shows of a trace, computed off the GUI thread (a million kernels'
// op rows and ratio tables take a quarter of a second): the pairs, each side's rows costliest
// first, the layers to pick from and the backward/forward ratio tables.
#include "core/views/fwd_bwd.h"

#include <memory>
#include <string>
#include <vector>

namespace ls {

struct FwdBwdData {
    std::shared_ptr<const FwdBwdPairs> pairs;
    std::vector<uint32_t> forwardByTime, backwardByTime; // each side's rows, costliest first
    std::vector<std::string> layers;                     // the ops' layers, sorted
    std::vector<FwdBwdRatioRow> byLayer, byOpType;
};
std::shared_ptr<const FwdBwdData> buildFwdBwdData(const Trace& t,
                                                  std::shared_ptr<const FwdBwdPairs> pairs);

// Rows by GPU time, costliest first, ties in their order: the order the tab's op tables start in.
std::vector<uint32_t> opRowsByGpuTime(const std::vector<OpSideRow>& rows);

} // namespace ls
