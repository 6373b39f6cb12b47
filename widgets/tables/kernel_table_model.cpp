#include "widgets/tables/kernel_table_model.h"

#include "core/present/kernel_labels.h"
#include "widgets/tables/column_help.h"
#include "widgets/tables/kernel_count.h"
#include "widgets/util/units.h"

#include <QBrush>
#include <QColor>
#include <algorithm>
#include <cmath>
#include <functional>

namespace ls::gui {
namespace {

KernelField fieldOf(int column) { return static_cast<KernelField>(column); }
QString qstr(const std::string& s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

} // namespace

namespace {
const std::shared_ptr<const std::vector<KernelId>>& noRows() {
    static const auto none = std::make_shared<const std::vector<KernelId>>();
    return none;
}
} // namespace

KernelTableModel::KernelTableModel(QObject* parent) : RevealedTableModel(parent), rows_(noRows()) {}
KernelTableModel::~KernelTableModel() = default;

// Every change of table, scope or filter: reset the view around it and rebuild the rows.
void KernelTableModel::changeRows(const std::function<void()>& change) {
    beginResetModel();
    change();
    rebuildRows();
    resetRowCount(static_cast<int>(rows_->size()));
    endResetModel();
    emit rowsChanged();
}

void KernelTableModel::setTable(std::shared_ptr<const KernelTable> table) {
    setTables(table ? std::make_shared<const SessionKernelTable>(
                          std::vector<std::shared_ptr<const KernelTable>>{std::move(table)})
                    : nullptr);
}

// Inside changeRows: the new tables, their ncu metrics and labels gone, the scope given.
void KernelTableModel::replaceTables(std::shared_ptr<const SessionKernelTable> tables,
                                     std::vector<KernelId> scope, bool hasScope,
                                     const QString& label) {
    tables_ = std::move(tables);
    sortedAll_.reset();
    ncu_.reset();
    labels_.assign(tables_ ? tables_->traceCount() : 0, nullptr);
    if (sortColumn_ >= columnCount()) sortColumn_ = -1;
    scope_ = std::move(scope);
    std::sort(scope_.begin(), scope_.end());
    hasScope_ = hasScope;
    scopeLabel_ = label;
}

void KernelTableModel::setTables(std::shared_ptr<const SessionKernelTable> tables) {
    changeRows([&] { replaceTables(std::move(tables), {}, false, QString()); });
}

void KernelTableModel::setSortedTable(std::shared_ptr<const KernelTable> table,
                                      std::shared_ptr<const std::vector<KernelId>> sorted,
                                      int column, Qt::SortOrder order) {
    changeRows([&] {
        const bool valid = table && sorted && sorted->size() == table->size() && column >= 0 &&
                           static_cast<size_t>(column) < kKernelFieldCount;
        replaceTables(table ? std::make_shared<const SessionKernelTable>(
                                  std::vector<std::shared_ptr<const KernelTable>>{std::move(table)})
                            : nullptr,
                      {}, false, QString());
        if (!valid) return;
        sortedAll_ = std::move(sorted);
        sortedColumn_ = sortColumn_ = column;
        sortedOrder_ = sortOrder_ = order;
    });
}

void KernelTableModel::setScopedTable(std::shared_ptr<const KernelTable> table,
                                      std::vector<KernelId> kernels, const QString& label) {
    changeRows([&] {
        replaceTables(table ? std::make_shared<const SessionKernelTable>(
                                  std::vector<std::shared_ptr<const KernelTable>>{std::move(table)})
                            : nullptr,
                      std::move(kernels), true, label);
    });
}

void KernelTableModel::setNcu(std::shared_ptr<const NcuMetrics> ncu) {
    beginResetModel();
    ncu_ = table() && ncu && ncu->trace() == table()->tracePtr() ? std::move(ncu) : nullptr;
    if (sortColumn_ >= columnCount()) sortColumn_ = -1;
    resetRowCount(static_cast<int>(rows_->size()));
    endResetModel();
}

void KernelTableModel::setScope(std::vector<KernelId> kernels, const QString& label) {
    changeRows([&] {
        scope_ = std::move(kernels);
        std::sort(scope_.begin(), scope_.end());
        hasScope_ = true;
        scopeLabel_ = label;
    });
}

void KernelTableModel::clearScope() {
    if (!hasScope_) return;
    changeRows([&] {
        scope_.clear();
        hasScope_ = false;
        scopeLabel_.clear();
    });
}

QString KernelTableModel::setFilter(const QString& expression) {
    auto parsed = KernelFilter::parse(expression.toStdString());
    if (!parsed.filter) return QString::fromStdString(parsed.error);
    changeRows([&] {
        filter_ = std::move(*parsed.filter);
        filterText_ = expression;
    });
    return {};
}

// Scope, then filter, then the current sort: each step works on kernel ids only.
void KernelTableModel::rebuildRows() {
    rowOfKernel_.clear();
    rowsGpuTimeNs_ = NAN;
    rows_ = noRows();
    if (!tables_) return;
    const bool presorted =
        !hasScope_ && sortedAll_ && sortColumn_ == sortedColumn_ && sortOrder_ == sortedOrder_;
    if (presorted) { // a filter keeps the order it is given
        rows_ = filter_.empty() ? sortedAll_
                                : std::make_shared<const std::vector<KernelId>>(
                                      tables_->filter(filter_, *sortedAll_));
        return;
    }
    std::vector<KernelId> base;
    if (hasScope_) {
        base = scope_;
    } else {
        base.resize(tables_->size());
        for (uint32_t i = 0; i < base.size(); ++i) base[i] = KernelId(i);
    }
    std::vector<KernelId> rows = filter_.empty() ? std::move(base) : tables_->filter(filter_, base);
    if (sortColumn_ >= 0) sortRows(rows, sortColumn_, sortOrder_ == Qt::DescendingOrder);
    rows_ = std::make_shared<const std::vector<KernelId>>(std::move(rows));
}

// Kernel columns sort in core; the file column by the order the files were given; ncu columns
// by their values, unknown last, ties in place.
void KernelTableModel::sortRows(std::vector<KernelId>& rows, int column, bool descending) const {
    if (static_cast<size_t>(column) < kKernelFieldCount)
        return tables_->sort(rows, fieldOf(column), descending);
    if (hasFileColumn()) {
        std::stable_sort(rows.begin(), rows.end(), [&](KernelId a, KernelId b) {
            return descending ? tables_->traceOf(a) > tables_->traceOf(b)
                              : tables_->traceOf(a) < tables_->traceOf(b);
        });
        return;
    }
    if (!ncu_) return;
    const auto m = static_cast<uint32_t>(static_cast<size_t>(column) - kKernelFieldCount);
    std::stable_partition(rows.begin(), rows.end(),
                          [&](KernelId k) { return std::isfinite(ncu_->value(k, m)); });
    const auto known = std::find_if(rows.begin(), rows.end(),
                                    [&](KernelId k) { return !std::isfinite(ncu_->value(k, m)); });
    std::stable_sort(rows.begin(), known, [&](KernelId a, KernelId b) {
        return descending ? ncu_->value(a, m) > ncu_->value(b, m)
                          : ncu_->value(a, m) < ncu_->value(b, m);
    });
}

double KernelTableModel::rowsGpuTimeNs() const {
    if (std::isnan(rowsGpuTimeNs_)) {
        // Every kernel, in whatever order: summed in the columns' order (a sort order reads them
        // at random, 10 ms for a million rows at each reset).
        const bool all = tables_ && !hasScope_ && rows_->size() == tables_->size();
        rowsGpuTimeNs_ = !tables_ ? 0
                         : all    ? allGpuTimeNs(*tables_)
                                  : shownGpuTimeNs(*tables_, *rows_);
    }
    return rowsGpuTimeNs_;
}

KernelId KernelTableModel::kernelAt(int row) const {
    return row >= 0 && static_cast<size_t>(row) < rows_->size() ? (*rows_)[static_cast<size_t>(row)]
                                                                : KernelId();
}

int KernelTableModel::rowOf(KernelId k) const {
    if (!tables_ || !k.valid() || k.value >= tables_->size()) return -1;
    if (rowOfKernel_.empty()) {
        rowOfKernel_.assign(tables_->size(), -1);
        for (size_t r = 0; r < rows_->size(); ++r)
            rowOfKernel_[(*rows_)[r].value] = static_cast<int32_t>(r);
    }
    return rowOfKernel_[k.value];
}

int KernelTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0
                            : static_cast<int>(kKernelFieldCount + (hasFileColumn() ? 1 : 0) +
                                               (ncu_ ? ncu_->metricCount() : 0));
}

QVariant KernelTableModel::ncuData(KernelId k, uint32_t m, int role) const {
    switch (role) {
    case Qt::DisplayRole:
    case ExportRole:
        return QString::fromStdString(ncu_->text(k, m));
    case SortRole: {
        const double v = ncu_->value(k, m);
        return std::isfinite(v) ? QVariant(v) : QVariant();
    }
    case Qt::TextAlignmentRole:
        return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        return QStringLiteral("%1: %2").arg(QString::fromStdString(ncu_->columnName(m)),
                                            QString::fromStdString(ncu_->text(k, m)));
    default:
        return {};
    }
}

QString KernelTableModel::display(const KernelTable& table, KernelId k, KernelField f) const {
    const auto& info = kernelFieldInfo(f);
    switch (info.unit) {
    case FieldUnit::Timestamp:
        return formatOffset(static_cast<long long>(table.number(k, f)) -
                            table.trace().captureStart);
    case FieldUnit::Duration:
        return formatDuration(table.number(k, f));
    case FieldUnit::Flops:
        return formatFlops(table.number(k, f));
    case FieldUnit::Bytes:
        return formatBytes(table.number(k, f));
    case FieldUnit::Intensity:
    case FieldUnit::Tflops:
        return formatNumber(table.number(k, f), 1);
    case FieldUnit::Gbytes:
        return formatNumber(table.number(k, f), 0);
    default:
        return qstr(table.text(k, f));
    }
}

// The file a row's kernel comes from, as the user named it (the CLI's `file` column).
QVariant KernelTableModel::fileData(KernelId row, int role) const {
    const std::string& path = tables_->file(tables_->traceOf(row));
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
    case ExportRole:
        return qstr(path);
    case SortRole:
        return tables_->traceOf(row);
    case KernelIdRole:
        return row.value;
    default:
        return {};
    }
}

QVariant KernelTableModel::data(const QModelIndex& index, int role) const {
    if (!tables_ || !index.isValid() || index.row() >= rowCount() ||
        index.column() >= columnCount())
        return {};
    const KernelId row = (*rows_)[static_cast<size_t>(index.row())];
    if (static_cast<size_t>(index.column()) >= kKernelFieldCount) {
        if (hasFileColumn()) return fileData(row, role);
        return ncuData(
            row, static_cast<uint32_t>(static_cast<size_t>(index.column()) - kKernelFieldCount),
            role);
    }
    const uint32_t trace = tables_->traceOf(row);
    const KernelTable& table = tables_->table(trace);
    const KernelId k = tables_->localOf(row);
    const KernelField f = fieldOf(index.column());
    if (f == KernelField::Tc && ncu_ &&
        (role == Qt::DisplayRole || role == Qt::ToolTipRole || role == SortRole))
        if (const auto measured =
                ncu_->tensorCore(k)) // ncu's instruction counts outrank the name rules
            return role == Qt::ToolTipRole
                       ? QString::fromStdString(measured->reason)
                       : QString::fromStdString(ncuTensorCoreText(measured->state));
    // Short names told apart on screen (Kernel2 ·f16 128x128 tn), the full name on hover; sorting
    // and CSV keep core's short name.
    if (f == KernelField::ShortName && (role == Qt::DisplayRole || role == Qt::ToolTipRole)) {
        if (role == Qt::ToolTipRole) return qstr(table.text(k, KernelField::Name));
        if (!labels_[trace]) labels_[trace] = std::make_shared<const KernelLabels>(table.trace());
        return qstr(labels_[trace]->of(k.value));
    }
    const FieldUnit unit = kernelFieldInfo(f).unit;
    switch (role) {
    case Qt::DisplayRole:
        return display(table, k, f);
    case Qt::ToolTipRole:
        if (unit == FieldUnit::Text || unit == FieldUnit::Timestamp) return qstr(table.text(k, f));
        return QStringLiteral("%1 (%2)").arg(display(table, k, f), qstr(table.text(k, f)));
    case ExportRole:
        return qstr(table.text(k, f));
    case KernelIdRole:
        return row.value;
    case SortRole: {
        if (unit == FieldUnit::Text) return qstr(table.text(k, f));
        const double v = table.number(k, f);
        return std::isfinite(v) ? QVariant(v) : QVariant();
    }
    case Qt::TextAlignmentRole:
        return unit == FieldUnit::Text ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                                       : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (f == KernelField::Tc) {
            const TcState s = table.trace().metrics.tc[k.value];
            if (s == TcState::Used) return QBrush(QColor(0x1b, 0x7f, 0x3b));
            if (s == TcState::NotUsed) return QBrush(QColor(0xc0, 0x50, 0x00));
        }
        return {};
    default:
        return {};
    }
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    if (static_cast<size_t>(section) >= kKernelFieldCount && hasFileColumn()) {
        if (role == Qt::DisplayRole) return QStringLiteral("File");
        if (role == ExportRole) return QStringLiteral("file");
        if (role == Qt::ToolTipRole) return QStringLiteral("The trace file the kernel comes from");
        return {};
    }
    if (static_cast<size_t>(section) >= kKernelFieldCount) {
        const auto m = static_cast<uint32_t>(static_cast<size_t>(section) - kKernelFieldCount);
        const auto& info = ncu_->metric(m);
        if (role == Qt::DisplayRole)
            return QString::fromStdString(
                info.name + (info.unit.empty() ? std::string() : " [" + info.unit + "]"));
        if (role == ExportRole) return QString::fromStdString(ncu_->columnName(m));
        if (role == Qt::ToolTipRole)
            return QStringLiteral("Nsight Compute: %1")
                .arg(QString::fromStdString(ncu_->columnName(m)));
        return {};
    }
    const auto& info = kernelFieldInfo(fieldOf(section));
    if (role == Qt::DisplayRole)
        return QString::fromUtf8(info.title.data(), static_cast<qsizetype>(info.title.size()));
    if (role == ExportRole)
        return QString::fromUtf8(info.name.data(), static_cast<qsizetype>(info.name.size()));
    if (role == Qt::ToolTipRole) return columnDescription(info.field);
    return {};
}

void KernelTableModel::sort(int column, Qt::SortOrder order) {
    if (!tables_ || column < 0 || column >= columnCount()) return;
    revealAll(); // the selection may move to any row of the new order
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    std::vector<KernelId> kernels;
    kernels.reserve(static_cast<size_t>(before.size()));
    for (const QModelIndex& i : before) kernels.push_back(kernelAt(i.row()));
    sortColumn_ = column;
    sortOrder_ = order;
    std::vector<KernelId> rows = *rows_; // ties keep the order they are shown in
    sortRows(rows, column, order == Qt::DescendingOrder);
    rows_ = std::make_shared<const std::vector<KernelId>>(std::move(rows));
    rowOfKernel_.clear();
    QModelIndexList after;
    after.reserve(before.size());
    for (qsizetype i = 0; i < before.size(); ++i)
        after.push_back(index(rowOf(kernels[static_cast<size_t>(i)]), before[i].column()));
    changePersistentIndexList(before, after);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

} // namespace ls::gui
