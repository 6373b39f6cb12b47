#include "widgets/util/revealed_table_model.h"

#include <algorithm>

namespace ls::gui {

RevealedTableModel::RevealedTableModel(QObject* parent) : QAbstractTableModel(parent) {
    next_.setSingleShot(true);
    next_.setInterval(0);
    connect(&next_, &QTimer::timeout, this, [this] { revealUpTo(revealed_ + step_); });
}

int RevealedTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : revealed_;
}

void RevealedTableModel::resetRowCount(int total) {
    total_ = std::max(0, total);
    revealed_ = std::min(total_, std::max(revealed_, step_));
    if (revealed_ < total_)
        next_.start();
    else
        next_.stop();
}

void RevealedTableModel::revealUpTo(int count) {
    count = std::min(count, total_);
    if (count > revealed_) {
        beginInsertRows({}, revealed_, count - 1);
        revealed_ = count;
        endInsertRows();
    }
    if (revealed_ < total_)
        next_.start();
    else
        next_.stop();
}

void RevealedTableModel::revealAll() { revealUpTo(total_); }

void RevealedTableModel::revealThrough(int row) {
    if (row >= revealed_) revealUpTo(row + 1);
}

RevealedTableModel* revealedModel(const QAbstractItemModel* model) {
    return qobject_cast<RevealedTableModel*>(const_cast<QAbstractItemModel*>(model));
}

} // namespace ls::gui
