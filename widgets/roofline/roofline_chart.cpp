#include "widgets/roofline/roofline_chart.h"

#include "widgets/util/units.h"

#include <QChart>
#include <QCursor>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <map>

namespace ls::gui {
namespace {

constexpr double kTera = 1e12;

QColor tcColor(TcState tc) {
    switch (tc) {
    case TcState::Used:
        return QColor(0x2e, 0x9d, 0x4f);
    case TcState::NotUsed:
        return QColor(0xd9, 0x6c, 0x1e);
    case TcState::NotApplicable:
        break;
    }
    return QColor(0x6f, 0x7f, 0x90);
}

QString tcLabel(TcState tc) {
    switch (tc) {
    case TcState::Used:
        return QStringLiteral("Tensor Cores used");
    case TcState::NotUsed:
        return QStringLiteral("Tensor Cores not used (eligible)");
    case TcState::NotApplicable:
        break;
    }
    return QStringLiteral("Tensor Cores n/a");
}

// Marker diameters in px by share of all plotted GPU time: ≥ 10 %, ≥ 1 %, less.
constexpr double kSizes[] = {24, 15, 9};
size_t sizeBucket(uint64_t ns, uint64_t total) {
    const double share = total ? static_cast<double>(ns) / static_cast<double>(total) : 0;
    return share >= 0.10 ? 0 : share >= 0.01 ? 1 : 2;
}

QString number(double v) { return QString::number(v, 'g', 4); }

double decadeBelow(double v) { return std::pow(10.0, std::floor(std::log10(v))); }
double decadeAbove(double v) { return std::pow(10.0, std::ceil(std::log10(v))); }

// The point's plotted position: zero or unknown values sit on the axes' lower edge, an infinite
// intensity (no bytes) on the right edge.
QPointF position(const RooflinePoint& p, double xMin, double xMax, double yMin) {
    double x = p.intensity(), y = p.achieved() / kTera;
    if (!(x > 0)) x = xMin;
    if (std::isinf(x)) x = xMax;
    if (!(y > 0) || !std::isfinite(y)) y = yMin;
    return {x, y};
}

QLineSeries* line(const QString& name, const QString& id, const QColor& color, Qt::PenStyle style,
                  const QList<QPointF>& points, const QString& label, int labelled) {
    auto* s = new QLineSeries;
    s->setName(name);
    s->setObjectName(id);
    QPen pen(color, 2, style);
    s->setPen(pen);
    s->append(points);
    s->setPointLabelsFormat(label);
    s->setPointLabelsColor(color.darker(130));
    s->setPointLabelsClipping(false);
    s->setPointLabelsVisible(true);
    for (int i = 0; i < static_cast<int>(points.size()); ++i)
        if (i != labelled)
            s->setPointConfiguration(i, QXYSeries::PointConfiguration::LabelVisibility, false);
    return s;
}

} // namespace

// The chart is given to the base constructor. QChartView(QWidget*) makes a default chart of its
// own, and setChart() only releases (never deletes) the chart it replaces: the former
// `QChartView(parent)` + `setChart(new QChart)` orphaned that default chart with its legend,
// title and background items, which LeakSanitizer reported once the view had been shown.
RooflineChart::RooflineChart(QWidget* parent) : QChartView(new QChart, parent) {
    setRenderHint(QPainter::Antialiasing);
    setMouseTracking(true);
}

QLineSeries* RooflineChart::roof(const QString& objectName) const {
    for (QAbstractSeries* s : chart()->series())
        if (s->objectName() == objectName) return qobject_cast<QLineSeries*>(s);
    return nullptr;
}

int RooflineChart::rowAt(QScatterSeries* s, const QPointF& p) const {
    const auto it = std::find(seriesOrder_.begin(), seriesOrder_.end(), s);
    if (it == seriesOrder_.end()) return -1;
    const auto& rows = seriesRows_[static_cast<size_t>(it - seriesOrder_.begin())];
    int best = -1;
    double bestDistance = INFINITY;
    for (size_t i = 0; i < rows.size(); ++i) { // the exact point, or the nearest in log space
        const QPointF q = s->at(static_cast<int>(i));
        const double d = std::hypot(std::log10(q.x() / p.x()), std::log10(q.y() / p.y()));
        if (d < bestDistance) bestDistance = d, best = rows[i];
    }
    return best;
}

QString RooflineChart::pointText(size_t row) const {
    if (!rows_ || row >= rows_->size()) return {};
    const RooflinePoint& p = (*rows_)[row].point;
    QString group = QString::fromStdString(p.group.name).toHtmlEscaped();
    if (p.group.direction != Direction::Other)
        group += QStringLiteral(" · ") + QString::fromUtf8(directionName(p.group.direction));
    QString text = QStringLiteral("<b>%1</b><br>%2 · %3<br>%4 kernels, %5 GPU time")
                       .arg(group, QString::fromUtf8(dtypeName(p.dtype)), tcLabel(p.tc))
                       .arg(p.kernels)
                       .arg(formatDuration(static_cast<double>(p.gpuTimeNs)));
    const double i = p.intensity();
    text += QStringLiteral("<br>Intensity: %1 FLOP/byte")
                .arg(std::isinf(i) ? QStringLiteral("∞ (no bytes; drawn at the right edge)")
                                   : number(i));
    text += QStringLiteral("<br>Achieved: %1 TFLOP/s").arg(number(p.achieved() / kTera));
    if (!(p.flops > 0)) text += QStringLiteral(" (no FLOPs: drawn on the lower edge)");
    const double roof = p.roof();
    if (std::isnan(roof)) {
        text += QStringLiteral("<br>Roof: unknown (%1)")
                    .arg(p.peaks ? QStringLiteral("no peak for this type")
                                 : QStringLiteral("GPU not in the peak table"));
    } else {
        text += QStringLiteral("<br>Roof: %1 TFLOP/s (%2-bound), <b>%3 % of roof</b>")
                    .arg(number(roof / kTera), QString::fromUtf8(rooflineBoundName(p.bound())))
                    .arg(p.percentOfRoof(), 0, 'f', 1);
    }
    return text;
}

void RooflineChart::select(int row) {
    for (QScatterSeries* s : seriesOrder_) s->deselectAllPoints();
    if (row >= 0 && static_cast<size_t>(row) < markers_.size())
        markers_[static_cast<size_t>(row)].series->selectPoint(
            markers_[static_cast<size_t>(row)].index);
}

void RooflineChart::setRows(const std::vector<RooflineRow>* rows, const DevicePeaks* peaks,
                            const QString& gpu) {
    rows_ = rows;
    markers_.clear();
    seriesRows_.clear();
    seriesOrder_.clear();
    // One chart, emptied and refilled: removeAllSeries() deletes the series (and their chart
    // items), the axes are removed and deleted here; the view keeps owning the chart.
    QChart* chart = this->chart();
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    const std::vector<RooflineRow> none;
    const auto& r = rows ? *rows : none;

    // Compute roofs: the peak of the dominant (most GPU time) Tensor Core type, and FP32.
    double fp32 = NAN, dominant = NAN;
    QString dominantName;
    if (peaks) {
        fp32 = peaks->fp32;
        std::map<std::pair<DType, TcState>, uint64_t> time;
        for (const auto& row : r)
            if (row.point.tc == TcState::Used)
                time[{row.point.dtype, row.point.tc}] += row.point.gpuTimeNs;
        const auto top =
            std::max_element(time.begin(), time.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
        if (top != time.end() &&
            std::isfinite(computePeak(*peaks, top->first.first, TcState::Used))) {
            dominant = computePeak(*peaks, top->first.first, TcState::Used);
            dominantName = QString::fromUtf8(dtypeName(top->first.first)) +
                           QStringLiteral(" Tensor Core peak");
        }
    }

    // Axes: whole decades around the points and the roofs' ridge points.
    double xLo = INFINITY, xHi = 0, yLo = INFINITY, yHi = 0;
    const auto cover = [&](double x, double y) {
        if (x > 0 && std::isfinite(x)) xLo = std::min(xLo, x), xHi = std::max(xHi, x);
        if (y > 0 && std::isfinite(y)) yLo = std::min(yLo, y), yHi = std::max(yHi, y);
    };
    uint64_t total = 0;
    for (const auto& row : r) {
        cover(row.point.intensity(), row.point.achieved() / kTera);
        total += row.point.gpuTimeNs;
    }
    for (double peak : {fp32, dominant})
        if (std::isfinite(peak) && peaks) cover(peak / peaks->bandwidth, peak / kTera);
    if (!(xHi > 0)) xLo = 0.1, xHi = 100;
    if (!(yHi > 0)) yLo = 0.01, yHi = 100;
    const double xMin = decadeBelow(xLo / 1.5), xMax = decadeAbove(xHi * 1.5);
    const double yMin = decadeBelow(yLo / 1.5), yMax = decadeAbove(yHi * 2.5);

    auto* xAxis = new QLogValueAxis;
    xAxis->setTitleText(QStringLiteral("Arithmetic intensity (FLOP/byte)"));
    xAxis->setLabelFormat(QStringLiteral("%g"));
    xAxis->setRange(xMin, xMax);
    xAxis->setMinorTickCount(8);
    auto* yAxis = new QLogValueAxis;
    yAxis->setTitleText(QStringLiteral("Achieved TFLOP/s"));
    yAxis->setLabelFormat(QStringLiteral("%g"));
    yAxis->setRange(yMin, yMax);
    yAxis->setMinorTickCount(8);
    chart->addAxis(xAxis, Qt::AlignBottom);
    chart->addAxis(yAxis, Qt::AlignLeft);
    QPen minor = xAxis->minorGridLinePen();
    minor.setColor(QColor(0xee, 0xee, 0xee));
    xAxis->setMinorGridLinePen(minor);
    yAxis->setMinorGridLinePen(minor);

    // Roofs under the points.
    if (peaks) {
        const double bw = peaks->bandwidth, top = std::isfinite(dominant) ? dominant : fp32;
        if (std::isfinite(bw) && std::isfinite(top)) {
            const double x0 = std::max(xMin, yMin * kTera / bw), ridge = top / bw;
            chart->addSeries(line(QStringLiteral("Memory roof: %1 GB/s").arg(number(bw / 1e9)),
                                  QStringLiteral("memoryRoof"), QColor(0x44, 0x44, 0x44),
                                  Qt::SolidLine,
                                  {{x0, x0 * bw / kTera},
                                   {std::sqrt(x0 * ridge), std::sqrt(x0 * ridge) * bw / kTera},
                                   {ridge, top / kTera}},
                                  QStringLiteral("%1 GB/s").arg(number(bw / 1e9)), 1));
        }
        if (std::isfinite(dominant) && std::isfinite(bw))
            chart->addSeries(line(
                QStringLiteral("%1: %2 TFLOP/s").arg(dominantName, number(dominant / kTera)),
                QStringLiteral("computeRoof"), QColor(0x2e, 0x7d, 0x32), Qt::SolidLine,
                {{dominant / bw, dominant / kTera}, {xMax, dominant / kTera}},
                QStringLiteral("%1 %2 TFLOP/s").arg(dominantName, number(dominant / kTera)), 0));
        if (std::isfinite(fp32) && std::isfinite(bw))
            chart->addSeries(line(QStringLiteral("FP32 peak: %1 TFLOP/s").arg(number(fp32 / kTera)),
                                  QStringLiteral("fp32Roof"), QColor(0x8a, 0x5a, 0x00),
                                  Qt::DashLine, {{fp32 / bw, fp32 / kTera}, {xMax, fp32 / kTera}},
                                  QStringLiteral("FP32 peak %1 TFLOP/s").arg(number(fp32 / kTera)),
                                  0));
        chart->setTitle(QStringLiteral("<b>%1</b> — peaks of the %2")
                            .arg(gpu.toHtmlEscaped(), QString::fromUtf8(peaks->model)));
    } else {
        chart->setTitle(QStringLiteral("<b>%1</b>").arg(gpu.toHtmlEscaped()));
    }

    // Points: a series per Tensor Core state and size, largest markers first (drawn under).
    markers_.resize(r.size());
    for (TcState tc : {TcState::Used, TcState::NotUsed, TcState::NotApplicable}) {
        for (size_t bucket = 0; bucket < std::size(kSizes); ++bucket) {
            std::vector<int> members;
            for (size_t i = 0; i < r.size(); ++i)
                if (r[i].point.tc == tc && sizeBucket(r[i].point.gpuTimeNs, total) == bucket)
                    members.push_back(static_cast<int>(i));
            if (members.empty()) continue;
            auto* s = new QScatterSeries;
            s->setName(tcLabel(tc));
            s->setObjectName(QStringLiteral("points"));
            s->setMarkerShape(QScatterSeries::MarkerShapeCircle);
            s->setMarkerSize(kSizes[bucket]);
            QColor fill = tcColor(tc);
            fill.setAlpha(190);
            s->setColor(fill);
            s->setBorderColor(tcColor(tc).darker(150));
            s->setSelectedColor(QColor(0x15, 0x4f, 0xd8));
            for (int i : members) {
                markers_[static_cast<size_t>(i)] = Marker{s, static_cast<int>(s->count())};
                s->append(position(r[static_cast<size_t>(i)].point, xMin, xMax, yMin));
            }
            seriesOrder_.push_back(s);
            seriesRows_.push_back(std::move(members));
            chart->addSeries(s);
            connect(s, &QScatterSeries::hovered, this, [this, s](const QPointF& p, bool on) {
                if (!on) return QToolTip::hideText();
                const int row = rowAt(s, p);
                if (row >= 0)
                    QToolTip::showText(QCursor::pos(), pointText(static_cast<size_t>(row)), this);
            });
            connect(s, &QScatterSeries::clicked, this, [this, s](const QPointF& p) {
                const int row = rowAt(s, p);
                if (row >= 0) emit pointClicked(row);
            });
        }
    }
    for (QAbstractSeries* s : chart->series()) {
        s->attachAxis(xAxis);
        s->attachAxis(yAxis);
    }
    // One legend entry per Tensor Core state (the sizes are in the panel's line).
    QList<QString> seen;
    for (QScatterSeries* s : seriesOrder_) {
        const bool first = !seen.contains(s->name());
        seen.append(s->name());
        for (QLegendMarker* m : chart->legend()->markers(s)) m->setVisible(first);
    }
}

} // namespace ls::gui
