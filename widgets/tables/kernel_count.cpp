#include "widgets/tables/kernel_count.h"

#include "core/model/trace.h"
#include "core/views/session_kernel_table.h"
#include "widgets/util/units.h"

#include <cmath>

namespace ls::gui {

double shownGpuTimeNs(const SessionKernelTable& table, const std::vector<KernelId>& rows) {
    TimeNs sum = 0;
    if (table.traceCount() ==
        1) { // row ids are kernel ids: no lookup per row (a million rows per reset)
        const auto& k = table.table(0).trace().kernels;
        for (KernelId id : rows) sum += k.end[id.value] - k.start[id.value];
        return static_cast<double>(sum);
    }
    for (KernelId row : rows) {
        const auto& k = table.table(table.traceOf(row)).trace().kernels;
        const uint32_t id = table.localOf(row).value;
        sum += k.end[id] - k.start[id];
    }
    return static_cast<double>(sum);
}

double allGpuTimeNs(const SessionKernelTable& table) {
    TimeNs sum = 0;
    for (uint32_t p = 0; p < table.traceCount(); ++p) {
        const auto& k = table.table(p).trace().kernels;
        for (size_t i = 0; i < k.size(); ++i) sum += k.end[i] - k.start[i];
    }
    return static_cast<double>(sum);
}

QString kernelCountText(const SessionKernelTable* table, const std::vector<KernelId>& rows,
                        double gpuTimeNs) {
    const qsizetype total = table ? static_cast<qsizetype>(table->size()) : 0;
    QString text =
        QStringLiteral("%L1 of %L2 kernels").arg(static_cast<qsizetype>(rows.size())).arg(total);
    if (table && !rows.empty())
        text += QStringLiteral(" · %1 GPU time")
                    .arg(formatDuration(std::isnan(gpuTimeNs) ? shownGpuTimeNs(*table, rows)
                                                              : gpuTimeNs));
    return text;
}

} // namespace ls::gui
