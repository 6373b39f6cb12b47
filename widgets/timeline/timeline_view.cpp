// TimelineView: what it shows (traces, highlights, selection, the measured range) and its input
// (wheel, mouse, keys). Rows are in timeline_row_model, drawing in timeline_painter, what is under
// the cursor in timeline_hit.cpp, the row headers' controls in timeline_rows.cpp.
#include "widgets/timeline/timeline_view.h"

#include "widgets/timeline/timeline_layout.h"

#include <QPainter>
#include <QScrollBar>
#include <algorithm>

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
    rows_.setData(std::move(timeline));
    clearMarks();
    rowsChanged();
    boundToSpan();
    fitAll();
}

void TimelineView::setSession(std::shared_ptr<const SessionTimeline> session, uint32_t shown) {
    if (!session || shown >= session->traces.size()) return setData(nullptr);
    const bool same = rows_.session() == session.get() && rows_.slotCount() > 0;
    const double oldOffset = same ? static_cast<double>(session->offset[rows_.slotTrace(0)]) : 0.0;
    const TimeSpan visible = axis_.window();
    rows_.setSession(session, shown, same);
    clearMarks();
    rowsChanged();
    boundToSpan();
    if (same) { // another rank of the same session: same rank layout, same moment on screen
        const double move = oldOffset - static_cast<double>(session->offset[shown]);
        setWindow(visible.from + move, visible.to + move, false);
        return;
    }
    fitAll();
}

void TimelineView::clearMarks() {
    const TimelineColorMode mode = marks_.colorMode;
    const bool everyRank = marks_.everyRankInTable;
    marks_ = TimelineMarks{};
    marks_.colorMode = mode;
    marks_.everyRankInTable = everyRank;
    highlight_.clear();
    highlightCount_ = 0;
    minimap_.invalidate();
}

void TimelineView::rowsChanged() {
    updateScrollBar();
    viewport()->update();
}

TimelinePainter TimelineView::painter() const {
    return TimelinePainter(rows_, axis_, marks_, verticalScrollBar()->value());
}

void TimelineView::updateScrollBar() {
    verticalScrollBar()->setRange(0, std::max(0, rows_.height() - (viewport()->height() - kTop)));
    verticalScrollBar()->setPageStep(std::max(1, viewport()->height() - kTop));
}

int TimelineView::lanesWidth() const { return std::max(1, viewport()->width() - kHeaderWidth); }

void TimelineView::windowMoved() {
    viewport()->update();
    emit windowChanged();
}

// The traces' span with a 1 % margin each side: fitAll shows it.
void TimelineView::boundToSpan() {
    const double margin = (rows_.spanEnd() - rows_.spanStart()) * 0.01;
    axis_.setBounds(rows_.spanStart() - margin, rows_.spanEnd() + margin);
}

void TimelineView::setBounds(double fromNs, double toNs) {
    const TimeSpan before = axis_.window();
    axis_.setBounds(fromNs, toNs);
    if (axis_.window() == before)
        viewport()->update();
    else
        windowMoved();
}

void TimelineView::setWindow(double fromNs, double toNs, bool record) {
    if (toNs <= fromNs) toNs = fromNs + 1;
    axis_.setWindow(fromNs, toNs, record);
    windowMoved();
}

void TimelineView::fitAll() {
    if (!data()) return;
    axis_.fitAll();
    windowMoved();
}

void TimelineView::back() {
    if (axis_.back()) windowMoved();
}

void TimelineView::forward() {
    if (axis_.forward()) windowMoved();
}

void TimelineView::zoomBy(double factor, double atX) {
    axis_.zoomBy(factor, atX / lanesWidth());
    windowMoved();
}

void TimelineView::panBy(double pixels) {
    axis_.panBy(pixels / lanesWidth());
    windowMoved();
}

// The measured range's kernel count and the GPU time inside it (kernels clipped to the range), from
// the lanes' events in the range only.
void TimelineView::setMeasure(double fromNs, double toNs) {
    marks_.measure = std::make_pair(fromNs, toNs);
    marks_.measuredKernels = 0;
    marks_.measuredGpuNs = 0;
    for (uint32_t l = 0; l < rows_.laneCount(); ++l) { // every rank's rows
        const auto& lane = rows_.laneAt(l);
        if (lane.kind != TimelineEventKind::Kernel) continue;
        const uint32_t slot = rows_.laneSlot(l);
        const Trace& t = *rows_.slotData(slot).trace;
        const double shift = rows_.shift(slot), from = fromNs - shift, to = toNs - shift;
        const auto [first, last] = eventRange(t, lane, from, to);
        marks_.measuredKernels += last - first;
        for (size_t i = first; i < last; ++i) {
            const uint32_t id = lane.events[i];
            marks_.measuredGpuNs +=
                std::min<double>(to, static_cast<double>(t.kernels.end[id])) -
                std::max<double>(from, static_cast<double>(t.kernels.start[id]));
        }
    }
    viewport()->update();
}

void TimelineView::zoomToSelection() {
    if (marks_.measure) return setWindow(marks_.measure->first, marks_.measure->second);
    if (!data()) return;
    const KernelId k = marks_.selected;
    if (!k.valid()) return revealHighlight(); // the highlighted kernels of every trace
    const uint32_t slot = marks_.selectedSlot;
    const auto& kern = rows_.slotData(slot).trace->kernels;
    const TimeNs a = kern.start[k.value], b = kern.end[k.value];
    const double margin = std::max(1.0, static_cast<double>(b - a) * 0.1);
    setWindow(static_cast<double>(a) + rows_.shift(slot) - margin,
              static_cast<double>(b) + rows_.shift(slot) + margin);
}

void TimelineView::setHighlight(std::vector<KernelId> kernels, bool reveal) {
    std::vector<std::vector<KernelId>> byTrace(rows_.slotCount() ? rows_.slotTrace(0) + 1 : 1);
    byTrace.back() = std::move(kernels);
    setTraceHighlight(byTrace, reveal);
}

void TimelineView::setTraceHighlight(const std::vector<std::vector<KernelId>>& byTrace,
                                     bool reveal) {
    auto& byLane = marks_.highlightByLane;
    highlight_.clear();
    byLane.assign(rows_.laneCount(), {});
    highlightCount_ = 0;
    for (uint32_t slot = 0; slot < rows_.slotCount(); ++slot) {
        if (rows_.slotTrace(slot) >= byTrace.size()) continue;
        const auto& kernels = byTrace[rows_.slotTrace(slot)];
        const auto& kernelLane = rows_.slotData(slot).kernelLane;
        highlightCount_ += kernels.size();
        for (KernelId k : kernels)
            if (k.value < kernelLane.size() && kernelLane[k.value] != UINT32_MAX)
                byLane[rows_.laneBase(slot) + kernelLane[k.value]].push_back(k);
        if (slot == 0) highlight_ = kernels;
    }
    const auto byStart = [](const Column<TimeNs>& start) {
        return [&start](KernelId a, KernelId b) { return start[a.value] < start[b.value]; };
    };
    for (uint32_t lane = 0; lane < byLane.size(); ++lane)
        std::sort(byLane[lane].begin(), byLane[lane].end(),
                  byStart(rows_.slotData(rows_.laneSlot(lane)).trace->kernels.start));
    if (rows_.slotCount())
        std::sort(highlight_.begin(), highlight_.end(),
                  byStart(rows_.slotData(0).trace->kernels.start));
    if (reveal && highlightCount_) revealHighlight();
    viewport()->update();
}

void TimelineView::revealHighlight() {
    double from = 0, to = 0;
    uint32_t firstLane = UINT32_MAX;
    bool any = false;
    const auto& byLane = marks_.highlightByLane;
    for (uint32_t lane = 0; lane < byLane.size(); ++lane) {
        if (byLane[lane].empty()) continue;
        const uint32_t slot = rows_.laneSlot(lane);
        const auto& kern = rows_.slotData(slot).trace->kernels;
        for (KernelId k : byLane[lane]) {
            const double s = static_cast<double>(kern.start[k.value]) + rows_.shift(slot),
                         e = static_cast<double>(kern.end[k.value]) + rows_.shift(slot);
            from = any ? std::min(from, s) : s;
            to = any ? std::max(to, e) : e;
            any = true;
        }
        if (firstLane == UINT32_MAX || (rows_.laneSlot(firstLane) != 0 && slot == 0))
            firstLane = lane; // the shown trace's first
    }
    if (!any) return;
    const double margin = std::max(1.0, (to - from) * 0.1);
    setWindow(from - margin, to + margin);
    const int top = laneTop(firstLane);
    if (top >= 0 && (top < kTop || top > viewport()->height() - kLaneHeight))
        verticalScrollBar()->setValue(verticalScrollBar()->value() + top - kTop - kLaneHeight * 2);
}

void TimelineView::selectKernel(KernelId k, bool reveal) { selectSlotKernel(0, k, reveal); }

void TimelineView::selectSlotKernel(uint32_t slot, KernelId k, bool reveal) {
    if (slot >= rows_.slotCount()) return;
    marks_.selected = k;
    marks_.selectedSlot = slot;
    if (reveal && k.valid()) {
        const auto& kern = rows_.slotData(slot).trace->kernels;
        const double s = static_cast<double>(kern.start[k.value]) + rows_.shift(slot),
                     e = static_cast<double>(kern.end[k.value]) + rows_.shift(slot);
        if (s < axis_.from() ||
            e > axis_.to()) { // off screen: centre it, zooming in if it would be sub-pixel
            const double span = std::min(axis_.width(), std::max(1000.0, (e - s) * 40));
            setWindow((s + e) / 2 - span / 2, (s + e) / 2 + span / 2);
        }
        const int top = laneTop(rows_.kernelLane(slot, k));
        if (top >= 0 && (top < kTop || top > viewport()->height() - kLaneHeight))
            verticalScrollBar()->setValue(verticalScrollBar()->value() + top -
                                          viewport()->height() / 2);
    }
    viewport()->update();
}

void TimelineView::selectTraceKernel(uint32_t trace, KernelId k, bool reveal) {
    if (const auto slot = rows_.slotOfTrace(trace)) selectSlotKernel(*slot, k, reveal);
}

void TimelineView::setLinked(std::vector<KernelId> kernels) {
    marks_.linked = std::move(kernels);
    viewport()->update();
}

void TimelineView::setProjection(std::optional<std::pair<double, double>> span) {
    marks_.projection = span;
    viewport()->update();
}

int TimelineView::laneTop(uint32_t lane) const { return painter().laneTop(lane); }

void TimelineView::setColorMode(ColorMode mode) {
    marks_.colorMode = mode;
    viewport()->update();
}

std::optional<QPointF> TimelineView::kernelPoint(KernelId k, uint32_t slot) const {
    return painter().kernelPoint(k, slot, lanesWidth());
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter p(viewport());
    paintContent(p, viewport()->size());
}

void TimelineView::paintContent(QPainter& p, const QSize& size) const {
    painter().paint(p, size, minimap_);
}

} // namespace ls::gui
