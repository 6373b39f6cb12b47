#include "widgets/summary_tables/summary_table_model.h"

#include "core/reports/summary_tables/summary_table_writer.h"
#include "widgets/export/csv_export.h"

namespace ls::gui {
namespace {

const TimeCell* cellOf(const SummaryTableRow& r, int column) {
    if (column >= SummaryTableModel::CpuTotal && column <= SummaryTableModel::CpuRatio)
        return &r.cpu;
    if (column >= SummaryTableModel::GpuTotal && column <= SummaryTableModel::GpuRatio)
        return &r.gpu;
    return nullptr;
}

// The figure a time column shows, in ns (ratio: percent); nullopt where the cell is empty.
std::optional<double> figure(const SummaryTableRow& r, int column) {
    const TimeCell* c = cellOf(r, column);
    if (!c || !c->present) return std::nullopt;
    const int stat = (column - SummaryTableModel::CpuTotal) % 5;
    if (stat == 4) return c->ratioPct;
    if (stat == 0) return static_cast<double>(c->d.total);
    if (c->totalOnly || c->d.count == 0) return std::nullopt;
    if (stat == 1) return c->d.avg();
    return static_cast<double>(stat == 2 ? c->d.max : c->d.min);
}

} // namespace

SummaryTableModel::SummaryTableModel(QObject* parent) : QAbstractItemModel(parent) {
    children_.resize(1);
}

void SummaryTableModel::setTable(SummaryTable table) {
    beginResetModel();
    table_ = std::move(table);
    // The GPU section marker of the Overview is a heading in Paddle's text, not a row here.
    std::erase_if(table_.rows,
                  [](const SummaryTableRow& r) { return r.kind == SummaryRowKind::GpuSection; });
    const size_t n = table_.rows.size();
    parent_.assign(n, -1);
    position_.assign(n, 0);
    children_.assign(n + 1, {});
    std::vector<int> open; // the rows above, one per depth
    for (size_t i = 0; i < n; ++i) {
        const size_t depth = table_.rows[i].depth;
        // Flat tables carry depth 1 for their indented rows: only the Operator tree nests.
        const bool tree = table_.title == "Operator Summary";
        if (!tree) {
            parent_[i] = -1;
        } else {
            open.resize(std::min(open.size(), depth));
            parent_[i] = open.empty() ? -1 : open.back();
            open.push_back(static_cast<int>(i));
        }
        auto& siblings = children_[static_cast<size_t>(parent_[i] + 1)];
        position_[i] = static_cast<int>(siblings.size());
        siblings.push_back(static_cast<int>(i));
    }
    endResetModel();
}

int SummaryTableModel::rowOf(const QModelIndex& index) const {
    return index.isValid() ? static_cast<int>(index.internalId()) : -1;
}

QModelIndex SummaryTableModel::index(int row, int column, const QModelIndex& parent) const {
    const int p = rowOf(parent);
    const auto& siblings = children_[static_cast<size_t>(p + 1)];
    if (row < 0 || row >= static_cast<int>(siblings.size()) || column < 0 || column >= ColumnCount)
        return {};
    return createIndex(row, column, static_cast<quintptr>(siblings[static_cast<size_t>(row)]));
}

QModelIndex SummaryTableModel::parent(const QModelIndex& child) const {
    const int r = rowOf(child);
    if (r < 0) return {};
    const int p = parent_[static_cast<size_t>(r)];
    if (p < 0) return {};
    return createIndex(position_[static_cast<size_t>(p)], 0, static_cast<quintptr>(p));
}

int SummaryTableModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0) return 0;
    return static_cast<int>(children_[static_cast<size_t>(rowOf(parent) + 1)].size());
}

int SummaryTableModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant SummaryTableModel::data(const QModelIndex& index, int role) const {
    const int r = rowOf(index);
    if (r < 0) return {};
    const SummaryTableRow& row = table_.rows[static_cast<size_t>(r)];
    const int column = index.column();
    if (column == Name) {
        if (role == kSortRole || role == kCsvRole) return QString::fromStdString(row.name);
        // Flat tables indent their sub-rows as Paddle prints them ("  Forward").
        if (role == Qt::DisplayRole)
            return table_.title == "Operator Summary" ? QString::fromStdString(row.name)
                                                      : QString(2 * row.depth, QLatin1Char(' ')) +
                                                            QString::fromStdString(row.name);
        if (role == Qt::ToolTipRole)
            return row.kernels.empty()
                       ? QString::fromStdString(row.name)
                       : QStringLiteral("%1\nClick to select its %2 kernels everywhere")
                             .arg(QString::fromStdString(row.name))
                             .arg(row.kernels.size());
        return {};
    }
    if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
    if (column == Calls) {
        if (!row.callsKnown) {
            if (role == kSortRole) return -1;
            return role == Qt::DisplayRole || role == kCsvRole ? QVariant(QString()) : QVariant();
        }
        if (role == Qt::DisplayRole || role == kCsvRole)
            return QString::number(static_cast<qulonglong>(row.calls));
        if (role == kSortRole) return static_cast<qulonglong>(row.calls);
        return {};
    }
    const std::optional<double> v = figure(row, column);
    const bool ratio = column == CpuRatio || column == GpuRatio;
    if (role == kSortRole) return v ? *v : -1.0;
    if (role == kCsvRole) {
        if (!v) return QString();
        const bool average = column == CpuAvg || column == GpuAvg;
        return QString::number(*v, 'f', ratio ? 2 : average ? 1 : 0);
    }
    if (role != Qt::DisplayRole) return {};
    if (!v) return QStringLiteral("-");
    if (ratio) return QString::number(*v, 'f', 2);
    return QString::fromStdString(formatSummaryTime(*v, SummaryTimeUnit::Ms));
}

QVariant SummaryTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    static const char* kDisplay[] = {"Name",       "Calls",      "CPU total ms", "CPU avg ms",
                                     "CPU max ms", "CPU min ms", "CPU %",        "GPU total ms",
                                     "GPU avg ms", "GPU max ms", "GPU min ms",   "GPU %"};
    static const char* kCsv[] = {"name",       "calls",      "cpu_total_ns",  "cpu_avg_ns",
                                 "cpu_max_ns", "cpu_min_ns", "cpu_ratio_pct", "gpu_total_ns",
                                 "gpu_avg_ns", "gpu_max_ns", "gpu_min_ns",    "gpu_ratio_pct"};
    if (section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) return QString::fromLatin1(kDisplay[section]);
    if (role == kCsvRole) return QString::fromLatin1(kCsv[section]);
    return {};
}

} // namespace ls::gui
