#pragma once
// The Summary tab: the charts (time by kernel class, the top kernels) above the table of kernels
// grouped by name.
#include "widgets/page/trace_page.h"

#include <QSplitter>

class QTableView;

namespace ls::gui {

class KernelSummaryModel;
class SummaryCharts;

class SummaryPage : public QSplitter, public TracePage {
    Q_OBJECT
  public:
    explicit SummaryPage(QWidget* parent = nullptr);
    std::vector<std::function<void()>> showSteps(std::shared_ptr<const TraceViews> views) override;
    std::vector<QAbstractItemView*> exportViews() const override;

    SummaryCharts* charts() const { return charts_; }
    QTableView* table() const { return table_; }

  private:
    SummaryCharts* charts_;
    KernelSummaryModel* model_;
    QTableView* table_;
};

} // namespace ls::gui
