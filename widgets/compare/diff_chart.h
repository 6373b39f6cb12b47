#pragma once
// The Compare tab's chart (Qt Charts): GPU time of run A against run B, two bars per group, for
// the shown level's first rows (the largest differences; at the layer level, each layer and
// direction). Clicking a bar selects its row.
#include "core/compare/run_diff.h"

#include <QChartView>
#include <memory>
#include <vector>

namespace ls::gui {

class DiffChart : public QChartView {
    Q_OBJECT
  public:
    static constexpr int kMaxGroups = 15;

    explicit DiffChart(QWidget* parent = nullptr);
    // Draws diff's first kMaxGroups rows (totals excluded); null clears the chart.
    void setResult(const std::shared_ptr<const DiffResult>& diff, const QString& labelA,
                   const QString& labelB);
    // Groups drawn, top to bottom, as indexes into the result's rows.
    const std::vector<int>& shownRows() const { return shown_; }
    int barSetCount() const;

  signals:
    void rowClicked(int row);

  private:
    std::vector<int> shown_;
};

} // namespace ls::gui
