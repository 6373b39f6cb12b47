#include "widgets/timeline_view.h"

#include "widgets/timeline_palette.h"
#include "widgets/units.h"

#include <QHelpEvent>
#include <QNativeGestureEvent>
#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace ls::gui {
namespace {

constexpr int kHeaderWidth = 230;  // row labels
constexpr int kMinimapHeight = 26;
constexpr int kRulerHeight = 22;
constexpr int kTop = kMinimapHeight + kRulerHeight;
constexpr int kLaneHeight = 17;
constexpr int kGroupHeight = 20;
constexpr size_t kBusyBuckets = 2048;

QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

} // namespace

std::shared_ptr<const TimelineData> buildTimelineData(std::shared_ptr<const Trace> trace) {
    auto d = std::make_shared<TimelineData>();
    const Trace& t = *trace;
    d->tracks = buildTimelineTracks(t);
    d->kernelClass = classifyKernels(t);
    d->kernelLane.assign(t.kernels.size(), UINT32_MAX);
    d->apiLane.assign(t.apiCalls.size(), UINT32_MAX);
    for (uint32_t l = 0; l < d->tracks.lanes.size(); ++l) {
        const auto& lane = d->tracks.lanes[l];
        if (lane.kind == TimelineEventKind::Kernel)
            for (uint32_t id : lane.events) d->kernelLane[id] = l;
        if (lane.kind == TimelineEventKind::ApiCall)
            for (uint32_t id : lane.events) d->apiLane[id] = l;
    }
    // GPU busy time per bucket of the capture, summed over streams, as a fraction of one GPU.
    d->busy.assign(kBusyBuckets, 0.f);
    const double span = std::max<double>(1, static_cast<double>(t.captureEnd - t.captureStart));
    const double bucket = span / kBusyBuckets;
    for (size_t k = 0; k < t.kernels.size(); ++k) {
        double s = static_cast<double>(t.kernels.start[k] - t.captureStart), e = static_cast<double>(t.kernels.end[k] - t.captureStart);
        while (s < e) {
            const auto b = std::min<size_t>(kBusyBuckets - 1, static_cast<size_t>(s / bucket));
            const double bucketEnd = (static_cast<double>(b) + 1) * bucket;
            const double part = std::min(e, bucketEnd) - s;
            d->busy[b] += static_cast<float>(part / bucket);
            if (b == kBusyBuckets - 1) break;
            s = bucketEnd;
        }
    }
    d->trace = std::move(trace);
    return d;
}

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

void TimelineView::layoutRows() {
    rows_.clear();
    laneRow_.assign(data_ ? data_->tracks.lanes.size() : 0, -1);
    if (!data_) return updateScrollBar();
    int y = 0;
    for (uint32_t group : groupOrder_) {
        if (hidden_[group]) continue;
        rows_.push_back(Row{true, group, y, kGroupHeight});
        y += kGroupHeight;
        if (collapsed_[group]) continue;
        for (uint32_t l = groupLanes_[group].first; l < groupLanes_[group].second; ++l) {
            const auto& lane = data_->tracks.lanes[l];
            if (lane.kind == TimelineEventKind::Range && lane.level >= nvtxLevels_[group]) continue;
            laneRow_[l] = static_cast<int>(rows_.size());
            rows_.push_back(Row{false, l, y, kLaneHeight});
            y += kLaneHeight;
        }
    }
    updateScrollBar();
    viewport()->update();
}

void TimelineView::setGroupCollapsed(uint32_t group, bool collapsed) {
    if (group >= collapsed_.size()) return;
    collapsed_[group] = collapsed;
    layoutRows();
}

void TimelineView::setGroupHidden(uint32_t group, bool hidden) {
    if (group >= hidden_.size()) return;
    hidden_[group] = hidden;
    layoutRows();
}

void TimelineView::setNvtxLevels(uint32_t group, uint32_t levels) {
    if (group >= nvtxLevels_.size()) return;
    nvtxLevels_[group] = levels;
    layoutRows();
}

void TimelineView::moveGroup(uint32_t group, size_t position) {
    auto it = std::find(groupOrder_.begin(), groupOrder_.end(), group);
    if (it == groupOrder_.end()) return;
    groupOrder_.erase(it);
    groupOrder_.insert(groupOrder_.begin() + static_cast<std::ptrdiff_t>(std::min(position, groupOrder_.size())), group);
    layoutRows();
}

std::optional<uint32_t> TimelineView::groupHeaderAt(int viewportY) const {
    const int y = viewportY - kTop + verticalScrollBar()->value();
    for (const Row& r : rows_)
        if (r.header && y >= r.y && y < r.y + r.height) return r.index;
    return std::nullopt;
}

void TimelineView::showGroupMenu(uint32_t group, const QPoint& globalPos) {
    QMenu menu(this);
    const auto& lanes = data_->tracks.lanes;
    uint32_t depth = 0;
    for (uint32_t l = groupLanes_[group].first; l < groupLanes_[group].second; ++l)
        if (lanes[l].kind == TimelineEventKind::Range) depth = std::max(depth, lanes[l].level + 1);
    menu.addAction(collapsed_[group] ? QStringLiteral("Expand") : QStringLiteral("Collapse"), this,
                   [this, group] { setGroupCollapsed(group, !collapsed_[group]); });
    if (depth > 0) {
        QMenu* levels = menu.addMenu(QStringLiteral("NVTX levels shown"));
        for (uint32_t n = 1; n <= depth; ++n) {
            QAction* a = levels->addAction(n == depth ? QStringLiteral("All (%1)").arg(n) : QString::number(n), this,
                                           [this, group, n, depth] { setNvtxLevels(group, n == depth ? UINT32_MAX : n); });
            a->setCheckable(true);
            a->setChecked(std::min(nvtxLevels_[group], depth) == n);
        }
    }
    menu.addAction(QStringLiteral("Hide this row"), this, [this, group] { setGroupHidden(group, true); });
    menu.addSeparator();
    QAction* showAll = menu.addAction(QStringLiteral("Show all rows"), this, [this] {
        std::fill(hidden_.begin(), hidden_.end(), 0);
        std::fill(collapsed_.begin(), collapsed_.end(), 0);
        std::fill(nvtxLevels_.begin(), nvtxLevels_.end(), UINT32_MAX);
        layoutRows();
    });
    showAll->setEnabled(std::count(hidden_.begin(), hidden_.end(), 1) > 0 || std::count(collapsed_.begin(), collapsed_.end(), 1) > 0 ||
                        std::any_of(nvtxLevels_.begin(), nvtxLevels_.end(), [](uint32_t v) { return v != UINT32_MAX; }));
    menu.exec(globalPos);
}

void TimelineView::contextMenuEvent(QContextMenuEvent* e) {
    if (!data_) return;
    const QPoint pos = viewport()->mapFrom(this, e->pos());
    if (const auto group = groupHeaderAt(pos.y()); group && pos.y() >= kTop) showGroupMenu(*group, e->globalPos());
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

QColor TimelineView::colorOf(TimelineEventKind kind, uint32_t id) const {
    const Trace& t = *data_->trace;
    switch (kind) {
    case TimelineEventKind::Kernel:
        switch (colorMode_) {
        case ColorMode::KernelClass: return kernelClassColor(data_->kernelClass[id]);
        case ColorMode::Direction: return directionColor(t.kernelLinks.direction[id]);
        case ColorMode::Layer: return t.kernelLinks.layer[id].valid() ? nameColor(t.kernelLinks.layer[id].value) : QColor(0xb0, 0xb0, 0xb0);
        }
        break;
    case TimelineEventKind::Range: return nameColor(t.ranges.name[id].value);
    case TimelineEventKind::ApiCall: return QColor(0x9a, 0xa5, 0xb1);
    case TimelineEventKind::Memcpy: return memcpyColor(t.memcpys.kind[id]);
    case TimelineEventKind::Memset: return QColor(0x8e, 0x6c, 0x4a);
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
        p.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter, QStringLiteral("Open a trace to see its timeline."));
        return;
    }
    const TimeWindow w = laneWindow(std::max(1, size.width() - kHeaderWidth));
    paintLanes(p, size, w);
    paintOverlays(p, size, w);
    p.fillRect(QRect(0, 0, size.width(), kTop), QColor(0xf0, 0xf0, 0xf0));
    paintMinimap(p, QRect(kHeaderWidth, 0, size.width() - kHeaderWidth, kMinimapHeight), w);
    paintRuler(p, QRect(kHeaderWidth, kMinimapHeight, size.width() - kHeaderWidth, kRulerHeight), w);
    p.setPen(QColor(0x55, 0x55, 0x55));
    p.drawText(QRect(6, 0, kHeaderWidth - 8, kTop), Qt::AlignVCenter | Qt::AlignLeft,
               QStringLiteral("%1 visible").arg(formatDuration(w.endNs() - w.startNs)));
}

void TimelineView::paintMinimap(QPainter& p, const QRect& r, const TimeWindow& w) const {
    const auto& busy = data_->busy;
    const double span = static_cast<double>(data_->tracks.end - data_->tracks.start);
    float peak = 1.f;
    for (float b : busy) peak = std::max(peak, b);
    const QColor fill(0x3b, 0x6e, 0xa8);
    for (int x = 0; x < r.width(); ++x) {
        const size_t a = busy.size() * static_cast<size_t>(x) / static_cast<size_t>(r.width());
        const size_t b = std::max(a + 1, busy.size() * static_cast<size_t>(x + 1) / static_cast<size_t>(r.width()));
        float v = 0;
        for (size_t i = a; i < b && i < busy.size(); ++i) v = std::max(v, busy[i]);
        const int h = static_cast<int>(std::lround((r.height() - 4) * v / peak));
        if (h > 0) p.fillRect(r.left() + x, r.bottom() - 1 - h, 1, h, fill);
    }
    const double x0 = (w.startNs - static_cast<double>(data_->tracks.start)) / span * r.width();
    const double x1 = (w.endNs() - static_cast<double>(data_->tracks.start)) / span * r.width();
    p.setPen(QColor(0xd0, 0x40, 0x20));
    p.setBrush(QColor(0xd0, 0x40, 0x20, 40));
    p.drawRect(QRectF(r.left() + std::max(0.0, x0), r.top() + 1, std::max(2.0, std::min<double>(r.width(), x1) - std::max(0.0, x0)), r.height() - 3));
    p.setBrush(Qt::NoBrush);
}

void TimelineView::paintRuler(QPainter& p, const QRect& r, const TimeWindow& w) const {
    // Ticks every 1, 2 or 5 × 10^k ns, at least 90 px apart, labelled from the capture start.
    const double minStep = w.nsPerPixel * 90;
    double step = std::pow(10.0, std::floor(std::log10(std::max(minStep, 1e-3))));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (step * m >= minStep) {
            step *= m;
            break;
        }
    const double origin = static_cast<double>(data_->tracks.start);
    p.setPen(QColor(0x44, 0x44, 0x44));
    p.drawLine(r.left(), r.bottom(), r.right(), r.bottom());
    const double first = std::ceil((w.startNs - origin) / step) * step;
    for (double t = first; origin + t <= w.endNs(); t += step) {
        const int x = r.left() + static_cast<int>(std::lround(w.toX(origin + t)));
        p.drawLine(x, r.bottom() - 5, x, r.bottom());
        p.drawText(QRect(x + 3, r.top(), 120, r.height() - 3), Qt::AlignLeft | Qt::AlignVCenter, formatDuration(t));
    }
}

void TimelineView::paintLanes(QPainter& p, const QSize& size, const TimeWindow& w) const {
    const Trace& t = *data_->trace;
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
        if (row.header) {
            const auto& g = data_->tracks.groups[row.index];
            p.fillRect(QRect(0, y, size.width(), row.height), g.gpu ? QColor(0xe6, 0xee, 0xe6) : QColor(0xe6, 0xea, 0xf2));
            p.setPen(QColor(0x22, 0x22, 0x22));
            const QString arrow = collapsed_[row.index] ? QStringLiteral("▸ ") : QStringLiteral("▾ ");
            p.drawText(QRect(4, y, size.width() - 8, row.height), Qt::AlignVCenter | Qt::AlignLeft, arrow + qstr(g.label));
            continue;
        }
        const auto& lane = data_->tracks.lanes[row.index];
        static const char* const kindNames[] = {"NVTX", "CUDA API", "Kernels", "Memcpy", "Memset"};
        p.setPen(QColor(0x55, 0x55, 0x55));
        QString name = QString::fromLatin1(kindNames[static_cast<int>(lane.kind)]);
        if (lane.kind == TimelineEventKind::Range) name += QStringLiteral(" %1").arg(lane.level);
        else if (lane.level > 0) name += QStringLiteral(" (%1)").arg(lane.level + 1);
        p.drawText(QRect(16, y, kHeaderWidth - 20, row.height), Qt::AlignVCenter | Qt::AlignLeft, name);
        bars.clear();
        foldLane(t, lane, w, bars);
        for (const auto& b : bars) {
            const double x0 = std::max(-2.0, b.x0) + kHeaderWidth, x1 = std::min<double>(size.width() + 2, b.x1 + kHeaderWidth);
            if (x1 < kHeaderWidth) continue;
            const QRectF rect(std::max<double>(x0, kHeaderWidth), y + 2, std::max(1.0, x1 - std::max<double>(x0, kHeaderWidth)), row.height - 4);
            QColor c = colorOf(lane.kind, lane.events[b.first]);
            if (b.count > 1) c = c.darker(125);
            // Touching bars of one colour in a row become one rectangle: far fewer fills when zoomed out.
            auto& batch = batches[c.rgb()];
            if (!batch.empty() && batch.back().top() == rect.top() && batch.back().right() >= rect.left() - 0.5)
                batch.back().setRight(std::max(batch.back().right(), rect.right()));
            else
                batch.push_back(rect);
            if (b.count == 1 && rect.width() > 40) {
                const uint32_t id = lane.events[b.first];
                std::string_view text;
                if (lane.kind == TimelineEventKind::Kernel) text = t.str(t.kernels.shortName[id]);
                else if (lane.kind == TimelineEventKind::Range) text = t.str(t.ranges.name[id]);
                else if (lane.kind == TimelineEventKind::ApiCall) text = t.str(t.apiCalls.name[id]);
                if (!text.empty()) labels.push_back(Label{rect.adjusted(3, 0, -2, 0), fm.elidedText(qstr(text), Qt::ElideRight, static_cast<int>(rect.width()) - 5)});
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
    const Trace& t = *data_->trace;
    p.save();
    p.setClipRect(QRect(kHeaderWidth, kTop, size.width() - kHeaderWidth, size.height() - kTop));
    // Highlighted kernels: an outline per pixel column they occupy.
    p.setPen(QPen(QColor(0xff, 0x8c, 0x00), 2));
    p.setBrush(Qt::NoBrush);
    for (uint32_t lane = 0; lane < highlightByLane_.size(); ++lane) {
        const auto& list = highlightByLane_[lane];
        const int top = laneTop(lane);
        if (list.empty() || top < 0) continue;
        auto it = std::partition_point(list.begin(), list.end(), [&](KernelId k) { return static_cast<double>(t.kernels.end[k.value]) <= w.startNs; });
        double lastX = -1e9;
        for (; it != list.end() && static_cast<double>(t.kernels.start[it->value]) < w.endNs(); ++it) {
            const double x0 = w.toX(static_cast<double>(t.kernels.start[it->value])) + kHeaderWidth;
            const double x1 = w.toX(static_cast<double>(t.kernels.end[it->value])) + kHeaderWidth;
            if (x1 < lastX + 1) continue;
            p.drawRect(QRectF(x0, top + 1, std::max(2.0, x1 - x0), kLaneHeight - 2));
            lastX = x1;
        }
    }
    // A clicked range's GPU projection: a band over the GPU rows.
    if (projection_) {
        const double x0 = w.toX(projection_->first) + kHeaderWidth, x1 = w.toX(projection_->second) + kHeaderWidth;
        for (const Row& row : rows_)
            if (!row.header && data_->tracks.groups[data_->tracks.lanes[row.index].group].gpu) {
                const int top = kTop + row.y - verticalScrollBar()->value();
                p.fillRect(QRectF(x0, top, std::max(1.0, x1 - x0), row.height), QColor(0xff, 0x8c, 0x00, 45));
            }
    }
    paintLinks(p, w);
    // The selected kernel, and an arrow from its launch call.
    if (selected_.valid()) {
        const auto point = kernelPoint(selected_);
        if (point) {
            const double x0 = w.toX(static_cast<double>(t.kernels.start[selected_.value])) + kHeaderWidth;
            const double x1 = w.toX(static_cast<double>(t.kernels.end[selected_.value])) + kHeaderWidth;
            p.setPen(QPen(Qt::black, 2));
            p.drawRect(QRectF(x0, point->y() - kLaneHeight / 2.0, std::max(3.0, x1 - x0), kLaneHeight));
        }
        const ApiCallId call = t.kernels.launch[selected_.value];
        if (call.valid() && point) {
            const int top = laneTop(data_->apiLane[call.value]);
            if (top >= 0) {
                const QPointF from(w.toX(static_cast<double>(t.apiCalls.start[call.value])) + kHeaderWidth, top + kLaneHeight / 2.0);
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
        const double x0 = w.toX(measure_->first) + kHeaderWidth, x1 = w.toX(measure_->second) + kHeaderWidth;
        p.fillRect(QRectF(x0, kTop, x1 - x0, size.height() - kTop), QColor(0x30, 0x60, 0xc0, 40));
        uint64_t count = 0;
        double gpu = 0;
        for (const auto& lane : data_->tracks.lanes) {
            if (lane.kind != TimelineEventKind::Kernel) continue;
            count += eventsInWindow(t, lane, measure_->first, measure_->second);
        }
        for (uint32_t l = 0; l < data_->tracks.lanes.size(); ++l) {
            const auto& lane = data_->tracks.lanes[l];
            if (lane.kind != TimelineEventKind::Kernel || count > 200000) continue;
            for (uint32_t id : lane.events) {
                const double s = std::max<double>(measure_->first, static_cast<double>(t.kernels.start[id]));
                const double e = std::min<double>(measure_->second, static_cast<double>(t.kernels.end[id]));
                if (e > s) gpu += e - s;
            }
        }
        const QString text = QStringLiteral("%1 · %L2 kernels · GPU time %3")
                                 .arg(formatDuration(measure_->second - measure_->first))
                                 .arg(count)
                                 .arg(count > 200000 ? QStringLiteral("(zoom in)") : formatDuration(gpu));
        const QRectF box(std::max<double>(x0, kHeaderWidth) + 4, kTop + 4, QFontMetrics(p.font()).horizontalAdvance(text) + 12, 20);
        p.fillRect(box, QColor(255, 255, 255, 230));
        p.setPen(QColor(0x10, 0x30, 0x80));
        p.drawText(box, Qt::AlignCenter, text);
    }
    p.restore();
}

// The selected kernel's counterparts (forward <-> backward): dashed outlines, and a line from the
// selected kernel to each of them (at most a few dozen: one op's kernels).
void TimelineView::paintLinks(QPainter& p, const TimeWindow& w) const {
    if (linked_.empty() || !selected_.valid()) return;
    const Trace& t = *data_->trace;
    const auto from = kernelPoint(selected_);
    p.setPen(QPen(QColor(0x80, 0x30, 0xc0), 1.5, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    for (KernelId k : linked_) {
        const auto to = kernelPoint(k);
        if (!to) continue;
        const double x0 = w.toX(static_cast<double>(t.kernels.start[k.value])) + kHeaderWidth;
        const double x1 = w.toX(static_cast<double>(t.kernels.end[k.value])) + kHeaderWidth;
        p.drawRect(QRectF(x0, to->y() - kLaneHeight / 2.0 + 1, std::max(3.0, x1 - x0), kLaneHeight - 2));
        if (from) {
            QPainterPath arc(*from);
            const double lift = std::min(60.0, std::abs(to->x() - from->x()) / 4 + 10);
            arc.cubicTo(*from - QPointF(0, lift), *to - QPointF(0, lift), *to);
            p.drawPath(arc);
        }
    }
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
        measure_ = std::make_pair(std::min(pressStartNs_, now), std::max(pressStartNs_, now));
        viewport()->update();
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
