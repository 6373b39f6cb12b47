#include "widgets/tables/kernel_summary_model.h"

#include "widgets/util/units.h"

namespace ls::gui {

KernelSummaryModel::KernelSummaryModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelSummaryModel::setTrace(const std::shared_ptr<const Trace>& trace) {
    setRows(trace ? kernelSummary(*trace, KernelGrouping::Name, KernelNaming::Demangled)
                  : std::vector<SummaryRow>{});
}

void KernelSummaryModel::setRows(std::vector<SummaryRow> rows) {
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
}

int KernelSummaryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int KernelSummaryModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelSummaryModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
    const SummaryRow& r = rows_[static_cast<size_t>(index.row())];
    const auto& s = r.stats;
    if (role == SortRole) {
        switch (index.column()) {
        case Percent:
            return r.percent;
        case Total:
            return static_cast<qulonglong>(s.total);
        case Instances:
            return static_cast<qulonglong>(s.count);
        case Avg:
            return s.avg;
        case Median:
            return s.median;
        case Min:
            return static_cast<qlonglong>(s.min);
        case Max:
            return static_cast<qlonglong>(s.max);
        case StdDev:
            return s.stddev;
        case Name:
            return QString::fromStdString(r.name);
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Percent:
            return QStringLiteral("%1 %").arg(r.percent, 0, 'f', 1);
        case Total:
            return formatDuration(static_cast<double>(s.total));
        case Instances:
            return QString::number(s.count);
        case Avg:
            return formatDuration(s.avg);
        case Median:
            return formatDuration(s.median);
        case Min:
            return formatDuration(static_cast<double>(s.min));
        case Max:
            return formatDuration(static_cast<double>(s.max));
        case StdDev:
            return formatDuration(s.stddev);
        case Name:
            return QString::fromStdString(r.name);
        }
    }
    if (role == Qt::ToolTipRole && index.column() == Name) return QString::fromStdString(r.name);
    if (role == Qt::TextAlignmentRole && index.column() != Name)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant KernelSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"Time (%)", "Total", "Instances", "Avg", "Med",
                                  "Min",      "Max",   "StdDev",    "Name"};
    return section >= 0 && section < ColumnCount ? QString::fromLatin1(names[section]) : QVariant();
}

} // namespace ls::gui
