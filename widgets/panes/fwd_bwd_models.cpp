#include "widgets/panes/fwd_bwd_models.h"

#include "widgets/util/units.h"

#include <QColor>
#include <algorithm>
#include <cmath>

namespace ls::gui {
namespace {

QString qstr(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}
QVariant orNull(double v) { return std::isfinite(v) ? QVariant(v) : QVariant(); }

QString opLabel(const Trace& t, OpId op) {
    const RangeId r = t.ops.range[op.value];
    QString s = qstr(t.str(t.ranges.name[r.value]));
    if (t.ranges.seq[r.value] >= 0) s += QStringLiteral(" (seq %1)").arg(t.ranges.seq[r.value]);
    return s;
}

} // namespace

OpSideModel::OpSideModel(Side side, QObject* parent)
    : RevealedTableModel(parent), side_(side),
      sorted_(std::make_shared<const std::vector<uint32_t>>()) {}

void OpSideModel::setPairs(std::shared_ptr<const Trace> trace,
                           std::shared_ptr<const FwdBwdPairs> pairs,
                           std::shared_ptr<const std::vector<uint32_t>> byTime) {
    beginResetModel();
    trace_ = std::move(trace);
    pairs_ = trace_ ? std::move(pairs) : nullptr;
    sortRows(sortColumn_ == GpuTime && sortOrder_ == Qt::DescendingOrder ? std::move(byTime)
                                                                         : nullptr);
    resetRowCount(static_cast<int>(shown().size()));
    endResetModel();
}

const std::vector<OpSideRow>& OpSideModel::rows() const {
    return side_ == Side::Forward ? pairs_->forward : pairs_->backward;
}

const OpSideRow* OpSideModel::rowAt(int row) const {
    if (!pairs_ || row < 0 || static_cast<size_t>(row) >= shown().size()) return nullptr;
    return &rows()[shown()[static_cast<size_t>(row)]];
}

int OpSideModel::modelRow(uint32_t pairRow) const {
    if (rowOfPair_.size() !=
        sorted_->size()) { // a selection links to this side: now, not at each reset
        rowOfPair_.assign(sorted_->size(), -1);
        const std::vector<uint32_t>& rows = shown();
        for (size_t r = 0; r < rows.size(); ++r) rowOfPair_[rows[r]] = static_cast<int32_t>(r);
    }
    return pairRow < rowOfPair_.size() ? rowOfPair_[pairRow] : -1;
}

std::vector<uint32_t> OpSideModel::numberOrder(const std::vector<OpSideRow>& rows, int column,
                                               bool descending) {
    const size_t n = rows.size();
    std::vector<uint32_t> order(n);
    for (uint32_t i = 0; i < n; ++i) order[i] = i;
    std::vector<double> keys(n);
    for (size_t i = 0; i < n; ++i) {
        if (!numberKey(rows[i], column, keys[i])) return order; // a text column
        if (std::isnan(keys[i])) keys[i] = -INFINITY;           // unknown below every number
    }
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return descending ? keys[b] < keys[a] : keys[a] < keys[b];
    });
    return order;
}

void OpSideModel::sortRows(std::shared_ptr<const std::vector<uint32_t>> presorted) {
    const size_t n = pairs_ ? rows().size() : 0;
    const bool descending = sortOrder_ == Qt::DescendingOrder;
    double probe = 0;
    if (n && presorted && presorted->size() == n) {
        sorted_ = std::move(presorted);
    } else if (n && sortColumn_ >= 0 && numberKey(rows().front(), sortColumn_, probe)) {
        sorted_ = std::make_shared<const std::vector<uint32_t>>(
            numberOrder(rows(), sortColumn_, descending));
    } else {
        std::vector<uint32_t> order(n);
        for (uint32_t i = 0; i < n; ++i) order[i] = i;
        if (n && sortColumn_ >= 0) {
            std::vector<QString> keys(n);
            for (size_t i = 0; i < n; ++i)
                keys[i] = value(rows()[i], sortColumn_, false).toString();
            std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
                return descending ? keys[b] < keys[a] : keys[a] < keys[b];
            });
        }
        sorted_ = std::make_shared<const std::vector<uint32_t>>(std::move(order));
    }
    filterRows();
}

// The sorted rows of the picked layer: another layer filters again without sorting again.
void OpSideModel::filterRows() {
    rowOfPair_.clear();
    order_.clear();
    if (layer_.isEmpty() || sorted_->empty()) return;
    const std::string layer = layer_.toStdString();
    const Trace& t = *trace_;
    for (const uint32_t i : *sorted_) {
        const StringId l = t.ops.layer[rows()[i].op.value];
        if (l.valid() && t.str(l) == layer) order_.push_back(i);
    }
}

void OpSideModel::setLayer(const QString& layer) {
    if (layer == layer_) return;
    beginResetModel();
    layer_ = layer;
    filterRows();
    resetRowCount(static_cast<int>(shown().size()));
    endResetModel();
}

void OpSideModel::sort(int column, Qt::SortOrder order) {
    if (column < 0 || column >= ColumnCount) return;
    revealAll(); // the selection may move to any row of the new order
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    std::vector<uint32_t> pairRows;
    for (const QModelIndex& i : before) pairRows.push_back(pairRow(i.row()));
    sortColumn_ = column;
    sortOrder_ = order;
    sortRows();
    QModelIndexList after;
    for (qsizetype i = 0; i < before.size(); ++i)
        after.push_back(index(modelRow(pairRows[static_cast<size_t>(i)]), before[i].column()));
    changePersistentIndexList(before, after);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

int OpSideModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OpSideModel::value(const OpSideRow& r, int column, bool display) const {
    const Trace& t = *trace_;
    const RangeId marker = t.ops.range[r.op.value];
    const double ns = static_cast<double>(r.gpuTimeNs);
    switch (column) {
    case Name:
        return opLabel(t, r.op);
    case Partner: {
        if (r.partners.empty()) return QString();
        const auto& other = side_ == Side::Forward ? pairs_->backward : pairs_->forward;
        QString s = opLabel(t, other[r.partners.front()].op);
        if (r.partners.size() > 1) s += QStringLiteral(" +%1").arg(r.partners.size() - 1);
        return s;
    }
    case Layer:
        return t.ops.layer[r.op.value].valid() ? qstr(t.str(t.ops.layer[r.op.value])) : QString();
    case Shapes: {
        // A backward node's shapes are its forward op's.
        RangeId shapes = marker;
        if (side_ == Side::Backward && !r.partners.empty())
            shapes = t.ops.range[pairs_->forward[r.partners.front()].op.value];
        return qstr(t.str(t.ranges.sizes[shapes.value]));
    }
    case DType:
        return r.dtype == ls::DType::Unknown ? QString() : qstr(dtypeName(r.dtype));
    case Kernels:
        return display ? QVariant(QStringLiteral("%L1").arg(r.kernels))
                       : QVariant(static_cast<qulonglong>(r.kernels));
    case GpuTime:
        return display ? QVariant(formatDuration(ns))
                       : QVariant(static_cast<qulonglong>(r.gpuTimeNs));
    case Flops:
        return display ? QVariant(formatFlops(r.flops)) : orNull(r.flops);
    case Tflops: {
        const double v = std::isfinite(r.flops) && r.flopsTimeNs
                             ? r.flops / static_cast<double>(r.flopsTimeNs) / 1e3
                             : NAN;
        return display ? QVariant(formatNumber(v, 1)) : orNull(v);
    }
    case TcShare: {
        const double f = r.gpuTimeNs ? static_cast<double>(r.tcTimeNs) / ns : NAN;
        return display ? QVariant(formatPercent(f)) : orNull(f);
    }
    case Unpaired:
        return QString::fromStdString(r.unpairedReason);
    default:
        return {};
    }
}

bool OpSideModel::numberKey(const OpSideRow& r, int column, double& key) {
    const double ns = static_cast<double>(r.gpuTimeNs);
    switch (column) {
    case Kernels:
        key = static_cast<double>(r.kernels);
        return true;
    case GpuTime:
        key = ns;
        return true;
    case Flops:
        key = std::isfinite(r.flops) ? r.flops : NAN;
        return true;
    case Tflops:
        key = std::isfinite(r.flops) && r.flopsTimeNs
                  ? r.flops / static_cast<double>(r.flopsTimeNs) / 1e3
                  : NAN;
        return true;
    case TcShare:
        key = r.gpuTimeNs ? static_cast<double>(r.tcTimeNs) / ns : NAN;
        return true;
    default:
        return false;
    }
}

QVariant OpSideModel::data(const QModelIndex& index, int role) const {
    const OpSideRow* r = index.isValid() ? rowAt(index.row()) : nullptr;
    if (!r || index.column() >= ColumnCount) return {};
    switch (role) {
    case Qt::DisplayRole:
        return value(*r, index.column(), true);
    case SortRole:
    case kCsvRole:
        return value(*r, index.column(), false);
    case Qt::ToolTipRole:
        if (index.column() == Partner && r->partners.empty())
            return QString::fromStdString(r->unpairedReason);
        return value(*r, index.column(), true);
    case Qt::ForegroundRole:
        if (!r->unpairedReason.empty()) return QColor(0x88, 0x88, 0x88);
        return {};
    case Qt::TextAlignmentRole:
        return index.column() >= Kernels && index.column() <= TcShare
                   ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                   : QVariant();
    default:
        return {};
    }
}

QVariant OpSideModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    const bool forward = side_ == Side::Forward;
    const QString titles[] = {
        forward ? QStringLiteral("Forward op") : QStringLiteral("Backward node"),
        forward ? QStringLiteral("Backward node") : QStringLiteral("Forward op"),
        QStringLiteral("Layer"),
        QStringLiteral("Shapes"),
        QStringLiteral("dtype"),
        QStringLiteral("Kernels"),
        QStringLiteral("GPU time"),
        QStringLiteral("FLOPs"),
        QStringLiteral("TFLOP/s"),
        QStringLiteral("TC share"),
        QStringLiteral("Unpaired because")};
    const char* const csv[] = {forward ? "forward_op" : "backward_node",
                               forward ? "backward_node" : "forward_op",
                               "layer",
                               "sizes",
                               "dtype",
                               "kernels",
                               "gpu_time_ns",
                               "flops",
                               "tflops_s",
                               "tc_time_fraction",
                               "unpaired_reason"};
    if (role == Qt::DisplayRole) return titles[section];
    if (role == kCsvRole) return QString::fromLatin1(csv[section]);
    return {};
}

FwdBwdRatioModel::FwdBwdRatioModel(QObject* parent) : QAbstractTableModel(parent) {}

void FwdBwdRatioModel::setRows(std::vector<FwdBwdRatioRow> rows, const QString& keyTitle) {
    beginResetModel();
    rows_ = std::move(rows);
    keyTitle_ = keyTitle;
    endResetModel();
    emit headerDataChanged(Qt::Horizontal, 0, 0);
}

const FwdBwdRatioRow* FwdBwdRatioModel::rowAt(int row) const {
    return row >= 0 && static_cast<size_t>(row) < rows_.size() ? &rows_[static_cast<size_t>(row)]
                                                               : nullptr;
}

int FwdBwdRatioModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int FwdBwdRatioModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FwdBwdRatioModel::data(const QModelIndex& index, int role) const {
    const FwdBwdRatioRow* r = index.isValid() ? rowAt(index.row()) : nullptr;
    if (!r) return {};
    const bool display = role == Qt::DisplayRole || role == Qt::ToolTipRole;
    if (!display && role != SortRole && role != kCsvRole) {
        if (role == Qt::TextAlignmentRole && index.column() != Key)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    switch (index.column()) {
    case Key:
        return QString::fromStdString(r->key);
    case ForwardTime:
        return display ? QVariant(formatDuration(static_cast<double>(r->forwardNs)))
                       : QVariant(static_cast<qulonglong>(r->forwardNs));
    case BackwardTime:
        return display ? QVariant(formatDuration(static_cast<double>(r->backwardNs)))
                       : QVariant(static_cast<qulonglong>(r->backwardNs));
    case Ratio:
        return display ? QVariant(formatNumber(r->ratio, 2)) : orNull(r->ratio);
    case ForwardFlops:
        return display ? QVariant(formatFlops(r->forwardFlops)) : orNull(r->forwardFlops);
    case BackwardFlops:
        return display ? QVariant(formatFlops(r->backwardFlops)) : orNull(r->backwardFlops);
    case ForwardKernels:
        return static_cast<qulonglong>(r->forwardKernels);
    case BackwardKernels:
        return static_cast<qulonglong>(r->backwardKernels);
    default:
        return {};
    }
}

QVariant FwdBwdRatioModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    const QString titles[] = {keyTitle_,
                              QStringLiteral("Forward time"),
                              QStringLiteral("Backward time"),
                              QStringLiteral("Backward / forward"),
                              QStringLiteral("Forward FLOPs"),
                              QStringLiteral("Backward FLOPs"),
                              QStringLiteral("Forward kernels"),
                              QStringLiteral("Backward kernels")};
    const char* const csv[] = {
        "key",           "forward_ns",     "backward_ns",     "backward_forward_ratio",
        "forward_flops", "backward_flops", "forward_kernels", "backward_kernels"};
    if (role == Qt::DisplayRole) return titles[section];
    if (role == kCsvRole)
        return section == Key ? keyTitle_.toLower().replace(QLatin1Char(' '), QLatin1Char('_'))
                              : QString::fromLatin1(csv[section]);
    return {};
}

} // namespace ls::gui
