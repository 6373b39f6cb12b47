// The GPU memory lane: a device's allocated memory as a filled step chart and its reserved memory
// (where the trace records it) as a line over it, both to one scale, the lane's highest total.
#include "core/present/memory_lane.h"
#include "widgets/timeline/timeline_layout.h"
#include "widgets/timeline/timeline_painter.h"
#include "widgets/util/units.h"

#include <QPainter>
#include <QPainterPath>

namespace ls::gui {

using namespace timeline;

void TimelinePainter::paintMemoryLane(QPainter& p, const Row& row, int y, const QSize& size,
                                      const TimeWindow& own) const {
    const auto& lane = rows_.laneAt(row.index);
    const uint32_t slot = rows_.laneSlot(row.index);
    const TimelineData& data = rows_.slotData(slot);
    const Trace& t = *data.trace;
    const MemoryLaneScale scale = data.memoryScale[row.index - rows_.laneBase(slot)];
    if (scale.top() == 0) return;
    TimeWindow w = own;
    w.widthPx = std::max(1, size.width() - kHeaderWidth);
    const auto columns = memoryLaneColumns(t, lane, w);
    const double bottom = y + row.height - 1, height = row.height - 4;
    auto yOf = [&](uint64_t v) {
        return bottom - height * static_cast<double>(v) / static_cast<double>(scale.top());
    };
    QPainterPath allocated, reserved;
    bool reservedOpen = false;
    for (const auto& c : columns) {
        const double x0 = c.x + kHeaderWidth, x1 = x0 + 1;
        if (&c == &columns.front()) allocated.moveTo(x0, bottom);
        allocated.lineTo(x0, yOf(c.allocated));
        allocated.lineTo(x1, yOf(c.allocated));
        if (c.reserved == kNoMemoryTotal) {
            reservedOpen = false;
            continue;
        }
        if (!reservedOpen) reserved.moveTo(x0, yOf(c.reserved));
        reserved.lineTo(x0, yOf(c.reserved));
        reserved.lineTo(x1, yOf(c.reserved));
        reservedOpen = true;
    }
    if (!columns.empty()) {
        allocated.lineTo(columns.back().x + kHeaderWidth + 1, bottom);
        allocated.closeSubpath();
    }
    p.save();
    p.setClipRect(QRect(kHeaderWidth, y, size.width() - kHeaderWidth, row.height));
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0x6a, 0x4c, 0x93, 150));
    p.drawPath(allocated);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(0xc0, 0x6a, 0x2b), 1.2));
    p.drawPath(reserved);
    // The scale: the highest total at the lane's top left.
    p.setPen(QColor(0x33, 0x33, 0x33));
    QString top =
        QStringLiteral("peak %1 allocated").arg(formatBytes(static_cast<double>(scale.allocated)));
    if (scale.reserved)
        top += QStringLiteral(" · %1 reserved").arg(formatBytes(double(scale.reserved)));
    p.drawText(QRect(kHeaderWidth + 4, y + 1, size.width() - kHeaderWidth - 8, kLaneHeight),
               Qt::AlignTop | Qt::AlignLeft, top);
    p.restore();
}

} // namespace ls::gui
