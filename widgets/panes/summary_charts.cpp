#include "widgets/panes/summary_charts.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QGridLayout>
#include <QHorizontalBarSeries>
#include <QValueAxis>
#include <functional>

namespace ls::gui {
namespace {

constexpr int kMinChartWidth = 160; // a chart narrower than this shows no readable axis

QString elide(const std::string& s, int width) {
    QString q = QString::fromStdString(s);
    return q.size() <= width ? q
                             : q.left(width / 2 - 1) + QStringLiteral("…") + q.right(width / 2 - 1);
}

// One horizontal bar chart of GPU time in ms, largest share on top.
QChartView* barChart(const QString& title, std::vector<TimeShare> shares, QObject* receiver,
                     const std::function<void(const QString&)>& onClick) {
    if (shares.size() > kChartBars) shares.resize(kChartBars);
    uint64_t total = 0;
    for (const auto& s : shares) total += s.gpuTimeNs;
    auto* set = new QBarSet(QStringLiteral("GPU time (ms)"));
    QStringList categories;
    std::vector<QString> filters;
    for (auto it = shares.rbegin(); it != shares.rend(); ++it) { // bottom to top
        *set << static_cast<double>(it->gpuTimeNs) / 1e6;
        categories << elide(it->label, 36);
        filters.push_back(QString::fromStdString(it->filter));
    }
    set->setColor(QColor(0x3b, 0x6e, 0xa8));
    auto* series = new QHorizontalBarSeries;
    series->append(set);
    series->setLabelsVisible(true);
    series->setLabelsPosition(QAbstractBarSeries::LabelsInsideBase);
    series->setLabelsFormat(QStringLiteral("@value ms"));
    series->setLabelsPrecision(4);
    QObject::connect(set, &QBarSet::clicked, receiver, [filters, onClick](int index) {
        if (index >= 0 && static_cast<size_t>(index) < filters.size())
            onClick(filters[static_cast<size_t>(index)]);
    });
    QObject::connect(set, &QBarSet::hovered, receiver, [set](bool on, int) {
        set->setColor(on ? QColor(0x5a, 0x8f, 0xcc) : QColor(0x3b, 0x6e, 0xa8));
    });
    auto* chart = new QChart;
    chart->addSeries(series);
    chart->setTitle(title);
    chart->legend()->hide();
    chart->setAnimationOptions(QChart::NoAnimation);
    auto* categoryAxis = new QBarCategoryAxis;
    categoryAxis->append(categories);
    QFont small = categoryAxis->labelsFont();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    categoryAxis->setLabelsFont(small);
    categoryAxis->setTruncateLabels(false); // names are already elided to a readable length
    auto* valueAxis = new QValueAxis;
    valueAxis->setTitleText(QStringLiteral("GPU time (ms)"));
    valueAxis->setLabelFormat(QStringLiteral("%.2g"));
    valueAxis->setTickCount(3);
    valueAxis->setTruncateLabels(false);
    chart->addAxis(categoryAxis, Qt::AlignLeft);
    chart->addAxis(valueAxis, Qt::AlignBottom);
    series->attachAxis(categoryAxis);
    series->attachAxis(valueAxis);
    chart->setMargins(QMargins(2, 2, 2, 2));
    auto* view = new QChartView(chart);
    view->setRenderHint(QPainter::Antialiasing);
    view->setToolTip(
        QStringLiteral("Click a bar to filter the kernel table to it (%1 ms in all shown)")
            .arg(static_cast<double>(total) / 1e6, 0, 'f', 3));
    view->setMinimumHeight(220);
    return view;
}

} // namespace

SummaryCharts::SummaryCharts(QWidget* parent) : QWidget(parent), grid_(new QGridLayout(this)) {
    grid_->setContentsMargins(0, 0, 0, 0);
}

void SummaryCharts::setShares(const std::shared_ptr<const ChartShares>& shares) {
    for (const auto& step : setSharesSteps(shares)) step();
}

std::vector<std::function<void()>>
SummaryCharts::setSharesSteps(std::shared_ptr<const ChartShares> shares) {
    // A chart is a few ms to build (fonts, axes, layout): one per step, so that no turn of the
    // event loop builds all four.
    std::vector<std::function<void()>> steps;
    steps.emplace_back([this] {
        while (QLayoutItem* item = grid_->takeAt(0)) {
            delete item->widget();
            delete item;
        }
    });
    if (!shares) return steps;
    // Kernel names need the width: the top-kernels chart spans the row above the other three.
    steps.emplace_back([this, shares] {
        grid_->addWidget(barChart(QStringLiteral("Top kernels by GPU time"), shares->topKernels,
                                  this, [this](const QString& f) { emit filterRequested(f); }),
                         0, 0, 1, 3);
    });
    struct LowerChart {
        QString title;
        std::vector<TimeShare> ChartShares::*shares;
    };
    const LowerChart lower[] = {
        {QStringLiteral("GPU time per layer (forward + backward)"), &ChartShares::byLayer},
        {QStringLiteral("GPU time by direction"), &ChartShares::byDirection},
        {QStringLiteral("GPU time by Tensor Core use"), &ChartShares::byTensorCores},
    };
    for (int c = 0; c < 3; ++c)
        steps.emplace_back([this, shares, c, chart = lower[c]] {
            QChartView* view = barChart(chart.title, (*shares).*chart.shares, this,
                                        [this](const QString& f) { emit filterRequested(f); });
            // The lower row shares its width 2:1:1 whatever the labels: the per-layer chart's
            // "(outside layers) · optimizer" labels once took the whole row and squeezed the
            // direction and Tensor Core charts to unreadable slivers (docs/usability.md).
            view->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
            view->setMinimumWidth(kMinChartWidth);
            grid_->setColumnStretch(c, c == 0 ? 2 : 1);
            grid_->addWidget(view, 1, c);
        });
    return steps;
}

} // namespace ls::gui
