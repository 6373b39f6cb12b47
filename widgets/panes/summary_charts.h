#pragma once
// The Summary tab's charts (Qt Charts): top kernels by GPU time, GPU time by direction, by
// Tensor Core state and per layer. Clicking a bar asks for the filter that shows its kernels.
#include "core/model/trace.h"
#include "core/reports/summary.h"
#include "core/views/time_breakdown.h"

#include <QWidget>

#include <memory>

class QGridLayout;

namespace ls::gui {

// What the four charts plot, computed off the GUI thread (a million kernels take ~0.1 s).
// summary: kernelSummary(t, KernelGrouping::Name, KernelNaming::Demangled).
struct ChartShares {
    std::vector<TimeShare> topKernels, byLayer, byDirection, byTensorCores;
};
ChartShares chartShares(const Trace& t, const std::vector<SummaryRow>& summary);

class SummaryCharts : public QWidget {
    Q_OBJECT
public:
    explicit SummaryCharts(QWidget* parent = nullptr);
    void setShares(const std::shared_ptr<const ChartShares>& shares); // null: no charts

signals:
    void filterRequested(const QString& expression);

private:
    QGridLayout* grid_;
};

} // namespace ls::gui
