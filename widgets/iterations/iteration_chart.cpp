#include "widgets/iterations/iteration_chart.h"

#include "widgets/util/units.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QStackedBarSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace ls::gui {
namespace {

const QColor kTypical(0x8c, 0x9d, 0xb5);
const QColor kTypicalCurrent(0x2f, 0x5d, 0x9a);
const QColor kOutlier(0xe0, 0x87, 0x3a);
const QColor kOutlierCurrent(0xa8, 0x47, 0x00);
constexpr int kMaxLabelledBars =
    40; // beyond, the numbers would overlap: the tooltip names each bar

QChart* emptyChart() {
    auto* chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->hide();
    chart->setMargins(QMargins(0, 0, 0, 0));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setBackgroundRoundness(0);
    chart->setBackgroundBrush(Qt::NoBrush);
    chart->setBackgroundPen(Qt::NoPen);
    return chart;
}

QString label(const IterationRow& r) { return QString::fromStdString(r.name); }

} // namespace

IterationChart::IterationChart(QWidget* parent) : QChartView(emptyChart(), parent) {
    setRenderHint(QPainter::Antialiasing);
    setFrameShape(QFrame::NoFrame);
    setFocusPolicy(Qt::NoFocus); // a click must not leave focus here: hidden with its tab, focus
                                 // would go to the layer tree
    setMinimumWidth(160);
    setToolTip(generalToolTip());
}

QString IterationChart::generalToolTip() {
    return QStringLiteral("Duration of each iteration; orange: an outlier (beyond 1.5 "
                          "interquartile ranges), dashed: the median. "
                          "Click a bar to zoom the timeline to that iteration.");
}

void IterationChart::setSummary(std::shared_ptr<const IterationSummary> summary) {
    summary_ = std::move(summary);
    typical_ = outliers_ = nullptr;
    bars_ = nullptr;
    median_ = nullptr;
    QChart* chart = emptyChart();
    if (summary_ && !summary_->rows.empty()) {
        const auto& rows = summary_->rows;
        TimeNs longest = 0;
        for (const auto& r : rows) longest = std::max(longest, r.duration());
        nsPerUnit_ = longest >= 1'000'000 ? 1e6 : 1e3;
        const QString unit = nsPerUnit_ == 1e6 ? QStringLiteral("ms") : QStringLiteral("µs");
        // One stacked series of two sets: each bar has its height in exactly one of them, so a
        // bar's colour says whether it is an outlier, and selecting it in its set darkens it.
        typical_ = new QBarSet(QStringLiteral("typical"));
        outliers_ = new QBarSet(QStringLiteral("outlier"));
        typical_->setColor(kTypical);
        typical_->setBorderColor(kTypical);
        typical_->setSelectedColor(kTypicalCurrent);
        outliers_->setColor(kOutlier);
        outliers_->setBorderColor(kOutlier);
        outliers_->setSelectedColor(kOutlierCurrent);
        QStringList categories;
        std::set<QString> used;
        for (const auto& r : rows) {
            const double v = static_cast<double>(r.duration()) / nsPerUnit_;
            *typical_ << (r.outlier ? 0.0 : v);
            *outliers_ << (r.outlier ? v : 0.0);
            // The number is enough below a bar ("3"); categories must be unique.
            QString c = QString::number(r.number);
            while (!used.insert(c).second) c += QLatin1Char(' ');
            categories << c;
        }
        bars_ = new QStackedBarSeries;
        bars_->append(typical_);
        bars_->append(outliers_);
        bars_->setBarWidth(rows.size() == 1 ? 0.25 : 0.6);
        chart->addSeries(bars_);
        for (QBarSet* set : {typical_, outliers_}) {
            connect(set, &QBarSet::clicked, this, &IterationChart::barClicked);
            // The view's tooltip is the hovered bar's numbers while the mouse is on it.
            connect(set, &QBarSet::hovered, this, [this](bool on, int index) {
                setToolTip(on ? barToolTip(index) : generalToolTip());
            });
        }

        const double median = static_cast<double>(summary_->median.duration()) / nsPerUnit_;
        median_ = new QLineSeries;
        median_->setName(QStringLiteral("median"));
        median_->append(-0.5, median);
        median_->append(static_cast<double>(rows.size()) - 0.5, median);
        QPen pen(QColor(0x33, 0x33, 0x33));
        pen.setStyle(Qt::DashLine);
        pen.setWidthF(1.2);
        median_->setPen(pen);
        chart->addSeries(median_);

        auto* categoryAxis = new QBarCategoryAxis;
        categoryAxis->append(categories);
        QFont small = categoryAxis->labelsFont();
        small.setPointSizeF(small.pointSizeF() * 0.8);
        categoryAxis->setLabelsFont(small);
        categoryAxis->setLabelsVisible(rows.size() <= kMaxLabelledBars);
        categoryAxis->setGridLineVisible(false);
        auto* valueAxis = new QValueAxis;
        valueAxis->setLabelFormat(QStringLiteral("%.3g ") + unit);
        valueAxis->setLabelsFont(small);
        valueAxis->setTickCount(3);
        valueAxis->setRange(0, static_cast<double>(longest) / nsPerUnit_ * 1.08);
        valueAxis->setGridLineColor(QColor(0xe4, 0xe4, 0xe4));
        chart->addAxis(categoryAxis, Qt::AlignBottom);
        chart->addAxis(valueAxis, Qt::AlignLeft);
        for (QAbstractSeries* s :
             {static_cast<QAbstractSeries*>(bars_), static_cast<QAbstractSeries*>(median_)}) {
            s->attachAxis(categoryAxis);
            s->attachAxis(valueAxis);
        }
        categoryAxis->setRange(categories.front(), categories.back()); // the line must not widen it
        chart->legend()->setAlignment(Qt::AlignRight);
        chart->legend()->setFont(small);
        chart->legend()->setVisible(true);
        const bool anyOutlier =
            std::any_of(rows.begin(), rows.end(), [](const IterationRow& r) { return r.outlier; });
        for (QLegendMarker* m : chart->legend()->markers(bars_))
            if (m->label() == outliers_->label()) m->setVisible(anyOutlier);
    }
    QChart* old = this->chart();
    setChart(chart); // the view releases, not deletes, the chart it had
    delete old;
}

void IterationChart::setCurrent(int index) {
    if (!bars_) return;
    typical_->deselectAllBars();
    outliers_->deselectAllBars();
    if (index < 0 || index >= barCount()) return;
    (barIsOutlier(index) ? outliers_ : typical_)->selectBar(index);
}

int IterationChart::barCount() const { return typical_ ? static_cast<int>(typical_->count()) : 0; }

double IterationChart::barValueNs(int index) const {
    if (index < 0 || index >= barCount()) return std::numeric_limits<double>::quiet_NaN();
    return (typical_->at(index) + outliers_->at(index)) * nsPerUnit_;
}

bool IterationChart::barIsOutlier(int index) const {
    return index >= 0 && index < barCount() && outliers_->at(index) > 0;
}

double IterationChart::medianLineNs() const {
    if (!median_ || median_->count() == 0) return std::numeric_limits<double>::quiet_NaN();
    return median_->at(0).y() * nsPerUnit_;
}

QPoint IterationChart::barCenter(int index) const {
    if (index < 0 || index >= barCount()) return {};
    const QPointF inChart =
        chart()->mapToPosition(QPointF(index, barValueNs(index) / nsPerUnit_ / 2), bars_);
    return mapFromScene(chart()->mapToScene(inChart));
}

QString IterationChart::barToolTip(int index) const {
    if (!summary_ || index < 0 || index >= static_cast<int>(summary_->rows.size())) return {};
    const IterationRow& r = summary_->rows[static_cast<size_t>(index)];
    QString tip =
        QStringLiteral("<b>%1</b>: %2 (median %3)<br>%L4 kernels · GPU busy %5 % · idle %6")
            .arg(label(r).toHtmlEscaped(), formatDuration(static_cast<double>(r.duration())),
                 formatDuration(static_cast<double>(summary_->median.duration())))
            .arg(r.kernels)
            .arg(r.busyPercent(), 0, 'f', 1)
            .arg(formatDuration(static_cast<double>(r.idle)));
    tip += QStringLiteral("<br>forward %1 · backward %2 · optimizer %3")
               .arg(formatDuration(static_cast<double>(r.forward)),
                    formatDuration(static_cast<double>(r.backward)),
                    formatDuration(static_cast<double>(r.optimizer)));
    if (r.comm > 0)
        tip +=
            QStringLiteral(" · communication %1").arg(formatDuration(static_cast<double>(r.comm)));
    if (r.outlier)
        tip += QStringLiteral(
            "<br><span style='color:#a84700'>outlier: beyond 1.5 interquartile ranges</span>");
    // One line per row of numbers: a rich-text tooltip would otherwise wrap at a narrow width.
    return QStringLiteral(
               "<div style='white-space:pre'>%1<br><i>click: zoom the timeline to it</i></div>")
        .arg(tip);
}

} // namespace ls::gui
