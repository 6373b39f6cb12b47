#include "widgets/timeline/load_overview_view.h"

#include "widgets/util/units.h"

#include <QPaintEvent>
#include <QPainter>
#include <algorithm>
#include <vector>

namespace ls::gui {
namespace {
constexpr int kLabelWidth = 190;
constexpr int kRulerHeight = 22;
constexpr int kRowHeight = 18;
constexpr int kRowGap = 3;
const QColor kBar(0x4a, 0x90, 0xd9); // the timeline's elementwise blue: no classes known yet
} // namespace

LoadOverviewView::LoadOverviewView(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumHeight(kRulerHeight + 2 * (kRowHeight + kRowGap));
}

void LoadOverviewView::setOverview(std::shared_ptr<const LoadOverview> overview) {
    overview_ = std::move(overview);
    snapshot_ = {};
    refresh();
}

void LoadOverviewView::refresh() {
    const bool hadKernels = snapshot_.kernels > 0;
    if (overview_ && overview_->version() != snapshot_.version) snapshot_ = overview_->snapshot();
    // As kernels come in only the ruler and the rows change: the empty area below them is not
    // filled again at each refresh (a fill of the whole page at 1920x1080 took the GUI thread
    // 5-30 ms of CPU while the load kept the memory busy). The first kernels replace a centred
    // message: then all of it.
    if (!hadKernels || snapshot_.kernels == 0) return update();
    const int rows = static_cast<int>(snapshot_.lanes.size()) + 1; // the "and N more" line
    update(0, 0, width(), std::min(height(), kRulerHeight + rows * (kRowHeight + kRowGap)));
}

void LoadOverviewView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const auto& s = snapshot_;
    if (s.kernels == 0 || s.binNs <= 0) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter,
                   overview_ ? QStringLiteral("Waiting for the first kernels…")
                             : QStringLiteral("This file's kernels are drawn once it is loaded"));
        return;
    }
    const int barsLeft = kLabelWidth, barsWidth = std::max(1, width() - kLabelWidth - 8);
    const double from = static_cast<double>(s.fromNs), to = static_cast<double>(s.toNs);
    const double nsPerPx = std::max(1.0, to - from) / barsWidth;
    // Ruler: the span read so far, from its first kernel, in five steps.
    p.setPen(palette().color(QPalette::Text));
    p.drawLine(barsLeft, kRulerHeight - 4, barsLeft + barsWidth, kRulerHeight - 4);
    for (int i = 0; i <= 4; ++i) {
        const int x = barsLeft + barsWidth * i / 4;
        p.drawLine(x, kRulerHeight - 8, x, kRulerHeight - 4);
        const QString tick = formatDuration((to - from) * i / 4);
        const int w = p.fontMetrics().horizontalAdvance(tick);
        p.drawText(std::clamp(x - w / 2, barsLeft, barsLeft + barsWidth - w), kRulerHeight - 10,
                   tick);
    }
    const int rowsFit = std::max(1, (height() - kRulerHeight) / (kRowHeight + kRowGap));
    const size_t shownRows = std::min(
        s.lanes.size(),
        static_cast<size_t>(s.lanes.size() > static_cast<size_t>(rowsFit) ? rowsFit - 1 : rowsFit));
    std::vector<QRect> bars;
    for (size_t r = 0; r < shownRows; ++r) {
        const LoadOverviewLane& lane = s.lanes[r];
        const int top = kRulerHeight + static_cast<int>(r) * (kRowHeight + kRowGap);
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(4, top, kLabelWidth - 8, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   QStringLiteral("GPU %1 · stream %2  (%L3)")
                       .arg(lane.device)
                       .arg(lane.stream)
                       .arg(lane.kernels));
        p.fillRect(barsLeft, top, barsWidth, kRowHeight, palette().alternateBase());
        bars.clear();
        for (int x = 0; x < barsWidth; ++x) {
            const double t0 = from + x * nsPerPx;
            const double share = s.busyShare(lane, t0, t0 + nsPerPx);
            if (share <= 0) continue;
            // A bar at least a quarter high: a pixel holding any kernel must be seen.
            const int h = std::max(kRowHeight / 4, static_cast<int>(share * kRowHeight + 0.5));
            bars.emplace_back(barsLeft + x, top + kRowHeight - h, 1, h);
        }
        p.setPen(Qt::NoPen);
        p.setBrush(kBar);
        p.drawRects(bars.data(), static_cast<int>(bars.size()));
    }
    if (shownRows < s.lanes.size()) {
        const int top = kRulerHeight + static_cast<int>(shownRows) * (kRowHeight + kRowGap);
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRect(4, top, width() - 8, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   QStringLiteral("and %1 more streams").arg(s.lanes.size() - shownRows));
    }
    emit painted(s.kernels);
}

} // namespace ls::gui
