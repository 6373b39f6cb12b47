#pragma once
// The Summary tab's charts (Qt Charts): top kernels by GPU time, GPU time by direction, by
// Tensor Core state and per layer. Clicking a bar asks for the filter that shows its kernels.
#include "core/present/chart_shares.h"

#include <QWidget>
#include <functional>
#include <memory>
#include <vector>

class QGridLayout;

namespace ls::gui {

class SummaryCharts : public QWidget {
    Q_OBJECT
  public:
    explicit SummaryCharts(QWidget* parent = nullptr);
    void setShares(const std::shared_ptr<const ChartShares>& shares); // null: no charts
    // The same in steps for SessionController's queue: the old charts go, then one chart a step.
    std::vector<std::function<void()>> setSharesSteps(std::shared_ptr<const ChartShares> shares);

  signals:
    void filterRequested(const QString& expression);

  private:
    QGridLayout* grid_;
};

} // namespace ls::gui
