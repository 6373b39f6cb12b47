#pragma once
// The kernel table as an item model over core's KernelTable, or over a SessionKernelTable to
// show every rank at once (then a row id is a session row id and a `file` column follows the
// kernel columns, as in `layerscope-cli kernels FILE...`): no per-row objects, only a vector of
// row ids (the rows in view order). A scope (a layer, an op, a chart bar) and a filter
// expression narrow the rows; sorting permutes them in place. Human units on the display role,
// raw numbers on SortRole, the CLI's exact text on ExportRole.
#include "core/import/ncu/ncu_metrics.h"
#include "core/views/kernel_filter.h"
#include "core/views/kernel_table.h"
#include "core/views/session_kernel_table.h"
#include "widgets/export/csv_export.h"
#include "widgets/util/revealed_table_model.h"

#include <cmath>
#include <functional>
#include <memory>
#include <vector>

namespace ls {
class KernelLabels;
}

namespace ls::gui {

class KernelTableModel : public RevealedTableModel {
    Q_OBJECT
  public:
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int ExportRole =
        kCsvRole; // the text and header `layerscope-cli kernels` writes
    static constexpr int KernelIdRole = Qt::UserRole + 3;

    explicit KernelTableModel(QObject* parent = nullptr);
    ~KernelTableModel() override;

    void setTable(std::shared_ptr<const KernelTable> table);
    // The table with every kernel already sorted by column in order (off the GUI thread): the
    // model takes that sort and its rows as they are.
    void setSortedTable(std::shared_ptr<const KernelTable> table,
                        std::shared_ptr<const std::vector<KernelId>> sorted, int column,
                        Qt::SortOrder order);
    void setTables(std::shared_ptr<const SessionKernelTable> tables); // every rank of a session
    // The table narrowed to a scope from the start (no pass over all its rows first).
    void setScopedTable(std::shared_ptr<const KernelTable> table, std::vector<KernelId> kernels,
                        const QString& label);
    // The one trace's table; null while several are shown.
    const KernelTable* table() const {
        return tables_ && tables_->traceCount() == 1 ? &tables_->table(0) : nullptr;
    }
    const SessionKernelTable* tables() const { return tables_.get(); }
    // The trace table a row id belongs to and the kernel it is there.
    const KernelTable& tableOf(KernelId row) const { return tables_->table(tables_->traceOf(row)); }
    KernelId localOf(KernelId row) const { return tables_->localOf(row); }
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
    // -1 when not shown; may be past rowCount() while the rows are revealed (revealThrough).
    int rowOf(KernelId k) const;
    const std::vector<KernelId>& rows() const { return *rows_; }
    double
    rowsGpuTimeNs() const; // sum of the shown kernels' durations, computed once per change of rows
    int sortColumn() const { return sortColumn_; }
    Qt::SortOrder sortOrder() const { return sortOrder_; }

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    void sort(int column, Qt::SortOrder order) override;

  signals:
    void rowsChanged(); // scope, filter or table changed (not on sort)

  private:
    QString display(const KernelTable& table, KernelId k, KernelField f) const;
    QVariant fileData(KernelId row, int role) const;
    bool hasFileColumn() const { return tables_ && tables_->traceCount() > 1; }
    QVariant ncuData(KernelId k, uint32_t metric, int role) const;
    void sortRows(std::vector<KernelId>& rows, int column, bool descending) const;
    void rebuildRows();
    void replaceTables(std::shared_ptr<const SessionKernelTable> tables,
                       std::vector<KernelId> scope, bool hasScope, const QString& label);
    void changeRows(const std::function<void()>& change);

    std::shared_ptr<const SessionKernelTable> tables_;
    std::shared_ptr<const NcuMetrics> ncu_; // one trace only
    mutable std::vector<std::shared_ptr<const KernelLabels>>
        labels_; // per part, built when a short name is first shown
    std::vector<KernelId> scope_;
    bool hasScope_ = false;
    QString scopeLabel_;
    KernelFilter filter_;
    QString filterText_;
    // The rows shown, in order: the loader's sorted order itself when nothing scopes or filters
    // it (a copy faults in 4 MB of fresh pages per million kernels on the GUI thread).
    std::shared_ptr<const std::vector<KernelId>> rows_;
    std::shared_ptr<const std::vector<KernelId>>
        sortedAll_; // every row in sortedColumn_/sortedOrder_
    int sortedColumn_ = -1;
    Qt::SortOrder sortedOrder_ = Qt::AscendingOrder;
    mutable double rowsGpuTimeNs_ = NAN;
    mutable std::vector<int32_t> rowOfKernel_; // built on demand, cleared when rows change
    int sortColumn_ = -1;
    Qt::SortOrder sortOrder_ = Qt::AscendingOrder;
};

} // namespace ls::gui
