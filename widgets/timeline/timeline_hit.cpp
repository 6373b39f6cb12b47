// What is under the cursor on the timeline: the event (or folded bar) a point hits, and its
// tooltip.
#include "core/present/memory_lane.h"
#include "widgets/timeline/timeline_layout.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/util/units.h"

#include <QScrollBar>
#include <cmath>

namespace ls::gui {

using namespace timeline;

namespace {

// The totals in force and the change that set them.
QString memoryTooltip(const Trace& t, uint32_t id, const QString& held) {
    const auto& m = t.memory;
    QString text = QStringLiteral("GPU %1 memory: %2 allocated")
                       .arg(m.device[id])
                       .arg(formatBytes(static_cast<double>(m.allocated[id])));
    if (m.reserved[id] != kNoMemoryTotal)
        text += QStringLiteral(" · %1 reserved").arg(formatBytes(double(m.reserved[id])));
    const int64_t b = m.bytes[id];
    const QString size = formatBytes(static_cast<double>(b >= 0 ? b : -b));
    const QString change =
        m.pool[id] == MemoryPool::Reserved
            ? QStringLiteral("the reserve %1 by %2")
                  .arg(b >= 0 ? QStringLiteral("grew") : QStringLiteral("shrank"), size)
            : QStringLiteral("%1 of %2")
                  .arg(b >= 0 ? QStringLiteral("an allocation") : QStringLiteral("a release"),
                       size);
    text += QStringLiteral("\nfor %1, since %2").arg(held, change);
    return text;
}

} // namespace

std::optional<TimelineView::Hit> TimelineView::hitAt(const QPoint& pos) const {
    if (!data() || pos.x() < kHeaderWidth || pos.y() < kTop) return std::nullopt;
    const Row* row = rows_.rowAt(pos.y() - kTop + verticalScrollBar()->value());
    if (!row || row->header()) return std::nullopt;
    const auto& lane = rows_.laneAt(row->index);
    const uint32_t slot = rows_.laneSlot(row->index);
    const Trace& t = *rows_.slotData(slot).trace;
    const double shift = rows_.shift(slot);
    TimeWindow w = window();
    w.startNs -= shift; // the slot's own clock
    const double time = w.toTime(pos.x() - kHeaderWidth);
    if (lane.kind == TimelineEventKind::Memory) { // a step chart: the totals in force there
        const int64_t i = memoryEventAt(t, lane, time);
        if (i < 0) return std::nullopt;
        const uint32_t id = lane.events[static_cast<size_t>(i)];
        const double s = static_cast<double>(t.memory.time[id]) + shift;
        const double e =
            static_cast<size_t>(i) + 1 < lane.events.size()
                ? static_cast<double>(t.memory.time[lane.events[size_t(i) + 1]]) + shift
                : static_cast<double>(t.captureEnd) + shift;
        return Hit{lane.kind, id, 1, s, e, e - s, slot};
    }
    // Within a folded bar the whole pixel column is the target.
    std::vector<TimelineBar> bars;
    TimeWindow column = w;
    column.startNs = w.toTime(std::floor(pos.x() - kHeaderWidth));
    column.widthPx = 1;
    foldLane(t, lane, column, bars);
    if (!bars.empty() && bars.front().count > 1) {
        const auto& b = bars.front();
        const uint32_t first = lane.events[b.first], last = lane.events[b.first + b.count - 1];
        double total = 0; // the events of one pixel column
        for (uint32_t i = b.first; i < b.first + b.count; ++i)
            total += static_cast<double>(eventEnd(t, lane.kind, lane.events[i]) -
                                         eventStart(t, lane.kind, lane.events[i]));
        return Hit{lane.kind,
                   first,
                   b.count,
                   static_cast<double>(eventStart(t, lane.kind, first)) + shift,
                   static_cast<double>(eventEnd(t, lane.kind, last)) + shift,
                   total,
                   slot};
    }
    const int64_t i = eventAt(t, lane, time, w.nsPerPixel * 2);
    if (i < 0) return std::nullopt;
    const uint32_t id = lane.events[static_cast<size_t>(i)];
    const double s = static_cast<double>(eventStart(t, lane.kind, id)) + shift,
                 e = static_cast<double>(eventEnd(t, lane.kind, id)) + shift;
    return Hit{lane.kind, id, 1, s, e, e - s, slot};
}

QString TimelineView::tooltipFor(const Hit& h) const {
    const TimelineData& data = rows_.slotData(h.slot);
    const Trace& t = *data.trace;
    if (h.count > 1) {
        static const char* const what[] = {"ranges",  "API calls", "kernels",
                                           "memcpys", "memsets",   "memory events"};
        return QStringLiteral("%L1 %2 folded here: %3 in all, spanning %4\nclick to zoom in")
            .arg(h.count)
            .arg(QString::fromLatin1(what[static_cast<int>(h.kind)]), formatDuration(h.totalNs),
                 formatDuration(h.toNs - h.fromNs));
    }
    const QString duration = formatDuration(h.toNs - h.fromNs);
    switch (h.kind) {
    case TimelineEventKind::Kernel: {
        const RangeId op = t.kernelLinks.op[h.id];
        QString peers;
        if (const MatchedCollective* c = rows_.collectiveOf(h.slot, KernelId(h.id)))
            peers = QStringLiteral("\n%1 #%2 on %3 ranks · skew %4 · last: rank %5")
                        .arg(qstr(collectiveName(c->type)))
                        .arg(c->sequence)
                        .arg(c->members.size())
                        .arg(formatDuration(static_cast<double>(c->skew())))
                        .arg(c->lastRank);
        return QStringLiteral("%1\n%2 · %3 · %4\nop %5 · layer %6 · Tensor Cores: %7%8")
            .arg(qstr(t.str(t.kernels.name[h.id])), duration,
                 qstr(kernelClassName(data.kernelClass[h.id])),
                 qstr(directionName(t.kernelLinks.direction[h.id])),
                 op.valid() ? qstr(t.str(t.ranges.name[op.value])) : QStringLiteral("–"),
                 t.kernelLinks.layer[h.id].valid() ? qstr(t.str(t.kernelLinks.layer[h.id]))
                                                   : QStringLiteral("–"),
                 qstr(tcStateName(t.metrics.tc[h.id])), peers);
    }
    case TimelineEventKind::Range:
        return QStringLiteral("%1\n%2 · click to show its kernels")
            .arg(qstr(t.str(t.ranges.name[h.id])), duration);
    case TimelineEventKind::ApiCall:
        return QStringLiteral("%1\n%2").arg(qstr(t.str(t.apiCalls.name[h.id])), duration);
    case TimelineEventKind::Memcpy:
        return QStringLiteral("memcpy %1 · %2 · %3")
            .arg(qstr(copyKindName(t.memcpys.kind[h.id])),
                 formatBytes(static_cast<double>(t.memcpys.bytes[h.id])), duration);
    case TimelineEventKind::Memset:
        return QStringLiteral("memset · %1 · %2")
            .arg(formatBytes(static_cast<double>(t.memsets.bytes[h.id])), duration);
    case TimelineEventKind::Memory:
        return memoryTooltip(t, h.id, duration);
    }
    return {};
}

} // namespace ls::gui
