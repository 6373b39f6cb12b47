#include "widgets/timeline/timeline_view.h"

#include "widgets/timeline/timeline_layout.h"
#include "widgets/util/units.h"

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
    session_.reset();
    data_ = std::move(timeline);
    std::vector<std::shared_ptr<const TimelineData>> parts;
    if (data_) parts.push_back(data_);
    partIndex_.assign(parts.size(), 0);
    flattenParts(parts, std::vector<double>(parts.size(), 0.0));
    resetRowState();
    layoutRows();
    fitAll();
}

void TimelineView::setSession(std::shared_ptr<const SessionTimeline> session, uint32_t shown) {
    if (!session || shown >= session->traces.size()) return setData(nullptr);
    const bool same = session_ == session && !parts_.empty();
    const double oldShift = same ? static_cast<double>(session_->offset[partIndex_[0]]) : 0;
    const std::vector<uint32_t> oldOrder = sectionOrder_;
    const std::vector<uint8_t> oldCollapsed = sectionCollapsed_, oldShown = sectionShown_;
    const std::pair<double, double> visible{window_.startNs, window_.endNs()};
    session_ = std::move(session);
    data_ = session_->traces[shown];
    // View part 0 is the shown trace, then the others in session order; each shifted onto the
    // shown trace's clock.
    std::vector<std::shared_ptr<const TimelineData>> parts{data_};
    partIndex_ = {shown};
    for (uint32_t p = 0; p < session_->traces.size(); ++p)
        if (p != shown) {
            parts.push_back(session_->traces[p]);
            partIndex_.push_back(p);
        }
    std::vector<double> shift;
    for (uint32_t p : partIndex_)
        shift.push_back(static_cast<double>(session_->offset[p] - session_->offset[shown]));
    flattenParts(parts, shift);
    resetRowState();
    if (same) { // another rank of the same session: same rank layout, same moment on screen
        sectionOrder_ = oldOrder;
        sectionCollapsed_ = oldCollapsed;
        sectionShown_ = oldShown;
        const double move = oldShift - static_cast<double>(session_->offset[shown]);
        layoutRows();
        setWindow(visible.first + move, visible.second + move, false);
        return;
    }
    // Up to eight ranks open expanded; beyond, only the shown trace's, the others as busy strips.
    for (uint32_t s = 0; s < sectionCollapsed_.size(); ++s)
        sectionCollapsed_[s] =
            session_->sections.size() > 8 && session_->sections[s].trace != shown;
    layoutRows();
    fitAll();
}

void TimelineView::flattenParts(const std::vector<std::shared_ptr<const TimelineData>>& parts,
                                const std::vector<double>& shift) {
    parts_ = parts;
    shift_ = shift;
    laneBase_.clear();
    groupBase_.clear();
    lanePart_.clear();
    groupPart_.clear();
    groupSection_.clear();
    spanStart_ = spanEnd_ = 0;
    minimapWidth_ = -1;
    for (uint32_t p = 0; p < parts_.size(); ++p) {
        const TimelineTracks& tracks = parts_[p]->tracks;
        laneBase_.push_back(static_cast<uint32_t>(lanePart_.size()));
        groupBase_.push_back(static_cast<uint32_t>(groupPart_.size()));
        lanePart_.insert(lanePart_.end(), tracks.lanes.size(), p);
        groupPart_.insert(groupPart_.end(), tracks.groups.size(), p);
        for (const TimelineGroup& g : tracks.groups)
            groupSection_.push_back(session_ ? session_->sectionOf(partIndex_[p], g) : -1);
        const double from = static_cast<double>(tracks.start) + shift_[p],
                     to = static_cast<double>(tracks.end) + shift_[p];
        spanStart_ = p == 0 ? from : std::min(spanStart_, from);
        spanEnd_ = p == 0 ? to : std::max(spanEnd_, to);
    }
}

void TimelineView::resetRowState() {
    highlight_.clear();
    highlightByLane_.clear();
    highlightCount_ = 0;
    linked_.clear();
    selected_ = KernelId();
    selectedPart_ = 0;
    history_.clear();
    historyPos_ = 0;
    measure_.reset();
    const size_t groups = groupPart_.size();
    collapsed_.assign(groups, 0);
    hidden_.assign(groups, 0);
    nvtxLevels_.assign(groups, UINT32_MAX);
    groupOrder_.resize(groups);
    for (uint32_t g = 0; g < groups; ++g) groupOrder_[g] = g;
    groupLanes_.assign(groups, {0, 0});
    for (uint32_t l = 0; l < lanePart_.size(); ++l) {
        auto& range = groupLanes_[groupBase_[lanePart_[l]] + laneAt(l).group];
        if (range.first == range.second) range.first = l;
        range.second = l + 1;
    }
    const size_t sections = sectioned() ? session_->sections.size() : 0;
    sectionOrder_.resize(sections);
    for (uint32_t s = 0; s < sections; ++s) sectionOrder_[s] = s;
    sectionCollapsed_.assign(sections, 0);
    sectionShown_.assign(sections, 1);
    sectionKernelLanes_.assign(sections, {});
    for (uint32_t l = 0; l < lanePart_.size(); ++l) {
        const uint32_t g = groupBase_[lanePart_[l]] + laneAt(l).group;
        if (sections && groupSection_[g] >= 0 && laneAt(l).kind == TimelineEventKind::Kernel)
            sectionKernelLanes_[static_cast<size_t>(groupSection_[g])].push_back(l);
    }
}

const TimelineLane& TimelineView::laneAt(uint32_t lane) const {
    const uint32_t p = lanePart_[lane];
    return parts_[p]->tracks.lanes[lane - laneBase_[p]];
}

const TimelineGroup& TimelineView::groupAt(uint32_t group) const {
    const uint32_t p = groupPart_[group];
    return parts_[p]->tracks.groups[group - groupBase_[p]];
}

uint32_t TimelineView::flatKernelLane(uint32_t part, KernelId k) const {
    if (part >= parts_.size() || !k.valid() || k.value >= parts_[part]->kernelLane.size())
        return UINT32_MAX;
    const uint32_t l = parts_[part]->kernelLane[k.value];
    return l == UINT32_MAX ? l : laneBase_[part] + l;
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
    for (uint32_t l = 0; l < lanePart_.size(); ++l) { // every rank's rows
        const auto& lane = laneAt(l);
        if (lane.kind != TimelineEventKind::Kernel) continue;
        const Trace& t = *parts_[lanePart_[l]]->trace;
        const double shift = shift_[lanePart_[l]], from = fromNs - shift, to = toNs - shift;
        const auto [first, last] = eventRange(t, lane, from, to);
        measuredKernels_ += last - first;
        for (size_t i = first; i < last; ++i) {
            const uint32_t id = lane.events[i];
            measuredGpuNs_ += std::min<double>(to, static_cast<double>(t.kernels.end[id])) -
                              std::max<double>(from, static_cast<double>(t.kernels.start[id]));
        }
    }
    viewport()->update();
}

void TimelineView::fitAll() {
    if (!data_) return;
    const double span = spanEnd_ - spanStart_;
    setWindow(spanStart_ - span * 0.01, spanEnd_ + span * 0.01);
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
    if (!selected_.valid()) return revealHighlight(); // the highlighted kernels of every trace
    const auto& kern = parts_[selectedPart_]->trace->kernels;
    const TimeNs a = kern.start[selected_.value], b = kern.end[selected_.value];
    const double margin = std::max(1.0, static_cast<double>(b - a) * 0.1);
    setWindow(static_cast<double>(a) + shift_[selectedPart_] - margin,
              static_cast<double>(b) + shift_[selectedPart_] + margin);
}

void TimelineView::setHighlight(std::vector<KernelId> kernels, bool reveal) {
    std::vector<std::vector<KernelId>> byTrace(partIndex_.empty() ? 1 : partIndex_[0] + 1);
    byTrace.back() = std::move(kernels);
    setTraceHighlight(byTrace, reveal);
}

void TimelineView::setTraceHighlight(const std::vector<std::vector<KernelId>>& byTrace,
                                     bool reveal) {
    highlight_.clear();
    highlightByLane_.assign(lanePart_.size(), {});
    highlightCount_ = 0;
    for (uint32_t part = 0; part < parts_.size() && part < partIndex_.size(); ++part) {
        if (partIndex_[part] >= byTrace.size()) continue;
        const auto& kernels = byTrace[partIndex_[part]];
        const auto& kernelLane = parts_[part]->kernelLane;
        highlightCount_ += kernels.size();
        for (KernelId k : kernels)
            if (k.value < kernelLane.size() && kernelLane[k.value] != UINT32_MAX)
                highlightByLane_[laneBase_[part] + kernelLane[k.value]].push_back(k);
        if (part == 0) highlight_ = kernels;
    }
    const auto byStart = [](const Column<TimeNs>& start) {
        return [&start](KernelId a, KernelId b) { return start[a.value] < start[b.value]; };
    };
    for (uint32_t lane = 0; lane < highlightByLane_.size(); ++lane)
        std::sort(highlightByLane_[lane].begin(), highlightByLane_[lane].end(),
                  byStart(parts_[lanePart_[lane]]->trace->kernels.start));
    if (!parts_.empty())
        std::sort(highlight_.begin(), highlight_.end(), byStart(parts_[0]->trace->kernels.start));
    if (reveal && highlightCount_) revealHighlight();
    viewport()->update();
}

void TimelineView::revealHighlight() {
    double from = 0, to = 0;
    uint32_t firstLane = UINT32_MAX;
    bool any = false;
    for (uint32_t lane = 0; lane < highlightByLane_.size(); ++lane) {
        if (highlightByLane_[lane].empty()) continue;
        const uint32_t part = lanePart_[lane];
        const auto& kern = parts_[part]->trace->kernels;
        for (KernelId k : highlightByLane_[lane]) {
            const double s = static_cast<double>(kern.start[k.value]) + shift_[part],
                         e = static_cast<double>(kern.end[k.value]) + shift_[part];
            from = any ? std::min(from, s) : s;
            to = any ? std::max(to, e) : e;
            any = true;
        }
        if (firstLane == UINT32_MAX || (lanePart_[firstLane] != 0 && part == 0))
            firstLane = lane; // the shown trace's first
    }
    if (!any) return;
    const double margin = std::max(1.0, (to - from) * 0.1);
    setWindow(from - margin, to + margin);
    const int top = laneTop(firstLane);
    if (top >= 0 && (top < kTop || top > viewport()->height() - kLaneHeight))
        verticalScrollBar()->setValue(verticalScrollBar()->value() + top - kTop - kLaneHeight * 2);
}

void TimelineView::selectKernel(KernelId k, bool reveal) { selectPartKernel(0, k, reveal); }

void TimelineView::selectPartKernel(uint32_t part, KernelId k, bool reveal) {
    if (part >= parts_.size()) return;
    selected_ = k;
    selectedPart_ = part;
    if (reveal && data_ && k.valid()) {
        const auto& kern = parts_[part]->trace->kernels;
        const double s = static_cast<double>(kern.start[k.value]) + shift_[part],
                     e = static_cast<double>(kern.end[k.value]) + shift_[part];
        if (s < window_.startNs ||
            e > window_.endNs()) { // off screen: centre it, zooming in if it would be sub-pixel
            const double span =
                std::min(window_.endNs() - window_.startNs, std::max(1000.0, (e - s) * 40));
            setWindow((s + e) / 2 - span / 2, (s + e) / 2 + span / 2);
        }
        const int top = laneTop(flatKernelLane(part, k));
        if (top >= 0 && (top < kTop || top > viewport()->height() - kLaneHeight))
            verticalScrollBar()->setValue(verticalScrollBar()->value() + top -
                                          viewport()->height() / 2);
    }
    viewport()->update();
}

void TimelineView::selectTraceKernel(uint32_t trace, KernelId k, bool reveal) {
    const auto it = std::find(partIndex_.begin(), partIndex_.end(), trace);
    if (it != partIndex_.end())
        selectPartKernel(static_cast<uint32_t>(it - partIndex_.begin()), k, reveal);
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

std::optional<QPointF> TimelineView::kernelPoint(KernelId k, uint32_t part) const {
    if (!data_ || !k.valid()) return std::nullopt;
    const int top = laneTop(flatKernelLane(part, k));
    if (top < 0) return std::nullopt;
    const TimeWindow w = laneWindow(lanesWidth());
    const auto& kern = parts_[part]->trace->kernels;
    const double mid =
        (static_cast<double>(kern.start[k.value]) + static_cast<double>(kern.end[k.value])) / 2 +
        shift_[part];
    return QPointF(w.toX(mid) + kHeaderWidth, top + kLaneHeight / 2.0);
}

std::optional<TimelineView::Hit> TimelineView::hitAt(const QPoint& pos) const {
    if (!data_ || pos.x() < kHeaderWidth || pos.y() < kTop) return std::nullopt;
    const int y = pos.y() - kTop + verticalScrollBar()->value();
    const auto row = std::partition_point(rows_.begin(), rows_.end(),
                                          [&](const Row& r) { return r.y + r.height <= y; });
    if (row == rows_.end() || row->header() || y < row->y) return std::nullopt;
    const auto& lane = laneAt(row->index);
    const uint32_t part = lanePart_[row->index];
    const Trace& t = *parts_[part]->trace;
    const double shift = shift_[part];
    TimeWindow w = laneWindow(lanesWidth());
    w.startNs -= shift; // the part's own clock
    const double time = w.toTime(pos.x() - kHeaderWidth);
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
                   part};
    }
    const int64_t i = eventAt(t, lane, time, w.nsPerPixel * 2);
    if (i < 0) return std::nullopt;
    const uint32_t id = lane.events[static_cast<size_t>(i)];
    const double s = static_cast<double>(eventStart(t, lane.kind, id)) + shift,
                 e = static_cast<double>(eventEnd(t, lane.kind, id)) + shift;
    return Hit{lane.kind, id, 1, s, e, e - s, part};
}

const MatchedCollective* TimelineView::selectedCollective() const {
    return session_ && selected_.valid()
               ? session_->collectiveOfKernel(partIndex_[selectedPart_], selected_)
               : nullptr;
}

QString TimelineView::tooltipFor(const Hit& h) const {
    const Trace& t = *parts_[h.part]->trace;
    if (h.count > 1) {
        static const char* const what[] = {"ranges", "API calls", "kernels", "memcpys", "memsets"};
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
        if (const MatchedCollective* c =
                session_ ? session_->collectiveOfKernel(partIndex_[h.part], KernelId(h.id))
                         : nullptr)
            peers = QStringLiteral("\n%1 #%2 on %3 ranks · skew %4 · last: rank %5")
                        .arg(qstr(collectiveName(c->type)))
                        .arg(c->sequence)
                        .arg(c->members.size())
                        .arg(formatDuration(static_cast<double>(c->skew())))
                        .arg(c->lastRank);
        return QStringLiteral("%1\n%2 · %3 · %4\nop %5 · layer %6 · Tensor Cores: %7%8")
            .arg(qstr(t.str(t.kernels.name[h.id])), duration,
                 qstr(kernelClassName(parts_[h.part]->kernelClass[h.id])),
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
        if (const auto hit = hitAt(help->pos()))
            QToolTip::showText(help->globalPos(), tooltipFor(*hit), viewport());
        else
            QToolTip::hideText();
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
    if (e->pos().y() < kMinimapHeight &&
        e->pos().x() >= kHeaderWidth) { // jump there on the minimap
        const double centre =
            spanStart_ + (spanEnd_ - spanStart_) * (e->pos().x() - kHeaderWidth) / lanesWidth();
        const double half = (window_.endNs() - window_.startNs) / 2;
        setWindow(centre - half, centre + half);
        return;
    }
    if (e->pos().y() >= kTop &&
        e->pos().x() < kHeaderWidth) { // a rank or group header: click toggles, drag reorders
        draggedHeader_ = headerAt(e->pos().y());
        if (draggedHeader_) return;
    }
    measuring_ = e->modifiers() & Qt::ShiftModifier;
    panning_ = !measuring_;
    pressStartNs_ = laneWindow(lanesWidth()).toTime(e->pos().x() - kHeaderWidth);
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
    if (!(e->buttons() & Qt::LeftButton) || !data_) return;
    const QPoint d = e->pos() - pressPos_;
    if (!moved_ && d.manhattanLength() < 4) return;
    if (draggedHeader_) {
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
    if (draggedHeader_) {
        const Row header = *draggedHeader_;
        draggedHeader_.reset();
        viewport()->unsetCursor();
        const bool dragged = moved_;
        moved_ = false;
        if (dragged) return dropHeader(header, e->pos().y());
        if (header.kind == RowKind::Rank)
            return setRankCollapsed(header.index, !sectionCollapsed_[header.index]);
        return setGroupCollapsed(header.index, !collapsed_[header.index]);
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
        selectPartKernel(hit->part, KernelId(hit->id), false);
        if (hit->part == 0) {
            emit kernelClicked(KernelId(hit->id));
        } else { // another rank's kernel: the rank of its row
            const uint32_t lane = flatKernelLane(hit->part, KernelId(hit->id));
            const int section =
                lane == UINT32_MAX ? -1 : groupSection_[groupBase_[hit->part] + laneAt(lane).group];
            if (section >= 0)
                emit otherRankKernelClicked(session_->sections[static_cast<size_t>(section)].rank,
                                            KernelId(hit->id));
        }
    } else if (hit->kind == TimelineEventKind::Range && hit->part == 0) {
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
    const double atX = viewport()->rect().contains(cursor) && cursor.x() > kHeaderWidth
                           ? cursor.x() - kHeaderWidth
                           : lanesWidth() / 2.0;
    switch (e->key()) {
    case Qt::Key_W:
        zoomBy(0.7, atX);
        recordHistory();
        break;
    case Qt::Key_S:
        zoomBy(1 / 0.7, atX);
        recordHistory();
        break;
    case Qt::Key_A:
        panBy(-lanesWidth() * 0.15);
        break;
    case Qt::Key_D:
        panBy(lanesWidth() * 0.15);
        break;
    case Qt::Key_F:
        zoomToSelection();
        break;
    case Qt::Key_0:
        fitAll();
        break;
    case Qt::Key_Left:
        if (e->modifiers() & Qt::AltModifier)
            back();
        else
            panBy(-lanesWidth() * 0.15);
        break;
    case Qt::Key_Right:
        if (e->modifiers() & Qt::AltModifier)
            forward();
        else
            panBy(lanesWidth() * 0.15);
        break;
    case Qt::Key_Escape:
        measure_.reset();
        viewport()->update();
        break;
    default:
        QAbstractScrollArea::keyPressEvent(e);
        return;
    }
}

} // namespace ls::gui
