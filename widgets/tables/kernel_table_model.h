#pragma once
// The kernel table as an item model over core's KernelTable: no per-row objects, only a vector of
// kernel ids (the rows in view order). A scope (a layer, an op, a chart bar) and a filter
// expression narrow the rows; sorting permutes them in place. Human units on the display role,
// raw numbers on SortRole, the CLI's exact text on ExportRole.
#include "core/views/kernel_filter.h"
#include "core/views/kernel_table.h"
#include "core/import/ncu/ncu_metrics.h"
#include "widgets/csv_export.h"

#include <QAbstractTableModel>

#include <functional>
#include <memory>
#include <vector>

namespace ls::gui {

class KernelLabels;

class KernelTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int ExportRole = kCsvRole; // the text and header `layerscope-cli kernels` writes
    static constexpr int KernelIdRole = Qt::UserRole + 3;

    explicit KernelTableModel(QObject* parent = nullptr);
    ~KernelTableModel() override;

    void setTable(std::shared_ptr<const KernelTable> table);
    const KernelTable* table() const { return table_.get(); }
    // Imported Nsight Compute metrics: one more column per metric after the kernels columns, and
    // the measured Tensor Core verdict in the tc column where the file has the counts.
    void setNcu(std::shared_ptr<const NcuMetrics> ncu);
    const NcuMetrics* ncu() const { return ncu_.get(); }

    // Narrows the table to these kernels (any order; shown in the current sort); label says why
    // ("layer layer0, forward and backward"). clearScope() shows every kernel again.
    void setScope(std::vector<KernelId> kernels, const QString& label);
    void clearScope();
    QString scopeLabel() const { return scopeLabel_; }
    bool hasScope() const { return hasScope_; }

    // Returns the parse error (one line), or an empty string when the expression was applied.
    QString setFilter(const QString& expression);
    QString filterText() const { return filterText_; }

    KernelId kernelAt(int row) const;
    int rowOf(KernelId k) const; // -1 when not shown
    const std::vector<KernelId>& rows() const { return rows_; }
    int sortColumn() const { return sortColumn_; }
    Qt::SortOrder sortOrder() const { return sortOrder_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    void sort(int column, Qt::SortOrder order) override;

signals:
    void rowsChanged(); // scope, filter or table changed (not on sort)

private:
    QString display(KernelId k, KernelField f) const;
    QVariant ncuData(KernelId k, uint32_t metric, int role) const;
    void sortRows(int column, bool descending);
    void rebuildRows();
    void changeRows(const std::function<void()>& change);

    std::shared_ptr<const KernelTable> table_;
    std::shared_ptr<const NcuMetrics> ncu_;
    mutable std::shared_ptr<const KernelLabels> labels_; // built when a short name is first shown
    std::vector<KernelId> scope_;
    bool hasScope_ = false;
    QString scopeLabel_;
    KernelFilter filter_;
    QString filterText_;
    std::vector<KernelId> rows_;
    mutable std::vector<int32_t> rowOfKernel_; // built on demand, cleared when rows change
    int sortColumn_ = -1;
    Qt::SortOrder sortOrder_ = Qt::AscendingOrder;
};

} // namespace ls::gui
