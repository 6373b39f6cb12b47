#include "widgets/summary_tables/memory_table_model.h"

namespace ls::gui {

MemoryTableModel::MemoryTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void MemoryTableModel::setRows(std::vector<OpMemoryRow> rows) {
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
}

int MemoryTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int MemoryTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MemoryTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
    const OpMemoryRow& r = rows_[static_cast<size_t>(index.row())];
    auto bytes = [&](double b) -> QVariant {
        if (role == kSortRole) return b;
        return QString::number(b / (1024.0 * 1024.0), 'f', 2);
    };
    if (role == Qt::TextAlignmentRole)
        return index.column() <= Type ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                      : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != kSortRole && role != Qt::ToolTipRole) return {};
    switch (index.column()) {
    case Name:
        return QString::fromStdString(r.name);
    case Type:
        return r.pool == MemoryPool::Allocated ? QStringLiteral("Allocated")
                                               : QStringLiteral("Reserved");
    case Allocations:
        return QVariant::fromValue<qulonglong>(r.allocations);
    case Frees:
        return QVariant::fromValue<qulonglong>(r.frees);
    case AllocatedSize:
        return bytes(static_cast<double>(r.allocatedBytes));
    case FreedSize:
        return bytes(static_cast<double>(r.freedBytes));
    case Increase:
        return bytes(static_cast<double>(r.increaseBytes()));
    case PeakTotal:
        return bytes(static_cast<double>(r.peakTotal));
    }
    return {};
}

QVariant MemoryTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole && section == PeakTotal)
        return QStringLiteral("The highest total of the row's memory type (allocated or "
                              "reserved) any of its events left on the device");
    if (role != Qt::DisplayRole) return {};
    static const char* const kNames[] = {"Name",          "Memory type",    "Allocations",
                                         "Frees",         "Allocated (MB)", "Freed (MB)",
                                         "Increase (MB)", "Peak total (MB)"};
    return section >= 0 && section < ColumnCount ? QString::fromLatin1(kNames[section])
                                                 : QVariant();
}

} // namespace ls::gui
