// Painting what only a session of several ranks has: the rank headers (a collapsed rank shows its
// kernels as one strip) and the selected collective linked across the ranks that ran it.
#include "widgets/timeline/timeline_layout.h"
#include "widgets/timeline/timeline_painter.h"
#include "widgets/util/units.h"

#include <QPainter>
#include <algorithm>

namespace ls::gui {

using namespace timeline;

void TimelinePainter::paintRankHeader(QPainter& p, const Row& row, int y, const QSize& size,
                                      const TimeWindow& w) const {
    const TimelineRankSection& section = rows_.session()->sections[row.index];
    const bool collapsed = rows_.sectionCollapsed(row.index);
    const bool shown = section.trace == rows_.slotTrace(0);
    p.fillRect(QRect(0, y, size.width(), row.height),
               shown ? QColor(0xc9, 0xd6, 0xea) : QColor(0xd9, 0xdd, 0xe4));
    p.setPen(QColor(0x9a, 0xa4, 0xb4));
    p.drawLine(0, y, size.width(), y);
    QFont bold = p.font();
    bold.setBold(true);
    p.save();
    p.setFont(bold);
    p.setPen(QColor(0x10, 0x18, 0x30));
    const QString label = (collapsed ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) +
                          qstr(section.label) +
                          (shown ? (marks_.everyRankInTable ? QStringLiteral(" (in the panes)")
                                                            : QStringLiteral(" (in the table)"))
                                 : QString());
    const int labelWidth = collapsed ? kHeaderWidth - 8 : size.width() - 8;
    p.drawText(QRect(4, y, labelWidth, row.height), Qt::AlignVCenter | Qt::AlignLeft,
               QFontMetrics(bold).elidedText(label, Qt::ElideRight, labelWidth));
    p.restore();
    if (!collapsed) return;
    // Collapsed: the rank's kernels, every stream folded into one strip.
    std::vector<TimelineBar> bars;
    for (uint32_t l : rows_.sectionKernelLanes(row.index)) {
        const auto& lane = rows_.laneAt(l);
        const uint32_t slot = rows_.laneSlot(l);
        TimeWindow own = w;
        own.startNs -= rows_.shift(slot);
        bars.clear();
        foldLane(*rows_.slotData(slot).trace, lane, own, bars);
        for (const auto& b : bars) {
            const double x0 = std::max(0.0, b.x0), x1 = std::min<double>(w.widthPx, b.x1);
            if (x1 <= x0) continue;
            QColor c = colorOf(slot, lane.kind, lane.events[b.first]);
            if (b.count > 1) c = c.darker(125);
            p.fillRect(QRectF(x0 + kHeaderWidth, y + 5, std::max(1.0, x1 - x0), row.height - 10),
                       c);
        }
    }
}

// The selected kernel's collective: every rank's kernel of it outlined, joined by a line through
// their starts, and the skew and the last rank written beside the selected one.
void TimelinePainter::paintCollective(QPainter& p, const QSize& size, const TimeWindow& w) const {
    const MatchedCollective* c = rows_.collectiveOf(marks_.selectedSlot, marks_.selected);
    if (!c || c->members.size() < 2) return;
    const SessionTimeline& session = *rows_.session();
    const TimeNs shownOffset = session.offset[rows_.slotTrace(0)];
    std::vector<QPointF> starts;
    QPointF label(-1,
                  -1); // beside the selected kernel: the one the user looks at
    for (const CollectiveMember& m : c->members) {
        if (m.rank >= session.sections.size()) continue;
        const TimelineRankSection& section = session.sections[m.rank];
        const auto slot = rows_.slotOfTrace(section.trace);
        if (!slot) continue;
        const double x0 = w.toX(static_cast<double>(m.start - shownOffset)) + kHeaderWidth;
        const double x1 = w.toX(static_cast<double>(m.end - shownOffset)) + kHeaderWidth;
        int top = laneTop(rows_.kernelLane(*slot, m.kernel));
        int height = kLaneHeight;
        if (top < 0) { // its rank is collapsed: the rank header stands in
            if (const Row* r = rows_.rankRow(m.rank)) {
                top = kTop + r->y - scroll_;
                height = r->height;
            }
        }
        if (top < 0) continue;
        p.setPen(QPen(QColor(0x00, 0x8c, 0x8c), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(x0, top + 1, std::max(3.0, x1 - x0), height - 2));
        starts.emplace_back(x0, top + height / 2.0);
        if (m.kernel == marks_.selected && section.trace == rows_.slotTrace(marks_.selectedSlot))
            label = starts.back();
    }
    if (starts.size() < 2) return;
    std::sort(starts.begin(), starts.end(),
              [](const QPointF& a, const QPointF& b) { return a.y() < b.y(); });
    p.setPen(QPen(QColor(0x00, 0x8c, 0x8c), 1.5, Qt::DashLine));
    p.drawPolyline(starts.data(), static_cast<int>(starts.size()));
    const QString text = QStringLiteral("%1 #%2 · %3 ranks · skew %4 · last: rank %5")
                             .arg(qstr(collectiveName(c->type)))
                             .arg(c->sequence)
                             .arg(c->members.size())
                             .arg(formatDuration(static_cast<double>(c->skew())))
                             .arg(c->lastRank);
    const QFontMetrics fm(p.font());
    const QPointF at = label.x() >= 0 ? label : starts.front();
    QRectF box(at.x() + 6, at.y() - 24, fm.horizontalAdvance(text) + 10, 18);
    box.moveLeft(std::clamp(box.left(), static_cast<double>(kHeaderWidth),
                            std::max<double>(kHeaderWidth, size.width() - box.width())));
    box.moveTop(std::max<double>(kTop, box.top()));
    p.fillRect(box, QColor(255, 255, 255, 235));
    p.setPen(QColor(0x00, 0x5a, 0x5a));
    p.drawText(box, Qt::AlignCenter, text);
}

} // namespace ls::gui
