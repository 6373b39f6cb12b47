#include "widgets/timeline/timeline_view.h"

#include "widgets/timeline/timeline_layout.h"
#include "widgets/units.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QNativeGestureEvent>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace ls::gui {

using namespace timeline;

TimelineView::TimelineView(QWidget* parent) : QAbstractScrollArea(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    viewport()->setMouseTracking(true);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    verticalScrollBar()->setSingleStep(kLaneHeight);
}

void TimelineView::setData(std::shared_ptr<const TimelineData> timeline) {
    data_ = std::move(timeline);
    highlight_.clear();
    highlightByLane_.clear();
    selected_ = KernelId();
    history_.clear();
    historyPos_ = 0;
    measure_.reset();
    const size_t groups = data_ ? data_->tracks.groups.size() : 0;
    collapsed_.assign(groups, 0);
    hidden_.assign(groups, 0);
    nvtxLevels_.assign(groups, UINT32_MAX);
    groupOrder_.resize(groups);
    for (uint32_t g = 0; g < groups; ++g) groupOrder_[g] = g;
    groupLanes_.assign(groups, {0, 0});
    if (data_) {
        const auto& lanes = data_->tracks.lanes;
        for (uint32_t l = 0; l < lanes.size(); ++l) {
            auto& range = groupLanes_[lanes[l].group];
            if (range.first == range.second) range.first = l;
            range.second = l + 1;
        }
    }
    layoutRows();
    fitAll();
}

void TimelineView::updateScrollBar() {
    const int total = rows_.empty() ? 0 : rows_.back().y + rows_.back().height;
    verticalScrollBar()->setRange(0, std::max(0, total - (viewport()->height() - kTop)));
    verticalScrollBar()->setPageStep(std::max(1, viewport()->height() - kTop));
}

int TimelineView::lanesWidth() const { return std::max(1, viewport()->width() - kHeaderWidth); }

TimeWindow TimelineView::laneWindow(int widthPx) const {
    TimeWindow w = window_;
    w.nsPerPixel = window_.nsPerPixel * window_.widthPx / std::max(1, widthPx);
    w.widthPx = widthPx;
    return w;
}

void TimelineView::setWindow(double fromNs, double toNs, bool record) {
    if (toNs <= fromNs) toNs = fromNs + 1;
    window_ = fitWindow(fromNs, toNs, lanesWidth());
    if (record) recordHistory();
    viewport()->update();
    emit windowChanged();
}

void TimelineView::recordHistory() {
    const std::pair<double, double> now{window_.startNs, window_.endNs()};
    if (!history_.empty() && history_[historyPos_] == now) return;
    if (!history_.empty()) history_.resize(historyPos_ + 1);
    history_.push_back(now);
    historyPos_ = history_.size() - 1;
}

// The measured range's kernel count and the GPU time inside it (kernels clipped to the range),
// from the lanes' events in the range only.
void TimelineView::setMeasure(double fromNs, double toNs) {
    measure_ = std::make_pair(fromNs, toNs);
    measuredKernels_ = 0;
    measuredGpuNs_ = 0;
    const Trace& t = *data_->trace;
    for (const auto& lane : data_->tracks.lanes) {
        if (lane.kind != TimelineEventKind::Kernel) continue;
        const auto [first, last] = eventRange(t, lane, fromNs, toNs);
        measuredKernels_ += last - first;
        for (size_t i = first; i < last; ++i) {
            const uint32_t id = lane.events[i];
            measuredGpuNs_ += std::min<double>(toNs, static_cast<double>(t.kernels.end[id])) -
                              std::max<double>(fromNs, static_cast<double>(t.kernels.start[id]));
        }
    }
    viewport()->update();
}

void TimelineView::fitAll() {
    if (!data_) return;
    const double span = static_cast<double>(data_->tracks.end - data_->tracks.start);
    setWindow(static_cast<double>(data_->tracks.start) - span * 0.01, static_cast<double>(data_->tracks.end) + span * 0.01);
}

void TimelineView::back() {
    if (historyPos_ == 0 || history_.empty()) return;
    --historyPos_;
    setWindow(history_[historyPos_].first, history_[historyPos_].second, false);
}

void TimelineView::forward() {
    if (historyPos_ + 1 >= history_.size()) return;
    ++historyPos_;
    setWindow(history_[historyPos_].first, history_[historyPos_].second, false);
}

void TimelineView::zoomBy(double factor, double atX) {
    window_ = zoomAt(window_, atX, factor);
    viewport()->update();
    emit windowChanged();
}

void TimelineView::panBy(double pixels) {
    window_.startNs += pixels * window_.nsPerPixel;
    viewport()->update();
    emit windowChanged();
}

void TimelineView::zoomToSelection() {
    if (measure_) return setWindow(measure_->first, measure_->second);
    if (!data_) return;
    const Trace& t = *data_->trace;
    std::vector<KernelId> set = highlight_;
    if (selected_.valid()) set = {selected_};
    if (set.empty()) return;
    TimeNs a = t.kernels.start[set.front().value], b = t.kernels.end[set.front().value];
    for (KernelId k : set) {
        a = std::min(a, t.kernels.start[k.value]);
        b = std::max(b, t.kernels.end[k.value]);
    }
    const double margin = std::max(1.0, static_cast<double>(b - a) * 0.1);
    setWindow(static_cast<double>(a) - margin, static_cast<double>(b) + margin);
}

void TimelineView::setHighlight(std::vector<KernelId> kernels, bool reveal) {
    highlight_ = std::move(kernels);
    highlightByLane_.assign(data_ ? data_->tracks.lanes.size() : 0, {});
    if (data_) {
        const auto& start = data_->trace->kernels.start;
        std::sort(highlight_.begin(), highlight_.end(), [&](KernelId a, KernelId b) { return start[a.value] < start[b.value]; });
        for (KernelId k : highlight_)
            if (data_->kernelLane[k.value] != UINT32_MAX) highlightByLane_[data_->kernelLane[k.value]].push_back(k);
    }
    if (reveal && !highlight_.empty()) {
        const KernelId keep = selected_;
        selected_ = KernelId();
        zoomToSelection();
        selected_ = keep;
        const int top = laneTop(data_->kernelLane[highlight_.front().value]);
        if (top >= 0 && (top < kTop || top > viewport()->height() - kLaneHeight))
            verticalScrollBar()->setValue(verticalScrollBar()->value() + top - kTop - kLaneHeight * 2);
    }
    viewport()->update();
}

void TimelineView::selectKernel(KernelId k, bool reveal) {
    selected_ = k;
    if (reveal && data_ && k.valid()) {
        const auto& kern = data_->trace->kernels;
        const double s = static_cast<double>(kern.start[k.value]), e = static_cast<double>(kern.end[k.value]);
        if (s < window_.startNs || e > window_.endNs()) { // off screen: centre it, zooming in if it would be sub-pixel
            const double span = std::min(window_.endNs() - window_.startNs, std::max(1000.0, (e - s) * 40));
            setWindow((s + e) / 2 - span / 2, (s + e) / 2 + span / 2);
        }
        const int top = laneTop(data_->kernelLane[k.value]);
        if (top >= 0 && (top < kTop || top > viewport()->height() - kLaneHeight))
            verticalScrollBar()->setValue(verticalScrollBar()->value() + top - viewport()->height() / 2);
    }
    viewport()->update();
}

void TimelineView::setLinked(std::vector<KernelId> kernels) {
    linked_ = std::move(kernels);
    viewport()->update();
}

void TimelineView::setProjection(std::optional<std::pair<double, double>> span) {
    projection_ = span;
    viewport()->update();
}

int TimelineView::laneTop(uint32_t lane) const {
    if (lane >= laneRow_.size() || laneRow_[lane] < 0) return -1;
    return kTop + rows_[static_cast<size_t>(laneRow_[lane])].y - verticalScrollBar()->value();
}

void TimelineView::setColorMode(ColorMode mode) {
    colorMode_ = mode;
    viewport()->update();
}

std::optional<QPointF> TimelineView::kernelPoint(KernelId k) const {
    if (!data_ || !k.valid()) return std::nullopt;
    const int top = laneTop(data_->kernelLane[k.value]);
    if (top < 0) return std::nullopt;
    const TimeWindow w = laneWindow(lanesWidth());
    const auto& kern = data_->trace->kernels;
    const double mid = (static_cast<double>(kern.start[k.value]) + static_cast<double>(kern.end[k.value])) / 2;
    return QPointF(w.toX(mid) + kHeaderWidth, top + kLaneHeight / 2.0);
}

std::optional<TimelineView::Hit> TimelineView::hitAt(const QPoint& pos) const {
    if (!data_ || pos.x() < kHeaderWidth || pos.y() < kTop) return std::nullopt;
    const int y = pos.y() - kTop + verticalScrollBar()->value();
    const auto row = std::partition_point(rows_.begin(), rows_.end(), [&](const Row& r) { return r.y + r.height <= y; });
    if (row == rows_.end() || row->header || y < row->y) return std::nullopt;
    const auto& lane = data_->tracks.lanes[row->index];
    const TimeWindow w = laneWindow(lanesWidth());
    const double time = w.toTime(pos.x() - kHeaderWidth);
    // Within a folded bar the whole pixel column is the target.
    std::vector<TimelineBar> bars;
    TimeWindow column = w;
    column.startNs = w.toTime(std::floor(pos.x() - kHeaderWidth));
    column.widthPx = 1;
    foldLane(*data_->trace, lane, column, bars);
    if (!bars.empty() && bars.front().count > 1) {
        const auto& b = bars.front();
        const uint32_t first = lane.events[b.first], last = lane.events[b.first + b.count - 1];
        double total = 0; // the events of one pixel column
        for (uint32_t i = b.first; i < b.first + b.count; ++i)
            total += static_cast<double>(eventEnd(*data_->trace, lane.kind, lane.events[i]) - eventStart(*data_->trace, lane.kind, lane.events[i]));
        return Hit{lane.kind, first, b.count, static_cast<double>(eventStart(*data_->trace, lane.kind, first)),
                   static_cast<double>(eventEnd(*data_->trace, lane.kind, last)), total};
    }
    const int64_t i = eventAt(*data_->trace, lane, time, w.nsPerPixel * 2);
    if (i < 0) return std::nullopt;
    const uint32_t id = lane.events[static_cast<size_t>(i)];
    const double s = static_cast<double>(eventStart(*data_->trace, lane.kind, id)), e = static_cast<double>(eventEnd(*data_->trace, lane.kind, id));
    return Hit{lane.kind, id, 1, s, e, e - s};
}

QString TimelineView::tooltipFor(const Hit& h) const {
    const Trace& t = *data_->trace;
    if (h.count > 1) {
        static const char* const what[] = {"ranges", "API calls", "kernels", "memcpys", "memsets"};
        return QStringLiteral("%L1 %2 folded here: %3 in all, spanning %4\nclick to zoom in")
            .arg(h.count)
            .arg(QString::fromLatin1(what[static_cast<int>(h.kind)]), formatDuration(h.totalNs), formatDuration(h.toNs - h.fromNs));
    }
    const QString duration = formatDuration(h.toNs - h.fromNs);
    switch (h.kind) {
    case TimelineEventKind::Kernel: {
        const RangeId op = t.kernelLinks.op[h.id];
        return QStringLiteral("%1\n%2 · %3 · %4\nop %5 · layer %6 · Tensor Cores: %7")
            .arg(qstr(t.str(t.kernels.name[h.id])), duration, qstr(kernelClassName(data_->kernelClass[h.id])),
                 qstr(directionName(t.kernelLinks.direction[h.id])), op.valid() ? qstr(t.str(t.ranges.name[op.value])) : QStringLiteral("–"),
                 t.kernelLinks.layer[h.id].valid() ? qstr(t.str(t.kernelLinks.layer[h.id])) : QStringLiteral("–"),
                 qstr(tcStateName(t.metrics.tc[h.id])));
    }
    case TimelineEventKind::Range:
        return QStringLiteral("%1\n%2 · click to show its kernels").arg(qstr(t.str(t.ranges.name[h.id])), duration);
    case TimelineEventKind::ApiCall: return QStringLiteral("%1\n%2").arg(qstr(t.str(t.apiCalls.name[h.id])), duration);
    case TimelineEventKind::Memcpy:
        return QStringLiteral("memcpy %1 · %2 · %3").arg(qstr(copyKindName(t.memcpys.kind[h.id])), formatBytes(static_cast<double>(t.memcpys.bytes[h.id])), duration);
    case TimelineEventKind::Memset: return QStringLiteral("memset · %1 · %2").arg(formatBytes(static_cast<double>(t.memsets.bytes[h.id])), duration);
    }
    return {};
}

bool TimelineView::viewportEvent(QEvent* e) {
    if (e->type() == QEvent::NativeGesture) { // trackpad pinch
        auto* g = static_cast<QNativeGestureEvent*>(e);
        if (g->gestureType() == Qt::ZoomNativeGesture) {
            zoomBy(std::clamp(1.0 - g->value(), 0.2, 5.0), g->position().x() - kHeaderWidth);
            return true;
        }
        if (g->gestureType() == Qt::EndNativeGesture) recordHistory();
    }
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        if (const auto hit = hitAt(help->pos())) QToolTip::showText(help->globalPos(), tooltipFor(*hit), viewport());
        else QToolTip::hideText();
        return true;
    }
    return QAbstractScrollArea::viewportEvent(e);
}

void TimelineView::resizeEvent(QResizeEvent* e) {
    QAbstractScrollArea::resizeEvent(e);
    // Keep the visible time span when the width changes.
    const double from = window_.startNs, to = window_.endNs();
    window_ = fitWindow(from, to, lanesWidth());
    updateScrollBar();
}

void TimelineView::scrollContentsBy(int, int) { viewport()->update(); }

void TimelineView::wheelEvent(QWheelEvent* e) {
    const double steps = e->angleDelta().y() / 120.0;
    if (e->modifiers() & Qt::ControlModifier) {
        zoomBy(std::pow(0.8, steps), e->position().x() - kHeaderWidth);
        recordHistory();
    } else if (e->modifiers() & Qt::ShiftModifier) {
        panBy(-steps * lanesWidth() * 0.1);
    } else {
        QAbstractScrollArea::wheelEvent(e);
    }
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
    setFocus();
    if (e->button() == Qt::BackButton) return back();
    if (e->button() == Qt::ForwardButton) return forward();
    if (e->button() != Qt::LeftButton || !data_) return;
    pressPos_ = e->pos();
    moved_ = false;
    if (e->pos().y() < kMinimapHeight && e->pos().x() >= kHeaderWidth) { // jump there on the minimap
        const double span = static_cast<double>(data_->tracks.end - data_->tracks.start);
        const double centre = static_cast<double>(data_->tracks.start) + span * (e->pos().x() - kHeaderWidth) / lanesWidth();
        const double half = (window_.endNs() - window_.startNs) / 2;
        setWindow(centre - half, centre + half);
        return;
    }
    if (e->pos().y() >= kTop && e->pos().x() < kHeaderWidth) { // a group header: click toggles, drag reorders
        draggedGroup_ = groupHeaderAt(e->pos().y());
        if (draggedGroup_) return;
    }
    measuring_ = e->modifiers() & Qt::ShiftModifier;
    panning_ = !measuring_;
    pressStartNs_ = laneWindow(lanesWidth()).toTime(e->pos().x() - kHeaderWidth);
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
    if (!(e->buttons() & Qt::LeftButton) || !data_) return;
    const QPoint d = e->pos() - pressPos_;
    if (!moved_ && d.manhattanLength() < 4) return;
    if (draggedGroup_) {
        moved_ = true;
        viewport()->setCursor(Qt::ClosedHandCursor);
        return;
    }
    if (!moved_) recordHistory();
    moved_ = true;
    if (panning_) {
        const QPoint step = e->pos() - pressPos_;
        pressPos_ = e->pos();
        panBy(-step.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - step.y());
    } else if (measuring_) {
        const double now = laneWindow(lanesWidth()).toTime(e->pos().x() - kHeaderWidth);
        setMeasure(std::min(pressStartNs_, now), std::max(pressStartNs_, now));
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e) {
    if (e->button() != Qt::LeftButton || !data_) return;
    if (draggedGroup_) {
        const uint32_t group = *draggedGroup_;
        draggedGroup_.reset();
        viewport()->unsetCursor();
        if (!moved_) return setGroupCollapsed(group, !collapsed_[group]);
        moved_ = false;
        // Drop before the group whose header is at or below the cursor.
        const int y = e->pos().y() - kTop + verticalScrollBar()->value();
        size_t position = 0;
        for (uint32_t g : groupOrder_) {
            if (g == group) continue;
            int top = -1;
            for (const Row& r : rows_)
                if (r.header && r.index == g) top = r.y;
            if (top >= 0 && top + kGroupHeight / 2 < y) ++position;
        }
        return moveGroup(group, position);
    }
    const bool click = !moved_;
    if (moved_ && panning_) recordHistory();
    panning_ = measuring_ = moved_ = false;
    if (!click) return;
    const auto hit = hitAt(e->pos());
    if (!hit) {
        measure_.reset();
        viewport()->update();
        return;
    }
    if (hit->count > 1) { // a folded bar: zoom into what it holds
        const double margin = (hit->toNs - hit->fromNs) * 0.05;
        setWindow(hit->fromNs - margin, hit->toNs + margin);
        return;
    }
    if (hit->kind == TimelineEventKind::Kernel) {
        selectKernel(KernelId(hit->id), false);
        emit kernelClicked(KernelId(hit->id));
    } else if (hit->kind == TimelineEventKind::Range) {
        emit rangeClicked(RangeId(hit->id));
    }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* e) {
    if (const auto hit = hitAt(e->pos())) {
        const double margin = (hit->toNs - hit->fromNs) * 0.1 + 1;
        setWindow(hit->fromNs - margin, hit->toNs + margin);
    }
}

void TimelineView::keyPressEvent(QKeyEvent* e) {
    const QPoint cursor = viewport()->mapFromGlobal(QCursor::pos());
    const double atX = viewport()->rect().contains(cursor) && cursor.x() > kHeaderWidth ? cursor.x() - kHeaderWidth : lanesWidth() / 2.0;
    switch (e->key()) {
    case Qt::Key_W: zoomBy(0.7, atX); recordHistory(); break;
    case Qt::Key_S: zoomBy(1 / 0.7, atX); recordHistory(); break;
    case Qt::Key_A: panBy(-lanesWidth() * 0.15); break;
    case Qt::Key_D: panBy(lanesWidth() * 0.15); break;
    case Qt::Key_F: zoomToSelection(); break;
    case Qt::Key_0: fitAll(); break;
    case Qt::Key_Left:
        if (e->modifiers() & Qt::AltModifier) back();
        else panBy(-lanesWidth() * 0.15);
        break;
    case Qt::Key_Right:
        if (e->modifiers() & Qt::AltModifier) forward();
        else panBy(lanesWidth() * 0.15);
        break;
    case Qt::Key_Escape: measure_.reset(); viewport()->update(); break;
    default: QAbstractScrollArea::keyPressEvent(e); return;
    }
}

} // namespace ls::gui
