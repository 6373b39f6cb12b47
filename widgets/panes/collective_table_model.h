#pragma once
// The Ranks tab's collectives table as a model over the matched collectives themselves: a job of
// hundreds of ranks matches thousands of collectives, and building an item per cell of them held
// the GUI thread for a quarter of a second when the job opened. Rows are made when painted.
#include "core/reports/collectives.h"

#include <QAbstractTableModel>
#include <memory>

namespace ls::gui {

class CollectiveTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    // The value a column sorts by (numbers as numbers), as the other Ranks tab tables use it.
    static constexpr int kSortRole = Qt::UserRole + 1;
    enum Column { Index, Type, Communicator, Ranks, Bytes, Skew, LastRank, Waited, Longest, Count };

    using QAbstractTableModel::QAbstractTableModel;
    // Shows `match` (kept alive by `owner`), or nothing when it is null.
    void setCollectives(std::shared_ptr<const void> owner, const CollectiveMatch* match);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    QVariant display(const MatchedCollective& c, int row, int column) const;
    QVariant sortValue(const MatchedCollective& c, int row, int column) const;

    std::shared_ptr<const void> owner_;
    const CollectiveMatch* match_ = nullptr;
};

} // namespace ls::gui
