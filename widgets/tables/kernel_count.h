#pragma once
// The kernel table's count label: "26 of 414 kernels · 9.18 ms GPU time". With the GPU time of
// the rows shown (filter and scope applied), "which rank spends more time in NCCL" or "how much
// of the optimizer is one op" is read off the filter bar instead of being added up by hand
// (usability test, docs/usability.md). Time is the sum of the shown kernels' durations, as the
// layer tree's and `layer_sum`'s GPU time is.
#include "core/model/ids.h"

#include <QString>
#include <cmath>
#include <vector>

namespace ls {
class SessionKernelTable;
}

namespace ls::gui {

double shownGpuTimeNs(const SessionKernelTable& table, const std::vector<KernelId>& rows);
// The same over every row of the table.
double allGpuTimeNs(const SessionKernelTable& table);
// gpuTimeNs: shownGpuTimeNs of the rows when the caller has it (NaN: compute it).
QString kernelCountText(const SessionKernelTable* table, const std::vector<KernelId>& rows,
                        double gpuTimeNs = NAN);

} // namespace ls::gui
