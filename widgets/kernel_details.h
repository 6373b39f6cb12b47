#pragma once
// The details pane's text for one kernel: full name, launch call, NVTX stack, op with shapes and
// dtype, paired forward/backward op, launch configuration, FLOPs, bytes and Tensor Core verdict.
#include "core/kernel_table.h"

#include <QString>

namespace ls::gui {

QString kernelDetailsHtml(const KernelTable& table, KernelId k);

} // namespace ls::gui
