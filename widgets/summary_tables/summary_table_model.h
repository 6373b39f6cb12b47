#pragma once
// One of Paddle's summary tables (core/reports/summary_tables) as a tree model: the Operator
// table's op -> inner phase -> kernel levels are parent and child rows (from each row's depth),
// the other tables are flat. Columns: name, calls, CPU and GPU total / avg / max / min / ratio.
// Times show in ms; the sort role gives the raw ns, the CSV role the CLI's cells.
#include "core/reports/summary_tables/summary_table.h"

#include <QAbstractItemModel>
#include <vector>

namespace ls::gui {

class SummaryTableModel : public QAbstractItemModel {
    Q_OBJECT
  public:
    enum Column {
        Name,
        Calls,
        CpuTotal,
        CpuAvg,
        CpuMax,
        CpuMin,
        CpuRatio,
        GpuTotal,
        GpuAvg,
        GpuMax,
        GpuMin,
        GpuRatio,
        ColumnCount
    };
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit SummaryTableModel(QObject* parent = nullptr);
    void setTable(SummaryTable table);
    const SummaryTable& table() const { return table_; }
    // The table row an index shows (-1 for none).
    int rowOf(const QModelIndex& index) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    SummaryTable table_;
    std::vector<int> parent_;                // per table row: its parent row, -1 at the top
    std::vector<std::vector<int>> children_; // per table row + 1 (0: the top level)
    std::vector<int> position_;              // per table row: its index among its siblings
};

} // namespace ls::gui
