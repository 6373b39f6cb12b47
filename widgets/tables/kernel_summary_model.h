#pragma once
// Kernels grouped by name (nsys cuda_gpu_kern_sum) as a table model: human units on the display
// role, raw numbers on SortRole.
#include "core/reports/summary.h"

#include <QAbstractTableModel>
#include <memory>

namespace ls::gui {

class KernelSummaryModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Percent, Total, Instances, Avg, Median, Min, Max, StdDev, Name, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit KernelSummaryModel(QObject* parent = nullptr);
    void setTrace(const std::shared_ptr<const Trace>& trace);
    void
    setRows(std::vector<SummaryRow> rows); // kernelSummary(t, Name, Demangled), computed elsewhere

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    std::vector<SummaryRow> rows_;
};

} // namespace ls::gui
