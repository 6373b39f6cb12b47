#pragma once
// The details pane's text for one kernel: full name, launch call, NVTX stack, op with shapes and
// dtype, paired forward/backward op, launch configuration, FLOPs, bytes and Tensor Core verdict.
#include "core/import/ncu/ncu_metrics.h"
#include "core/views/kernel_table.h"

#include <QString>

namespace ls::gui {

// ncu: imported Nsight Compute metrics, shown grouped by section when the kernel was measured.
QString kernelDetailsHtml(const KernelTable& table, KernelId k, const NcuMetrics* ncu = nullptr);

} // namespace ls::gui
