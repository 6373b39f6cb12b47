#include "widgets/panes/rank_timeline.h"

#include "core/present/time_ruler.h"
#include "widgets/session/rank_filter.h"
#include "widgets/util/units.h"

#include <QHelpEvent>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace ls::gui {
namespace {

constexpr int kLabelWidth = 70, kRulerHeight = 18;
const QColor kCompute(0x3b, 0x6e, 0xa8), kComm(0xd9, 0x5f, 0x3b), kBusy(0x55, 0x55, 0x55),
    kMarker(0x9c, 0x27, 0xb0);

// Fills one lane's bars between x0 and x1 pixels: the intervals inside the window, binary
// searched, with every run narrower than a pixel folded into the pixel it falls in.
// Writes the pixels of `lane`'s intervals within the window into rows y..y+h of `img`, one run per
// stretch of adjacent busy pixels: 256 ranks' lanes of thousands of intervals each cost their
// pixels, where a fillRect per interval or per pixel column took 80 ms a frame.
void rasterLane(QImage& img, const std::vector<Interval>& lane, const TimeWindow& w, int y, int h,
                QRgb colour) {
    const double startNs = w.startNs, nsPerPixel = w.nsPerPixel, endNs = w.endNs();
    const int widthPx = std::min(w.widthPx, img.width());
    const int rowEnd = std::min(y + h, img.height());
    auto flush = [&](int from, int to) {
        if (to <= from) return;
        for (int r = std::max(0, y); r < rowEnd; ++r) {
            auto* line = reinterpret_cast<QRgb*>(img.scanLine(r));
            std::fill(line + from, line + to, colour);
        }
    };
    auto first =
        std::lower_bound(lane.begin(), lane.end(), startNs, [](const Interval& i, double t) {
            return static_cast<double>(i.end) < t;
        });
    int runFrom = 0, runTo = 0; // the pending run of busy pixels, [from, to)
    for (auto it = first; it != lane.end() && static_cast<double>(it->start) < endNs; ++it) {
        const double a = (static_cast<double>(it->start) - startNs) / nsPerPixel,
                     b = (static_cast<double>(it->end) - startNs) / nsPerPixel;
        const int left = std::clamp(static_cast<int>(std::floor(a)), 0, widthPx);
        const int right =
            std::clamp(std::max(left + 1, static_cast<int>(std::ceil(b))), 0, widthPx);
        if (left <= runTo && runTo > runFrom) { // touches the pending run
            runTo = std::max(runTo, right);
            continue;
        }
        flush(runFrom, runTo);
        runFrom = left;
        runTo = right;
    }
    flush(runFrom, runTo);
}

} // namespace

RankTimeline::RankTimeline(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumHeight(120);
    setFocusPolicy(Qt::ClickFocus);
}

void RankTimeline::setAnalysis(std::shared_ptr<const RankAnalysis> analysis) {
    analysis_ = std::move(analysis);
    static const std::vector<RankAnalysis::LaneLevels> none;
    const auto& lanes = analysis_ ? analysis_->lanes : none; // built on the loader thread
    filter_.assign(lanes.size(), 1);
    selected_ = -1;
    spanStart_ = spanEnd_ = 0;
    bool any = false;
    for (const auto& b : lanes)
        for (const auto* lane : {&b.compute.levels.front(), &b.comm.levels.front()})
            if (!lane->empty()) {
                spanStart_ = any ? std::min(spanStart_, lane->front().start) : lane->front().start;
                spanEnd_ = any ? std::max(spanEnd_, lane->back().end) : lane->back().end;
                any = true;
            }
    // The ranks' span with a 2 % margin (at least 1 µs): fitAll shows it.
    const TimeNs pad = std::max<TimeNs>(1000, (spanEnd_ - spanStart_) / 50);
    axis_.setBounds(static_cast<double>(spanStart_ - pad), static_cast<double>(spanEnd_ + pad));
    rebuildRows();
    fitAll();
}

bool RankTimeline::setRankFilter(const QString& text) {
    std::vector<int> ranks;
    if (analysis_)
        for (const auto& r : analysis_->session->ranks) ranks.push_back(r.rank);
    const bool ok = parseRankFilter(text, ranks, filter_);
    if (!analysis_) filter_.clear();
    rebuildRows();
    update();
    return ok;
}

void RankTimeline::setOrder(Order order) {
    order_ = order;
    rebuildRows();
    update();
}

void RankTimeline::setSplitLanes(bool split) {
    split_ = split;
    update();
}

void RankTimeline::selectCollective(int index) {
    selected_ = index;
    if (analysis_ && index >= 0 &&
        static_cast<size_t>(index) < analysis_->collectives.collectives.size()) {
        const auto& c = analysis_->collectives.collectives[static_cast<size_t>(index)];
        // Bring the collective into view with room around it, unless it is already well visible.
        if (static_cast<double>(c.firstStart) < axis_.from() ||
            static_cast<double>(c.end) > axis_.to()) {
            const TimeNs pad = std::max<TimeNs>(1000, (c.end - c.firstStart) / 2);
            zoomTo(c.firstStart - pad, c.end + pad);
        }
    }
    update();
}

void RankTimeline::zoomTo(TimeNs from, TimeNs to) {
    if (to <= from) to = from + 1000;
    axis_.setWindow(static_cast<double>(from), static_cast<double>(to), false);
    update();
}

void RankTimeline::rebuildRows() {
    rows_.clear();
    if (!analysis_) return;
    for (size_t i = 0; i < filter_.size(); ++i)
        if (filter_[i]) rows_.push_back(static_cast<int>(i));
    const auto& stats = analysis_->ranks; // same order as Session::ranks
    auto key = [&](int i) -> double {
        const auto& r = stats[static_cast<size_t>(i)];
        switch (order_) {
        case Order::ExposedComm:
            return -static_cast<double>(r.exposedComm);
        case Order::Idle:
            return -static_cast<double>(r.idle);
        case Order::Compute:
            return -static_cast<double>(r.compute);
        case Order::Rank:
            break;
        }
        return r.rank;
    };
    std::stable_sort(rows_.begin(), rows_.end(), [&](int a, int b) { return key(a) < key(b); });
}

void RankTimeline::fitAll() {
    axis_.fitAll(false);
    update();
}

int RankTimeline::plotWidth() const { return std::max(1, width() - kLabelWidth); }

int RankTimeline::rowHeight() const {
    const int rows = std::max<int>(1, static_cast<int>(rows_.size()));
    return std::clamp((height() - kRulerHeight) / rows, 3, 26);
}

int RankTimeline::rowAt(int y) const {
    const int row = (y - kRulerHeight) / rowHeight();
    return y >= kRulerHeight && row < static_cast<int>(rows_.size()) ? row : -1;
}

void RankTimeline::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!analysis_ || rows_.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter,
                   analysis_ ? QStringLiteral("No rank matches the filter") : QString());
        return;
    }
    const int w = plotWidth(), rh = rowHeight();
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.setFont(small);
    // Ruler: session time from the first kernel of any rank.
    p.setPen(palette().color(QPalette::Text));
    // Ticks at least ~110 px apart so their labels never overlap (core/present/time_ruler.h).
    const auto origin = static_cast<double>(spanStart_);
    const RulerTicks ticks = rulerTicks(axis_.from(), axis_.to(), nsPerPixel(), origin, 110);
    for (double t : ticks.offsets) {
        const int x = kLabelWidth + static_cast<int>(toX(t + origin));
        p.drawLine(x, kRulerHeight - 4, x, kRulerHeight);
        p.drawText(x + 2, kRulerHeight - 5, formatTick(t, ticks.stepNs));
    }
    const TimeWindow window = axis_.timeWindow(w);
    const auto& ranks = analysis_->session->ranks;
    const int lane = split_ ? std::max(1, (rh - 2) / 2) : std::max(1, rh - 2);
    // Opaque pixels, row stripes included, blitted once: no blending of a 1850 x 800 image.
    const QSize lanesSize(std::max(1, w), std::max(1, static_cast<int>(rows_.size()) * rh));
    if (lanes_.size() != lanesSize) lanes_ = QImage(lanesSize, QImage::Format_RGB32);
    QImage& lanes = lanes_;
    const QRgb base = palette().color(QPalette::Base).rgb(),
               stripe = palette().color(QPalette::AlternateBase).rgb();
    for (int r = 0; r < lanes.height(); ++r) {
        auto* line = reinterpret_cast<QRgb*>(lanes.scanLine(r));
        std::fill(line, line + lanes.width(), (r / rh) % 2 ? stripe : base);
    }
    const QRgb compute = kCompute.rgb(), comm = kComm.rgb(), busyColour = kBusy.rgb();
    for (size_t row = 0; row < rows_.size(); ++row) {
        const int y = kRulerHeight + static_cast<int>(row) * rh;
        const auto i = static_cast<size_t>(rows_[row]);
        if (rh >= p.fontMetrics().height() - 2 ||
            row % static_cast<size_t>(std::max(1, p.fontMetrics().height() / rh)) == 0)
            p.drawText(QRect(0, y, kLabelWidth - 6, std::max(rh, p.fontMetrics().height())),
                       Qt::AlignRight | Qt::AlignVCenter,
                       QStringLiteral("rank %1").arg(ranks[i].rank));
        // The lanes at the resolution of a pixel: about one interval a pixel to visit.
        const auto& levels = analysis_->lanes[i];
        const auto& computeLane = levels.compute.forPixel(window.nsPerPixel);
        const auto& commLane = levels.comm.forPixel(window.nsPerPixel);
        const int top = y - kRulerHeight + 1;
        if (split_) {
            rasterLane(lanes, computeLane, window, top, lane, compute);
            rasterLane(lanes, commLane, window, top + lane, lane, comm);
        } else {
            rasterLane(lanes, computeLane, window, top, lane, busyColour);
            rasterLane(lanes, commLane, window, top, lane, busyColour);
        }
    }
    p.drawImage(kLabelWidth, kRulerHeight, lanes);
    // The selected collective: a mark at each member's start, the first and last joined, the skew
    // written.
    if (selected_ >= 0 &&
        static_cast<size_t>(selected_) < analysis_->collectives.collectives.size()) {
        const auto& c = analysis_->collectives.collectives[static_cast<size_t>(selected_)];
        p.setPen(QPen(kMarker, 2));
        int top = height(), bottom = 0;
        for (const auto& m : c.members) {
            const auto at = std::find(rows_.begin(), rows_.end(), static_cast<int>(m.rank));
            if (at == rows_.end()) continue;
            const int y = kRulerHeight + static_cast<int>(at - rows_.begin()) * rh;
            const int x = kLabelWidth + static_cast<int>(toX(static_cast<double>(m.start)));
            p.drawLine(x, y, x, y + rh);
            top = std::min(top, y);
            bottom = std::max(bottom, y + rh);
        }
        const int x0 = kLabelWidth + static_cast<int>(toX(static_cast<double>(c.firstStart)));
        const int x1 = kLabelWidth + static_cast<int>(toX(static_cast<double>(c.lastStart)));
        if (bottom > top) {
            p.setPen(QPen(kMarker, 1, Qt::DashLine));
            p.drawLine(x0, top, x0, bottom);
            p.drawLine(x1, top, x1, bottom);
            const QString label =
                QStringLiteral("%1 #%2: skew %3, rank %4 last")
                    .arg(QString::fromUtf8(collectiveName(c.type).data(),
                                           static_cast<qsizetype>(collectiveName(c.type).size())))
                    .arg(selected_)
                    .arg(formatDuration(static_cast<double>(c.skew())))
                    .arg(c.lastRank);
            // On a plate of the background, so the label reads over the bars.
            const QRect box(std::max(x1, x0) + 4, top, p.fontMetrics().horizontalAdvance(label) + 6,
                            p.fontMetrics().height());
            p.fillRect(box, palette().color(QPalette::Base));
            p.setPen(kMarker);
            p.drawText(box, Qt::AlignCenter, label);
        }
    }
}

void RankTimeline::wheelEvent(QWheelEvent* e) {
    const double x = e->position().x() - kLabelWidth;
    axis_.zoomBy(e->angleDelta().y() > 0 ? 0.8 : 1.25, x / plotWidth());
    update();
}

void RankTimeline::mousePressEvent(QMouseEvent* e) {
    dragX_ = static_cast<int>(e->position().x());
    dragStartNs_ = axis_.from();
}

void RankTimeline::mouseMoveEvent(QMouseEvent* e) {
    if (dragX_ < 0 || !(e->buttons() & Qt::LeftButton)) return;
    const double from = dragStartNs_ - (e->position().x() - dragX_) * nsPerPixel();
    axis_.setWindow(from, from + axis_.width(), false);
    update();
}

void RankTimeline::mouseReleaseEvent(QMouseEvent*) { dragX_ = -1; }

void RankTimeline::mouseDoubleClickEvent(QMouseEvent* e) {
    const int row = rowAt(static_cast<int>(e->position().y()));
    if (row >= 0 && e->position().x() < kLabelWidth)
        emit rankClicked(
            analysis_->session->ranks[static_cast<size_t>(rows_[static_cast<size_t>(row)])].rank);
    else
        fitAll();
}

bool RankTimeline::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip && analysis_) {
        auto* help = static_cast<QHelpEvent*>(e);
        const int row = rowAt(help->pos().y());
        if (row < 0) return QWidget::event(e);
        const auto i = static_cast<size_t>(rows_[static_cast<size_t>(row)]);
        const auto& r = analysis_->ranks[i];
        const double t = axis_.toTime(help->pos().x() - kLabelWidth, plotWidth());
        QToolTip::showText(
            help->globalPos(),
            QStringLiteral(
                "rank %1 (%2, GPU %3) at %4\ncompute %5 · comm %6 · hidden %7 · exposed %8 · idle "
                "%9\n"
                "Double-click the label to show this rank; double-click elsewhere to fit")
                .arg(r.rank)
                .arg(QString::fromStdString(r.host.empty() ? std::string("host unknown") : r.host))
                .arg(r.device)
                .arg(formatDuration(t - static_cast<double>(spanStart_)),
                     formatDuration(static_cast<double>(r.compute)),
                     formatDuration(static_cast<double>(r.comm)),
                     formatDuration(static_cast<double>(r.overlap)),
                     formatDuration(static_cast<double>(r.exposedComm)),
                     formatDuration(static_cast<double>(r.idle))),
            this);
        return true;
    }
    return QWidget::event(e);
}

void RankTimeline::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    if (e->oldSize().width() <= kLabelWidth) fitAll(); // else the axis keeps the visible span
}

} // namespace ls::gui
