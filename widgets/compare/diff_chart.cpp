#include "widgets/compare/diff_chart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalBarSeries>
#include <QLegend>
#include <QValueAxis>
#include <algorithm>
#include <set>

namespace ls::gui {
namespace {

QString elide(const QString& s, int width) {
    return s.size() <= width ? s
                             : s.left(width / 2 - 1) + QStringLiteral("…") + s.right(width / 2 - 1);
}

QString directionAbbrev(const std::string& d) {
    if (d == "forward") return QStringLiteral("fwd");
    if (d == "backward") return QStringLiteral("bwd");
    if (d == "optimizer") return QStringLiteral("opt");
    return QString::fromStdString(d);
}

QChart* emptyChart(const QString& title) {
    auto* chart = new QChart;
    chart->setTitle(title);
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->hide();
    chart->setMargins(QMargins(2, 2, 2, 2));
    return chart;
}

} // namespace

DiffChart::DiffChart(QWidget* parent)
    : QChartView(emptyChart(QStringLiteral("GPU time, A against B")), parent) {
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(260, 200);
    setToolTip(QStringLiteral("GPU time per iteration of each group in run A and run B (the rows "
                              "with the largest differences). "
                              "Click a bar to select its row."));
}

int DiffChart::barSetCount() const {
    int n = 0;
    for (QAbstractSeries* s : chart()->series())
        if (auto* bars = qobject_cast<QAbstractBarSeries*>(s)) n += bars->count();
    return n;
}

void DiffChart::setResult(const std::shared_ptr<const DiffResult>& diff, const QString& labelA,
                          const QString& labelB) {
    shown_.clear();
    QChart* chart = emptyChart(QStringLiteral("GPU time per iteration, A against B"));
    if (diff) {
        for (int i = 0; i < static_cast<int>(diff->rows.size()) && i < kMaxGroups; ++i)
            shown_.push_back(i);
        double most = 0;
        for (int i : shown_)
            most = std::max({most, diff->rows[static_cast<size_t>(i)].a.gpuTimeNs,
                             diff->rows[static_cast<size_t>(i)].b.gpuTimeNs});
        const bool ms = most >= 1e6;
        const double scale = ms ? 1e6 : 1e3;
        const QString unit = ms ? QStringLiteral("ms") : QStringLiteral("µs");
        auto* a = new QBarSet(labelA);
        auto* b = new QBarSet(labelB);
        a->setColor(QColor(0x8c, 0x9d, 0xb5));
        b->setColor(QColor(0xd9, 0x7a, 0x2b));
        QStringList categories;
        std::set<QString> used;
        for (auto it = shown_.rbegin(); it != shown_.rend();
             ++it) { // bottom to top: the largest difference on top
            const DiffRow& r = diff->rows[static_cast<size_t>(*it)];
            *a << r.a.gpuTimeNs / scale;
            *b << r.b.gpuTimeNs / scale;
            QString label =
                elide(QString::fromStdString(r.key.empty() ? std::string("(none)") : r.key), 34);
            if (!r.direction.empty() && diff->level != DiffLevel::Direction)
                label += QStringLiteral(" · ") + directionAbbrev(r.direction);
            while (!used.insert(label).second)
                label += QLatin1Char(' '); // categories must be unique
            categories << label;
        }
        auto* series = new QHorizontalBarSeries;
        series->append(a);
        series->append(b);
        series->setBarWidth(0.8);
        const auto clicked = [this](int index) {
            const int fromTop = static_cast<int>(shown_.size()) - 1 - index;
            if (fromTop >= 0 && fromTop < static_cast<int>(shown_.size()))
                emit rowClicked(shown_[static_cast<size_t>(fromTop)]);
        };
        connect(a, &QBarSet::clicked, this, clicked);
        connect(b, &QBarSet::clicked, this, clicked);
        chart->addSeries(series);
        auto* categoryAxis = new QBarCategoryAxis;
        categoryAxis->append(categories);
        QFont small = categoryAxis->labelsFont();
        small.setPointSizeF(small.pointSizeF() * 0.85);
        categoryAxis->setLabelsFont(small);
        categoryAxis->setTruncateLabels(false); // already elided to a readable length
        auto* valueAxis = new QValueAxis;
        valueAxis->setTitleText(QStringLiteral("GPU time per iteration (%1)").arg(unit));
        valueAxis->setLabelFormat(QStringLiteral("%.3g"));
        valueAxis->setTickCount(4);
        valueAxis->setLabelsFont(small);
        valueAxis->setMin(0);
        chart->addAxis(categoryAxis, Qt::AlignLeft);
        chart->addAxis(valueAxis, Qt::AlignBottom);
        series->attachAxis(categoryAxis);
        series->attachAxis(valueAxis);
        chart->legend()->setVisible(true);
        chart->legend()->setAlignment(Qt::AlignTop);
        if (diff->rows.size() > shown_.size())
            chart->setTitle(
                QStringLiteral("GPU time per iteration, A against B (largest %1 of %2 differences)")
                    .arg(shown_.size())
                    .arg(diff->rows.size()));
    }
    QChart* old = this->chart();
    setChart(chart); // the view releases, not deletes, the chart it had
    delete old;
}

} // namespace ls::gui
