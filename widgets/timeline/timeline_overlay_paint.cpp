// Painting what the user marked over the lanes: highlighted kernels, a range's GPU projection, the
// selected kernel with its launch arrow and counterpart links, the measured range.
#include "widgets/timeline/timeline_layout.h"
#include "widgets/timeline/timeline_painter.h"
#include "widgets/util/units.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace ls::gui {

using namespace timeline;

void TimelinePainter::paintOverlays(QPainter& p, const QSize& size, const TimeWindow& w) const {
    p.save();
    p.setClipRect(QRect(kHeaderWidth, kTop, size.width() - kHeaderWidth, size.height() - kTop));
    paintHighlights(p, w);
    // A clicked range's GPU projection: a band over the GPU rows.
    if (marks_.projection) {
        const double x0 = w.toX(marks_.projection->first) + kHeaderWidth,
                     x1 = w.toX(marks_.projection->second) + kHeaderWidth;
        for (const Row& row : rows_.rows())
            if (!row.header() && rows_.groupAt(rows_.groupOfLane(row.index)).gpu) {
                const int top = kTop + row.y - scroll_;
                p.fillRect(QRectF(x0, top, std::max(1.0, x1 - x0), row.height),
                           QColor(0xff, 0x8c, 0x00, 45));
            }
    }
    paintLinks(p, w);
    paintCollective(p, size, w);
    paintSelected(p, w);
    paintMeasure(p, size, w);
    p.restore();
}

// Highlighted kernels: an outline per pixel column they occupy.
void TimelinePainter::paintHighlights(QPainter& p, const TimeWindow& w) const {
    p.setPen(QPen(QColor(0xff, 0x8c, 0x00), 2));
    p.setBrush(Qt::NoBrush);
    const auto& byLane = marks_.highlightByLane;
    for (uint32_t lane = 0; lane < byLane.size(); ++lane) {
        const auto& list = byLane[lane];
        const int top = laneTop(lane);
        if (list.empty() || top < 0) continue;
        const uint32_t slot = rows_.laneSlot(lane);
        const auto& kern = rows_.slotData(slot).trace->kernels; // on the view's clock:
        const double shift = rows_.shift(slot);
        auto it = std::partition_point(list.begin(), list.end(), [&](KernelId k) {
            return static_cast<double>(kern.end[k.value]) + shift <= w.startNs;
        });
        double lastX = -1e9;
        for (; it != list.end() && static_cast<double>(kern.start[it->value]) + shift < w.endNs();
             ++it) {
            const double x0 =
                w.toX(static_cast<double>(kern.start[it->value]) + shift) + kHeaderWidth;
            const double x1 =
                w.toX(static_cast<double>(kern.end[it->value]) + shift) + kHeaderWidth;
            if (x1 < lastX + 1) continue;
            p.drawRect(QRectF(x0, top + 1, std::max(2.0, x1 - x0), kLaneHeight - 2));
            lastX = x1;
        }
    }
}

// The selected kernel, and an arrow from its launch call.
void TimelinePainter::paintSelected(QPainter& p, const TimeWindow& w) const {
    const KernelId selected = marks_.selected;
    const uint32_t slot = marks_.selectedSlot;
    if (!selected.valid() || slot >= rows_.slotCount()) return;
    const TimelineData& data = rows_.slotData(slot);
    const Trace& st = *data.trace;
    const double shift = rows_.shift(slot);
    const auto point = kernelPoint(selected, slot, w.widthPx);
    if (point) {
        const double x0 =
            w.toX(static_cast<double>(st.kernels.start[selected.value]) + shift) + kHeaderWidth;
        const double x1 =
            w.toX(static_cast<double>(st.kernels.end[selected.value]) + shift) + kHeaderWidth;
        p.setPen(QPen(Qt::black, 2));
        p.drawRect(QRectF(x0, point->y() - kLaneHeight / 2.0, std::max(3.0, x1 - x0), kLaneHeight));
    }
    const ApiCallId call = st.kernels.launch[selected.value];
    const uint32_t apiLane = call.valid() ? data.apiLane[call.value] : UINT32_MAX;
    if (apiLane == UINT32_MAX || !point) return;
    const int top = laneTop(rows_.laneBase(slot) + apiLane);
    if (top < 0) return;
    const QPointF from(w.toX(static_cast<double>(st.apiCalls.start[call.value]) + shift) +
                           kHeaderWidth,
                       top + kLaneHeight / 2.0);
    // A graph launch fans out: a light arrow to each of its other GPU items on screen, the
    // selected one's drawn last and strong.
    const auto [first, last] = st.apiKernels.of(call);
    if (last - first > 1) {
        const QColor fan(0xc0, 0x20, 0x20, 90);
        int drawn = 0;
        for (const KernelId* k = first; k != last && drawn < kMaxFanArrows; ++k) {
            if (*k == selected) continue;
            if (const auto to = kernelPoint(*k, slot, w.widthPx)) {
                drawArrow(p, from, *to, fan, 1.0);
                ++drawn;
            }
        }
    }
    drawArrow(p, from, *point, QColor(0xc0, 0x20, 0x20), 1.5);
}

void TimelinePainter::drawArrow(QPainter& p, const QPointF& from, const QPointF& to,
                                const QColor& color, double width) {
    p.setPen(QPen(color, width));
    p.drawLine(from, to);
    const QPointF d = to - from;
    const double len = std::hypot(d.x(), d.y());
    if (len <= 1) return;
    const QPointF u = d / len, n(-u.y(), u.x());
    QPainterPath head;
    head.moveTo(to);
    head.lineTo(to - u * 8 + n * 4);
    head.lineTo(to - u * 8 - n * 4);
    head.closeSubpath();
    p.fillPath(head, color);
}

// A measured time range: its duration and the GPU work inside.
void TimelinePainter::paintMeasure(QPainter& p, const QSize& size, const TimeWindow& w) const {
    if (!marks_.measure) return;
    const auto& [from, to] = *marks_.measure;
    const double x0 = w.toX(from) + kHeaderWidth, x1 = w.toX(to) + kHeaderWidth;
    p.fillRect(QRectF(x0, kTop, x1 - x0, size.height() - kTop), QColor(0x30, 0x60, 0xc0, 40));
    const QString text = QStringLiteral("%1 · %L2 kernels · GPU time %3")
                             .arg(formatDuration(to - from))
                             .arg(marks_.measuredKernels)
                             .arg(formatDuration(marks_.measuredGpuNs));
    const QRectF box(std::max<double>(x0, kHeaderWidth) + 4, kTop + 4,
                     QFontMetrics(p.font()).horizontalAdvance(text) + 12, 20);
    p.fillRect(box, QColor(255, 255, 255, 230));
    p.setPen(QColor(0x10, 0x30, 0x80));
    p.drawText(box, Qt::AlignCenter, text);
}

// The selected kernel's counterparts (forward <-> backward): dashed outlines, and a line from the
// selected kernel to each of them (at most a few dozen: one op's kernels).
void TimelinePainter::paintLinks(QPainter& p, const TimeWindow& w) const {
    if (marks_.linked.empty() || !marks_.selected.valid() || marks_.selectedSlot != 0) return;
    const Trace& t = *rows_.data()->trace;
    const auto from = kernelPoint(marks_.selected, 0, w.widthPx);
    p.setPen(QPen(QColor(0x80, 0x30, 0xc0), 1.5, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    for (KernelId k : marks_.linked) {
        const auto to = kernelPoint(k, 0, w.widthPx);
        if (!to) continue;
        const double x0 = w.toX(static_cast<double>(t.kernels.start[k.value])) + kHeaderWidth;
        const double x1 = w.toX(static_cast<double>(t.kernels.end[k.value])) + kHeaderWidth;
        p.drawRect(
            QRectF(x0, to->y() - kLaneHeight / 2.0 + 1, std::max(3.0, x1 - x0), kLaneHeight - 2));
        if (from) {
            QPainterPath arc(*from);
            const double lift = std::min(60.0, std::abs(to->x() - from->x()) / 4 + 10);
            arc.cubicTo(*from - QPointF(0, lift), *to - QPointF(0, lift), *to);
            p.drawPath(arc);
        }
    }
}

} // namespace ls::gui
