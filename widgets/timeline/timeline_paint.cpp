// Painting the timeline: lanes folded per pixel and filled in batches by colour, ruler, minimap,
// highlights, the selected kernel with its launch arrow and counterpart links, the measured range.
#include "core/present/time_ruler.h"
#include "widgets/timeline/timeline_layout.h"
#include "widgets/timeline/timeline_palette.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/util/units.h"

#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace ls::gui {

using namespace timeline;

QColor TimelineView::colorOf(uint32_t part, TimelineEventKind kind, uint32_t id) const {
    const Trace& t = *parts_[part]->trace;
    switch (kind) {
    case TimelineEventKind::Kernel:
        switch (colorMode_) {
        case ColorMode::KernelClass:
            return kernelClassColor(parts_[part]->kernelClass[id]);
        case ColorMode::Direction:
            return directionColor(t.kernelLinks.direction[id]);
        case ColorMode::Layer:
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
    }
    return Qt::gray;
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter p(viewport());
    paintContent(p, viewport()->size());
}

void TimelineView::paintContent(QPainter& p, const QSize& size) const {
    p.fillRect(QRect(QPoint(0, 0), size), QColor(0xfa, 0xfa, 0xfa));
    if (!data_) {
        p.setPen(QColor(0x66, 0x66, 0x66));
        p.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter,
                   QStringLiteral("Open a trace to see its timeline."));
        return;
    }
    const TimeWindow w = laneWindow(std::max(1, size.width() - kHeaderWidth));
    paintLanes(p, size, w);
    paintOverlays(p, size, w);
    p.fillRect(QRect(0, 0, size.width(), kTop), QColor(0xf0, 0xf0, 0xf0));
    paintMinimap(p, QRect(kHeaderWidth, 0, size.width() - kHeaderWidth, kMinimapHeight), w);
    paintRuler(p, QRect(kHeaderWidth, kMinimapHeight, size.width() - kHeaderWidth, kRulerHeight),
               w);
    p.setPen(QColor(0x55, 0x55, 0x55));
    p.drawText(QRect(6, 0, kHeaderWidth - 8, kTop), Qt::AlignVCenter | Qt::AlignLeft,
               QStringLiteral("%1 visible").arg(formatDuration(w.endNs() - w.startNs)));
}

// GPU busy time over the whole span: per pixel, the busiest of the parts' buckets under it,
// computed once per width (a session has a part per rank).
void TimelineView::paintMinimap(QPainter& p, const QRect& r, const TimeWindow& w) const {
    const double span = std::max(1.0, spanEnd_ - spanStart_);
    if (minimapWidth_ != r.width()) {
        minimapWidth_ = r.width();
        minimap_.assign(static_cast<size_t>(std::max(0, r.width())), 0.f);
        minimapPeak_ = 1.f;
        for (uint32_t part = 0; part < parts_.size(); ++part) {
            const auto& busy = parts_[part]->busy;
            const auto& tracks = parts_[part]->tracks;
            const double from = static_cast<double>(tracks.start) + shift_[part];
            const double bucket = std::max(1.0, static_cast<double>(tracks.end - tracks.start)) /
                                  std::max<size_t>(1, busy.size());
            for (float b : busy) minimapPeak_ = std::max(minimapPeak_, b);
            for (int x = 0; x < r.width(); ++x) {
                const double t0 = spanStart_ + span * x / r.width() - from,
                             t1 = spanStart_ + span * (x + 1) / r.width() - from;
                if (t1 <= 0 || t0 >= bucket * static_cast<double>(busy.size())) continue;
                const auto first = static_cast<size_t>(std::max(0.0, t0 / bucket));
                const auto last =
                    std::min(busy.size(),
                             std::max(first + 1, static_cast<size_t>(std::max(0.0, t1 / bucket))));
                float& v = minimap_[static_cast<size_t>(x)];
                for (size_t i = first; i < last; ++i) v = std::max(v, busy[i]);
            }
        }
    }
    const auto& column = minimap_;
    const float peak = minimapPeak_;
    const QColor fill(0x3b, 0x6e, 0xa8);
    for (int x = 0; x < r.width(); ++x) {
        const int h =
            static_cast<int>(std::lround((r.height() - 4) * column[static_cast<size_t>(x)] / peak));
        if (h > 0) p.fillRect(r.left() + x, r.bottom() - 1 - h, 1, h, fill);
    }
    const double x0 = (w.startNs - spanStart_) / span * r.width();
    const double x1 = (w.endNs() - spanStart_) / span * r.width();
    p.setPen(QColor(0xd0, 0x40, 0x20));
    p.setBrush(QColor(0xd0, 0x40, 0x20, 40));
    p.drawRect(QRectF(r.left() + std::max(0.0, x0), r.top() + 1,
                      std::max(2.0, std::min<double>(r.width(), x1) - std::max(0.0, x0)),
                      r.height() - 3));
    p.setBrush(Qt::NoBrush);
}

void TimelineView::paintRuler(QPainter& p, const QRect& r, const TimeWindow& w) const {
    // Ticks at least 90 px apart, labelled from the capture start (core/present/time_ruler.h).
    const double origin = spanStart_; // the earliest capture start of the shown traces
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

void TimelineView::paintLanes(QPainter& p, const QSize& size, const TimeWindow& w) const {
    const int scroll = verticalScrollBar()->value();
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
    for (const Row& row : rows_) {
        const int y = kTop + row.y - scroll;
        if (y + row.height < kTop || y > size.height()) continue;
        if (row.kind == RowKind::Rank) {
            paintRankHeader(p, row, y, size, w);
            continue;
        }
        const int indent = sectioned() ? 12 : 0;
        if (row.kind == RowKind::Group) {
            const auto& g = groupAt(row.index);
            p.fillRect(QRect(0, y, size.width(), row.height),
                       g.gpu ? QColor(0xe6, 0xee, 0xe6) : QColor(0xe6, 0xea, 0xf2));
            p.setPen(QColor(0x22, 0x22, 0x22));
            const QString arrow =
                collapsed_[row.index] ? QStringLiteral("▸ ") : QStringLiteral("▾ ");
            p.drawText(QRect(4 + indent, y, size.width() - 8 - indent, row.height),
                       Qt::AlignVCenter | Qt::AlignLeft, arrow + qstr(g.label));
            continue;
        }
        const auto& lane = laneAt(row.index);
        const uint32_t part = lanePart_[row.index];
        const Trace& t = *parts_[part]->trace;
        // PyTorch profiler traces have no NVTX: their range lanes hold CPU ops and annotations.
        const bool rangesAreOps = t.info.format.starts_with("PyTorch profiler");
        static const char* const kindNames[] = {"NVTX", "CUDA API", "Kernels", "Memcpy", "Memset"};
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
        TimeWindow own = w; // the part's own clock: same pixels
        own.startNs -= shift_[part];
        foldLane(t, lane, own, bars);
        for (const auto& b : bars) {
            const double x0 = std::max(-2.0, b.x0) + kHeaderWidth,
                         x1 = std::min<double>(size.width() + 2, b.x1 + kHeaderWidth);
            if (x1 < kHeaderWidth) continue;
            const QRectF rect(std::max<double>(x0, kHeaderWidth), y + 2,
                              std::max(1.0, x1 - std::max<double>(x0, kHeaderWidth)),
                              row.height - 4);
            QColor c = colorOf(part, lane.kind, lane.events[b.first]);
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
                    text = parts_[part]->kernelLabels->of(id);
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

void TimelineView::paintOverlays(QPainter& p, const QSize& size, const TimeWindow& w) const {
    p.save();
    p.setClipRect(QRect(kHeaderWidth, kTop, size.width() - kHeaderWidth, size.height() - kTop));
    // Highlighted kernels: an outline per pixel column they occupy.
    p.setPen(QPen(QColor(0xff, 0x8c, 0x00), 2));
    p.setBrush(Qt::NoBrush);
    for (uint32_t lane = 0; lane < highlightByLane_.size(); ++lane) {
        const auto& list = highlightByLane_[lane];
        const int top = laneTop(lane);
        if (list.empty() || top < 0) continue;
        const auto& kern =
            parts_[lanePart_[lane]]->trace->kernels; // the lane's trace, on the view's clock
        const double shift = shift_[lanePart_[lane]];
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
    // A clicked range's GPU projection: a band over the GPU rows.
    if (projection_) {
        const double x0 = w.toX(projection_->first) + kHeaderWidth,
                     x1 = w.toX(projection_->second) + kHeaderWidth;
        for (const Row& row : rows_)
            if (!row.header() &&
                groupAt(groupBase_[lanePart_[row.index]] + laneAt(row.index).group).gpu) {
                const int top = kTop + row.y - verticalScrollBar()->value();
                p.fillRect(QRectF(x0, top, std::max(1.0, x1 - x0), row.height),
                           QColor(0xff, 0x8c, 0x00, 45));
            }
    }
    paintLinks(p, w);
    paintCollective(p, size, w);
    // The selected kernel, and an arrow from its launch call.
    if (selected_.valid()) {
        const Trace& st = *parts_[selectedPart_]->trace;
        const double shift = shift_[selectedPart_];
        const auto point = kernelPoint(selected_, selectedPart_);
        if (point) {
            const double x0 =
                w.toX(static_cast<double>(st.kernels.start[selected_.value]) + shift) +
                kHeaderWidth;
            const double x1 =
                w.toX(static_cast<double>(st.kernels.end[selected_.value]) + shift) + kHeaderWidth;
            p.setPen(QPen(Qt::black, 2));
            p.drawRect(
                QRectF(x0, point->y() - kLaneHeight / 2.0, std::max(3.0, x1 - x0), kLaneHeight));
        }
        const ApiCallId call = st.kernels.launch[selected_.value];
        const uint32_t apiLane =
            call.valid() ? parts_[selectedPart_]->apiLane[call.value] : UINT32_MAX;
        if (apiLane != UINT32_MAX && point) {
            const int top = laneTop(laneBase_[selectedPart_] + apiLane);
            if (top >= 0) {
                const QPointF from(
                    w.toX(static_cast<double>(st.apiCalls.start[call.value]) + shift) +
                        kHeaderWidth,
                    top + kLaneHeight / 2.0);
                p.setPen(QPen(QColor(0xc0, 0x20, 0x20), 1.5));
                p.drawLine(from, *point);
                const QPointF d = *point - from;
                const double len = std::hypot(d.x(), d.y());
                if (len > 1) {
                    const QPointF u = d / len, n(-u.y(), u.x());
                    QPainterPath head;
                    head.moveTo(*point);
                    head.lineTo(*point - u * 8 + n * 4);
                    head.lineTo(*point - u * 8 - n * 4);
                    head.closeSubpath();
                    p.fillPath(head, QColor(0xc0, 0x20, 0x20));
                }
            }
        }
    }
    // A measured time range: its duration and the GPU work inside.
    if (measure_) {
        const double x0 = w.toX(measure_->first) + kHeaderWidth,
                     x1 = w.toX(measure_->second) + kHeaderWidth;
        p.fillRect(QRectF(x0, kTop, x1 - x0, size.height() - kTop), QColor(0x30, 0x60, 0xc0, 40));
        const QString text = QStringLiteral("%1 · %L2 kernels · GPU time %3")
                                 .arg(formatDuration(measure_->second - measure_->first))
                                 .arg(measuredKernels_)
                                 .arg(formatDuration(measuredGpuNs_));
        const QRectF box(std::max<double>(x0, kHeaderWidth) + 4, kTop + 4,
                         QFontMetrics(p.font()).horizontalAdvance(text) + 12, 20);
        p.fillRect(box, QColor(255, 255, 255, 230));
        p.setPen(QColor(0x10, 0x30, 0x80));
        p.drawText(box, Qt::AlignCenter, text);
    }
    p.restore();
}

// The selected kernel's counterparts (forward <-> backward): dashed outlines, and a line from the
// selected kernel to each of them (at most a few dozen: one op's kernels).
void TimelineView::paintLinks(QPainter& p, const TimeWindow& w) const {
    if (linked_.empty() || !selected_.valid() || selectedPart_ != 0) return;
    const Trace& t = *data_->trace;
    const auto from = kernelPoint(selected_);
    p.setPen(QPen(QColor(0x80, 0x30, 0xc0), 1.5, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    for (KernelId k : linked_) {
        const auto to = kernelPoint(k);
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
