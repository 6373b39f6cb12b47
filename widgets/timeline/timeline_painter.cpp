// Painting the timeline: lanes folded per pixel and filled in batches by colour, the ruler, the
// minimap. The marks over the lanes are in timeline_overlay_paint.cpp, the rank headers and
// collectives in timeline_rank_paint.cpp.
#include "widgets/timeline/timeline_painter.h"

#include "core/present/time_ruler.h"
#include "widgets/timeline/timeline_layout.h"
#include "widgets/timeline/timeline_palette.h"
#include "widgets/util/units.h"

#include <QPainter>
#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace ls::gui {

using namespace timeline;

TimelinePainter::TimelinePainter(const TimelineRowModel& rows, const TimeAxis& axis,
                                 const TimelineMarks& marks, int scrollY)
    : rows_(rows), axis_(axis), marks_(marks), scroll_(scrollY) {}

int TimelinePainter::laneTop(uint32_t lane) const {
    const Row* row = rows_.laneRow(lane);
    return row ? kTop + row->y - scroll_ : -1;
}

std::optional<QPointF> TimelinePainter::kernelPoint(KernelId k, uint32_t slot,
                                                    int lanesWidth) const {
    if (!rows_.data() || !k.valid()) return std::nullopt;
    const int top = laneTop(rows_.kernelLane(slot, k));
    if (top < 0) return std::nullopt;
    const TimeWindow w = axis_.timeWindow(lanesWidth);
    const auto& kern = rows_.slotData(slot).trace->kernels;
    const double mid =
        (static_cast<double>(kern.start[k.value]) + static_cast<double>(kern.end[k.value])) / 2 +
        rows_.shift(slot);
    return QPointF(w.toX(mid) + kHeaderWidth, top + kLaneHeight / 2.0);
}

QColor TimelinePainter::colorOf(uint32_t slot, TimelineEventKind kind, uint32_t id) const {
    const TimelineData& d = rows_.slotData(slot);
    const Trace& t = *d.trace;
    switch (kind) {
    case TimelineEventKind::Kernel:
        switch (marks_.colorMode) {
        case TimelineColorMode::KernelClass:
            return kernelClassColor(d.kernelClass[id]);
        case TimelineColorMode::Direction:
            return directionColor(t.kernelLinks.direction[id]);
        case TimelineColorMode::Layer:
            return t.kernelLinks.layer[id].valid() ? nameColor(t.kernelLinks.layer[id].value)
                                                   : QColor(0xb0, 0xb0, 0xb0);
        }
        break;
    case TimelineEventKind::Range:
        return nameColor(t.ranges.name[id].value);
    case TimelineEventKind::ApiCall:
        return QColor(0x9a, 0xa5, 0xb1);
    case TimelineEventKind::Memcpy:
        return memcpyColor(t.memcpys.kind[id]);
    case TimelineEventKind::Memset:
        return QColor(0x8e, 0x6c, 0x4a);
    case TimelineEventKind::Memory:
        return QColor(0x6a, 0x4c, 0x93);
    }
    return Qt::gray;
}

void TimelinePainter::paint(QPainter& p, const QSize& size, TimelineMinimap& minimap) const {
    p.fillRect(QRect(QPoint(0, 0), size), QColor(0xfa, 0xfa, 0xfa));
    if (!rows_.data()) {
        p.setPen(QColor(0x66, 0x66, 0x66));
        p.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter,
                   QStringLiteral("Open a trace to see its timeline."));
        return;
    }
    const TimeWindow w = axis_.timeWindow(std::max(1, size.width() - kHeaderWidth));
    paintLanes(p, size, w);
    paintOverlays(p, size, w);
    p.fillRect(QRect(0, 0, size.width(), kTop), QColor(0xf0, 0xf0, 0xf0));
    paintMinimap(p, QRect(kHeaderWidth, 0, size.width() - kHeaderWidth, kMinimapHeight), w,
                 minimap);
    paintRuler(p, QRect(kHeaderWidth, kMinimapHeight, size.width() - kHeaderWidth, kRulerHeight),
               w);
    p.setPen(QColor(0x55, 0x55, 0x55));
    p.drawText(QRect(6, 0, kHeaderWidth - 8, kTop), Qt::AlignVCenter | Qt::AlignLeft,
               QStringLiteral("%1 visible").arg(formatDuration(w.endNs() - w.startNs)));
}

// GPU busy time over the whole span: per pixel, the busiest of the slots' buckets under it,
// computed once per width (a session has a slot per trace).
void TimelinePainter::paintMinimap(QPainter& p, const QRect& r, const TimeWindow& w,
                                   TimelineMinimap& minimap) const {
    const double spanStart = rows_.spanStart();
    const double span = std::max(1.0, rows_.spanEnd() - spanStart);
    if (minimap.width != r.width()) {
        minimap.width = r.width();
        minimap.busy.assign(static_cast<size_t>(std::max(0, r.width())), 0.f);
        minimap.peak = 1.f;
        for (uint32_t slot = 0; slot < rows_.slotCount(); ++slot) {
            const auto& busy = rows_.slotData(slot).busy;
            const auto& tracks = rows_.slotData(slot).tracks;
            const double from = static_cast<double>(tracks.start) + rows_.shift(slot);
            const double bucket = std::max(1.0, static_cast<double>(tracks.end - tracks.start)) /
                                  std::max<size_t>(1, busy.size());
            for (float b : busy) minimap.peak = std::max(minimap.peak, b);
            for (int x = 0; x < r.width(); ++x) {
                const double t0 = spanStart + span * x / r.width() - from,
                             t1 = spanStart + span * (x + 1) / r.width() - from;
                if (t1 <= 0 || t0 >= bucket * static_cast<double>(busy.size())) continue;
                const auto first = static_cast<size_t>(std::max(0.0, t0 / bucket));
                const auto last =
                    std::min(busy.size(),
                             std::max(first + 1, static_cast<size_t>(std::max(0.0, t1 / bucket))));
                float& v = minimap.busy[static_cast<size_t>(x)];
                for (size_t i = first; i < last; ++i) v = std::max(v, busy[i]);
            }
        }
    }
    const QColor fill(0x3b, 0x6e, 0xa8);
    for (int x = 0; x < r.width(); ++x) {
        const int h = static_cast<int>(
            std::lround((r.height() - 4) * minimap.busy[static_cast<size_t>(x)] / minimap.peak));
        if (h > 0) p.fillRect(r.left() + x, r.bottom() - 1 - h, 1, h, fill);
    }
    const double x0 = (w.startNs - spanStart) / span * r.width();
    const double x1 = (w.endNs() - spanStart) / span * r.width();
    p.setPen(QColor(0xd0, 0x40, 0x20));
    p.setBrush(QColor(0xd0, 0x40, 0x20, 40));
    p.drawRect(QRectF(r.left() + std::max(0.0, x0), r.top() + 1,
                      std::max(2.0, std::min<double>(r.width(), x1) - std::max(0.0, x0)),
                      r.height() - 3));
    p.setBrush(Qt::NoBrush);
}

void TimelinePainter::paintRuler(QPainter& p, const QRect& r, const TimeWindow& w) const {
    // Ticks at least 90 px apart, labelled from the capture start (core/present/time_ruler.h).
    const double origin = rows_.spanStart(); // the earliest capture start of the shown traces
    p.setPen(QColor(0x44, 0x44, 0x44));
    p.drawLine(r.left(), r.bottom(), r.right(), r.bottom());
    const RulerTicks ticks = rulerTicks(w.startNs, w.endNs(), w.nsPerPixel, origin, 90);
    for (double t : ticks.offsets) {
        const int x = r.left() + static_cast<int>(std::lround(w.toX(origin + t)));
        p.drawLine(x, r.bottom() - 5, x, r.bottom());
        p.drawText(QRect(x + 3, r.top(), 120, r.height() - 3), Qt::AlignLeft | Qt::AlignVCenter,
                   formatTick(t, ticks.stepNs));
    }
}

void TimelinePainter::paintLanes(QPainter& p, const QSize& size, const TimeWindow& w) const {
    const QFontMetrics fm(p.font());
    std::vector<TimelineBar> bars;
    // Rectangles batched by colour: one fill call per colour per frame.
    std::unordered_map<QRgb, std::vector<QRectF>> batches;
    struct Label {
        QRectF rect;
        QString text;
    };
    std::vector<Label> labels;
    p.save();
    p.setClipRect(QRect(0, kTop, size.width(), size.height() - kTop));
    const int indent = rows_.sectioned() ? 12 : 0;
    for (const Row& row : rows_.rows()) {
        const int y = kTop + row.y - scroll_;
        if (y + row.height < kTop || y > size.height()) continue;
        if (row.kind == TimelineRowModel::RowKind::Rank) {
            paintRankHeader(p, row, y, size, w);
            continue;
        }
        if (row.kind == TimelineRowModel::RowKind::Group) {
            const auto& g = rows_.groupAt(row.index);
            p.fillRect(QRect(0, y, size.width(), row.height),
                       g.gpu ? QColor(0xe6, 0xee, 0xe6) : QColor(0xe6, 0xea, 0xf2));
            p.setPen(QColor(0x22, 0x22, 0x22));
            const QString arrow =
                rows_.groupCollapsed(row.index) ? QStringLiteral("▸ ") : QStringLiteral("▾ ");
            p.drawText(QRect(4 + indent, y, size.width() - 8 - indent, row.height),
                       Qt::AlignVCenter | Qt::AlignLeft, arrow + qstr(g.label));
            continue;
        }
        const auto& lane = rows_.laneAt(row.index);
        const uint32_t slot = rows_.laneSlot(row.index);
        const TimelineData& data = rows_.slotData(slot);
        const Trace& t = *data.trace;
        // PyTorch profiler traces have no NVTX: their range lanes hold CPU ops and annotations.
        const bool rangesAreOps = t.info.format.starts_with("PyTorch profiler");
        static const char* const kindNames[] = {"NVTX",   "CUDA API", "Kernels",
                                                "Memcpy", "Memset",   "Memory"};
        p.setPen(QColor(0x55, 0x55, 0x55));
        QString name = QString::fromLatin1(kindNames[static_cast<int>(lane.kind)]);
        if (lane.kind == TimelineEventKind::Range && rangesAreOps) name = QStringLiteral("Ops");
        if (lane.kind == TimelineEventKind::Range)
            name += QStringLiteral(" %1").arg(lane.level);
        else if (lane.level > 0)
            name += QStringLiteral(" (%1)").arg(lane.level + 1);
        p.drawText(QRect(16 + indent, y, kHeaderWidth - 20 - indent, row.height),
                   Qt::AlignVCenter | Qt::AlignLeft, name);
        bars.clear();
        TimeWindow own = w; // the slot's own clock: same pixels
        own.startNs -= rows_.shift(slot);
        if (lane.kind == TimelineEventKind::Memory) {
            paintMemoryLane(p, row, y, size, own);
            continue;
        }
        foldLane(t, lane, own, bars);
        for (const auto& b : bars) {
            const double x0 = std::max(-2.0, b.x0) + kHeaderWidth,
                         x1 = std::min<double>(size.width() + 2, b.x1 + kHeaderWidth);
            if (x1 < kHeaderWidth) continue;
            const QRectF rect(std::max<double>(x0, kHeaderWidth), y + 2,
                              std::max(1.0, x1 - std::max<double>(x0, kHeaderWidth)),
                              row.height - 4);
            QColor c = colorOf(slot, lane.kind, lane.events[b.first]);
            if (b.count > 1) c = c.darker(125);
            // Touching bars of one colour in a row become one rectangle: far fewer fills when
            // zoomed out.
            auto& batch = batches[c.rgb()];
            if (!batch.empty() && batch.back().top() == rect.top() &&
                batch.back().right() >= rect.left() - 0.5)
                batch.back().setRight(std::max(batch.back().right(), rect.right()));
            else
                batch.push_back(rect);
            if (b.count == 1 && rect.width() > 40) {
                const uint32_t id = lane.events[b.first];
                std::string_view text;
                if (lane.kind == TimelineEventKind::Kernel)
                    text = data.kernelLabels->of(id);
                else if (lane.kind == TimelineEventKind::Range)
                    text = t.str(t.ranges.name[id]);
                else if (lane.kind == TimelineEventKind::ApiCall)
                    text = t.str(t.apiCalls.name[id]);
                if (!text.empty())
                    labels.push_back(Label{rect.adjusted(3, 0, -2, 0),
                                           fm.elidedText(qstr(text), Qt::ElideRight,
                                                         static_cast<int>(rect.width()) - 5)});
            }
        }
    }
    p.setPen(Qt::NoPen);
    for (const auto& [rgb, rects] : batches) {
        p.setBrush(QColor::fromRgb(rgb));
        p.drawRects(rects.data(), static_cast<int>(rects.size()));
    }
    p.setPen(QColor(0x10, 0x10, 0x10));
    for (const auto& l : labels) p.drawText(l.rect, Qt::AlignVCenter | Qt::AlignLeft, l.text);
    p.restore();
    p.setPen(QColor(0xcc, 0xcc, 0xcc));
    p.drawLine(kHeaderWidth - 1, kTop, kHeaderWidth - 1, size.height());
}

} // namespace ls::gui
