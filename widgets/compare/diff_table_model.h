#pragma once
// The rows of a comparison (DiffResult) as a table model with the CLI's `diff` columns
// (core/compare/diff_table.h; the op level adds the shapes): human units on the display role, raw
// numbers on SortRole, the CLI's cells on kCsvRole (so the CSV export writes what `layerscope-cli
// diff` writes), rows only in A or only in B marked, and the totals row last. DiffSortProxy sorts
// by any column and keeps the totals row pinned at the end.
#include "core/compare/run_diff.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <memory>

namespace ls::gui {

class DiffTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    // AShapes and BShapes only at the op level.
    enum Column {
        Key,
        Dir,
        ACount,
        BCount,
        ATime,
        BTime,
        Delta,
        Ratio,
        AFlops,
        BFlops,
        ATflops,
        BTflops,
        ATc,
        BTc,
        AShapes,
        BShapes
    };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int TotalRole = Qt::UserRole + 3; // true on the totals row

    explicit DiffTableModel(QObject* parent = nullptr);
    // The rows of `diff`, then its totals row; null clears the table.
    void setResult(std::shared_ptr<const DiffResult> diff);
    const DiffResult* result() const { return diff_.get(); }
    // The diff row of a model row (the totals row is the last); null when out of range.
    const DiffRow* rowAt(int row) const;
    bool isTotal(int row) const { return diff_ && row == static_cast<int>(diff_->rows.size()); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    std::shared_ptr<const DiffResult> diff_;
    int columns_ = 0;
};

// Sorts by SortRole with unknown (NaN) values last, whatever the order, and the totals row after
// every other row.
class DiffSortProxy : public QSortFilterProxyModel {
    Q_OBJECT
  public:
    explicit DiffSortProxy(QObject* parent = nullptr);

  protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

} // namespace ls::gui
