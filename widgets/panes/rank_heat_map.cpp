#include "widgets/panes/rank_heat_map.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <limits>

namespace ls::gui {
namespace {
constexpr int kLeft = 64, kTop = 22, kBottom = 4, kRight = 8;
} // namespace

RankHeatMap::RankHeatMap(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(120);
    setToolTip(QStringLiteral("Step time per rank and iteration: pale blue is the iteration's "
                              "fastest rank, red its slowest"));
}

void RankHeatMap::setIterations(const std::vector<RankIterationRow>& rows) {
    ranks_.clear();
    iterations_.clear();
    for (const auto& r : rows) {
        ranks_.push_back(r.rank);
        iterations_.push_back(r.iteration);
    }
    for (auto* v : {&ranks_, &iterations_}) {
        std::sort(v->begin(), v->end());
        v->erase(std::unique(v->begin(), v->end()), v->end());
    }
    const size_t columns = iterations_.size();
    ms_.assign(ranks_.size() * columns, std::numeric_limits<double>::quiet_NaN());
    fastest_.assign(columns, std::numeric_limits<double>::infinity());
    slowest_.assign(columns, 0);
    for (const auto& r : rows) {
        const auto row = static_cast<size_t>(
            std::lower_bound(ranks_.begin(), ranks_.end(), r.rank) - ranks_.begin());
        const auto col = static_cast<size_t>(
            std::lower_bound(iterations_.begin(), iterations_.end(), r.iteration) -
            iterations_.begin());
        const double ms = static_cast<double>(r.duration()) / 1e6; // on the GPU
        ms_[row * columns + col] = ms;
        fastest_[col] = std::min(fastest_[col], ms);
        slowest_[col] = std::max(slowest_[col], ms);
    }
    update();
}

QRect RankHeatMap::gridRect() const { return rect().adjusted(kLeft, kTop, -kRight, -kBottom); }

RankHeatMap::Cell RankHeatMap::cellAt(QPoint p) const {
    const QRect g = gridRect();
    if (ranks_.empty() || iterations_.empty() || !g.contains(p)) return {};
    const int row = static_cast<int>((p.y() - g.top()) * static_cast<qint64>(ranks_.size()) /
                                     std::max(1, g.height()));
    const int col = static_cast<int>((p.x() - g.left()) * static_cast<qint64>(iterations_.size()) /
                                     std::max(1, g.width()));
    return {std::min(row, static_cast<int>(ranks_.size()) - 1),
            std::min(col, static_cast<int>(iterations_.size()) - 1)};
}

void RankHeatMap::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (ranks_.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(
            rect(), Qt::AlignCenter | Qt::TextWordWrap,
            QStringLiteral(
                "No iteration ranges (iteration N, step N, ProfilerStep#N) in these traces"));
        return;
    }
    const QRect g = gridRect();
    const size_t rows = ranks_.size(), columns = iterations_.size();
    auto x = [&](size_t c) {
        return g.left() +
               static_cast<int>(static_cast<qint64>(c) * g.width() / static_cast<qint64>(columns));
    };
    auto y = [&](size_t r) {
        return g.top() +
               static_cast<int>(static_cast<qint64>(r) * g.height() / static_cast<qint64>(rows));
    };
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.setFont(small);
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(0, 0, kLeft - 4, kTop), Qt::AlignRight | Qt::AlignVCenter,
               QStringLiteral("rank \\ iter"));
    for (size_t c = 0; c < columns; ++c)
        p.drawText(QRect(x(c), 0, x(c + 1) - x(c), kTop), Qt::AlignCenter,
                   QString::number(iterations_[c]));
    const int labelEvery = std::max<int>(
        1, static_cast<int>(rows) / std::max(1, g.height() / (p.fontMetrics().height() + 1)));
    for (size_t r = 0; r < rows; ++r) {
        if (static_cast<int>(r) % labelEvery == 0)
            p.drawText(
                QRect(0, y(r), kLeft - 6, std::max(y(r + 1) - y(r), p.fontMetrics().height())),
                Qt::AlignRight | Qt::AlignVCenter, QString::number(ranks_[r]));
        for (size_t c = 0; c < columns; ++c) {
            const double ms = ms_[r * columns + c];
            QColor colour = palette().color(QPalette::Window);
            if (!std::isnan(ms)) {
                const double range = slowest_[c] - fastest_[c];
                const double f = range > 0 ? (ms - fastest_[c]) / range : 0;
                // Pale blue for the iteration's fastest rank, through white, to red for its
                // slowest.
                colour = f < 0.5
                             ? QColor::fromRgbF(0.82 + 0.36 * f, 0.9 + 0.2 * f, 1.0)
                             : QColor::fromRgbF(1.0, 1.0 - 1.5 * (f - 0.5), 1.0 - 1.6 * (f - 0.5));
            }
            const QRect cell(QPoint(x(c), y(r)),
                             QPoint(x(c + 1) - 2, y(r + 1) - (rows < 40 ? 2 : 0)));
            p.fillRect(cell, colour);
            if (!std::isnan(ms) && cell.height() >= p.fontMetrics().height() &&
                cell.width() >= p.fontMetrics().horizontalAdvance(QStringLiteral("000.00 ms")))
                p.drawText(cell, Qt::AlignCenter, QStringLiteral("%1 ms").arg(ms, 0, 'f', 2));
        }
    }
}

bool RankHeatMap::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const Cell c = cellAt(help->pos());
        if (c.row < 0) return QWidget::event(e);
        const size_t columns = iterations_.size();
        const double ms = ms_[static_cast<size_t>(c.row) * columns + static_cast<size_t>(c.column)];
        const auto col = static_cast<size_t>(c.column);
        QToolTip::showText(help->globalPos(),
                           std::isnan(ms)
                               ? QStringLiteral("rank %1 has no iteration %2")
                                     .arg(ranks_[static_cast<size_t>(c.row)])
                                     .arg(iterations_[col])
                               : QStringLiteral("rank %1, iteration %2: %3 ms (fastest rank %4 ms, "
                                                "slowest %5 ms)\nClick to show this rank")
                                     .arg(ranks_[static_cast<size_t>(c.row)])
                                     .arg(iterations_[col])
                                     .arg(ms, 0, 'f', 3)
                                     .arg(fastest_[col], 0, 'f', 3)
                                     .arg(slowest_[col], 0, 'f', 3),
                           this);
        return true;
    }
    return QWidget::event(e);
}

void RankHeatMap::mouseReleaseEvent(QMouseEvent* e) {
    const Cell c = cellAt(e->position().toPoint());
    if (c.row >= 0) emit rankClicked(ranks_[static_cast<size_t>(c.row)]);
}

} // namespace ls::gui
