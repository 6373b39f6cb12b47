#pragma once
// Paddle's memory manipulation table (core/reports/gpu_memory.h) as a flat model: per op or per
// layer, the memory type, allocations, frees, their sizes, the increase and the highest total the
// row's events reached. Sizes show in MB; the sort role gives the raw bytes.
#include "core/reports/gpu_memory.h"

#include <QAbstractTableModel>
#include <vector>

namespace ls::gui {

class MemoryTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Name,
        Type,
        Allocations,
        Frees,
        AllocatedSize,
        FreedSize,
        Increase,
        PeakTotal,
        ColumnCount
    };
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit MemoryTableModel(QObject* parent = nullptr);
    void setRows(std::vector<OpMemoryRow> rows);
    const std::vector<OpMemoryRow>& rows() const { return rows_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    std::vector<OpMemoryRow> rows_;
};

} // namespace ls::gui
