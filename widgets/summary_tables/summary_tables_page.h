#pragma once
// The "Summary tables" tab: PaddlePaddle's console tables for the shown trace, whatever its format
// (docs/summary-tables.md): a combo picks Overview, Model, Distribution, Operator, Kernel or
// Memory, a second one the order (Paddle's sorted_by) of the Operator and Kernel tables. The
// Operator tree expands from op to inner phases to kernels; clicking an op, a phase or a kernel
// row asks the window to select those kernels everywhere (kernel table, layer tree, timeline).
// Memory shows the GPU memory events per op or per layer (core/reports/gpu_memory.h) under each
// device's peaks. A table is computed off the GUI thread when first shown.
#include "core/reports/summary_tables/summary_table.h"
#include "widgets/page/trace_page.h"

#include <QString>
#include <QWidget>
#include <vector>

class QComboBox;
class QLabel;
class QTreeView;
class QSortFilterProxyModel;

namespace ls::gui {

class BackgroundJob;
class MemoryTableModel;
class SummaryTableModel;

class SummaryTablesPage : public QWidget, public TracePage {
    Q_OBJECT
  public:
    explicit SummaryTablesPage(QWidget* parent = nullptr);
    std::vector<std::function<void()>> showSteps(std::shared_ptr<const TraceViews> views) override;
    std::vector<QAbstractItemView*> exportViews() const override;

    QComboBox* tableBox() const { return tableBox_; }
    QComboBox* sortBox() const { return sortBox_; }
    QLabel* header() const { return header_; }
    QTreeView* view() const { return view_; }
    SummaryTableModel* model() const { return model_; }
    // Shows table `report` ("overview" … "kernel_table", "memory", "memory_layers") as picking
    // it in the combo does.
    void showTable(const QString& report);
    // Asks for the kernels of the view's row at `index` as a click does.
    void pickRow(const QModelIndex& index);

  signals:
    void kernelsRequested(const std::vector<ls::KernelId>& kernels, const QString& label);
    void tableShown(); // the picked table is on screen

  private:
    void recompute();
    void recomputeMemory(bool byLayer);

    QLabel* header_;
    QComboBox* tableBox_;
    QComboBox* sortBox_;
    QTreeView* view_;
    SummaryTableModel* model_;
    QSortFilterProxyModel* proxy_;
    MemoryTableModel* memoryModel_; // the Memory tables' rows, shown instead of model_
    QSortFilterProxyModel* memoryProxy_;
    BackgroundJob* job_;
    std::shared_ptr<const Trace> trace_;
};

} // namespace ls::gui
