#pragma once
// Colours of the timeline and its legend: by kernel class, by direction, by name (layers and
// NVTX ranges get a stable colour from their string id).
#include "core/costs/kernel_class.h"

#include <QColor>
#include <QString>

namespace ls::gui {

QColor kernelClassColor(KernelClass c);
// The legends' short name of a class ("TC GEMM", "Triton", …).
QString kernelClassShortName(KernelClass c);
QColor directionColor(Direction d);
QColor memcpyColor(CopyKind k);
QColor nameColor(uint32_t stringId);

} // namespace ls::gui
