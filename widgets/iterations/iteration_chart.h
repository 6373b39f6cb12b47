#pragma once
// The iteration navigator's chart (Qt Charts): one bar per iteration, its duration; outliers (the
// interquartile rule of core/reports/iteration_summary.h) in another colour, the current
// iteration darker, the median as a dashed line. A click on a bar reports its index; hovering
// one tells its numbers.
#include "core/reports/iteration_summary.h"

#include <QChartView>
#include <memory>

class QBarSet;
class QLineSeries;
class QStackedBarSeries;

namespace ls::gui {

class IterationChart : public QChartView {
    Q_OBJECT
  public:
    explicit IterationChart(QWidget* parent = nullptr);
    // Null or no rows: an empty chart.
    void setSummary(std::shared_ptr<const IterationSummary> summary);
    void setCurrent(int index); // -1: none

    // What is drawn, read back from the chart (for tests and tooltips).
    int barCount() const;
    double barValueNs(int index) const; // the bar's height, in ns
    bool barIsOutlier(int index) const;
    double medianLineNs() const; // NaN without a line
    // Centre of bar `index` in viewport coordinates.
    QPoint barCenter(int index) const;

  signals:
    void barClicked(int index);

  private:
    QString barToolTip(int index) const;
    static QString generalToolTip();

    std::shared_ptr<const IterationSummary> summary_;
    QBarSet* typical_ = nullptr;
    QBarSet* outliers_ = nullptr;
    QStackedBarSeries* bars_ = nullptr;
    QLineSeries* median_ = nullptr;
    double nsPerUnit_ = 1e6; // the value axis is in ms (µs for short iterations)
};

} // namespace ls::gui
