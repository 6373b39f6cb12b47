#include "widgets/tables/layer_tree_model.h"

#include "widgets/util/units.h"

#include <cmath>

namespace ls::gui {
namespace {

constexpr quintptr kNoNode = ~quintptr(0);

} // namespace

LayerTreeModel::LayerTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

void LayerTreeModel::setTree(std::shared_ptr<const Trace> trace,
                             std::shared_ptr<const LayerTree> tree) {
    beginResetModel();
    traces_.clear();
    if (trace) traces_.push_back(std::move(trace));
    tree_ = traces_.empty() ? nullptr : std::move(tree);
    sessionTree_.reset();
    rankNames_.clear();
    indexTree();
    endResetModel();
}

void LayerTreeModel::setSessionTree(std::shared_ptr<const SessionLayerTree> tree,
                                    std::vector<std::shared_ptr<const Trace>> traces,
                                    QStringList rankNames) {
    beginResetModel();
    sessionTree_ = std::move(tree);
    tree_ = sessionTree_ ? std::shared_ptr<const LayerTree>(sessionTree_, &sessionTree_->tree)
                         : nullptr;
    traces_ = std::move(traces);
    rankNames_ = std::move(rankNames);
    indexTree();
    endResetModel();
}

void LayerTreeModel::indexTree() {
    rowInParent_.clear();
    totalNs_ = 0;
    if (tree_) {
        rowInParent_.assign(tree_->size(), 0);
        for (uint32_t n = 0; n < tree_->size(); ++n) {
            const auto children = layerTreeChildren(*tree_, n);
            for (size_t r = 0; r < children.size(); ++r)
                rowInParent_[children[r]] = static_cast<uint32_t>(r);
        }
        totalNs_ = static_cast<double>(tree_->gpuTimeNs[0]);
    }
}

QString LayerTreeModel::nodeName(uint32_t n) const {
    if (!tree_ || n >= tree_->size()) return {};
    if (!sessionTree_)
        return QString::fromStdString(std::string(layerNodeName(*traces_[0], *tree_, n)));
    const uint32_t trace = sessionTree_->trace[n];
    if (tree_->kind[n] == LayerNodeKind::Rank)
        return trace < static_cast<uint32_t>(rankNames_.size())
                   ? rankNames_[static_cast<qsizetype>(trace)]
                   : QString();
    if (tree_->kind[n] == LayerNodeKind::Root) return QStringLiteral("All ranks");
    return QString::fromStdString(std::string(layerNodeName(*traces_[trace], *tree_, n)));
}

uint32_t LayerTreeModel::nodeOf(const QModelIndex& index) const {
    if (!tree_) return 0;
    return index.isValid() ? static_cast<uint32_t>(index.internalId()) : 0;
}

QModelIndex LayerTreeModel::indexOf(uint32_t node) const {
    if (!tree_ || node == 0 || node >= tree_->size()) return {};
    return createIndex(static_cast<int>(rowInParent_[node]), 0, static_cast<quintptr>(node));
}

QModelIndex LayerTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (!tree_ || row < 0 || column < 0 || column >= ColumnCount) return {};
    const auto children = layerTreeChildren(*tree_, nodeOf(parent));
    if (static_cast<size_t>(row) >= children.size()) return {};
    return createIndex(row, column, static_cast<quintptr>(children[static_cast<size_t>(row)]));
}

QModelIndex LayerTreeModel::parent(const QModelIndex& child) const {
    if (!tree_ || !child.isValid() || child.internalId() == kNoNode) return {};
    const uint32_t p = tree_->parent[static_cast<uint32_t>(child.internalId())];
    return p == 0 ? QModelIndex()
                  : createIndex(static_cast<int>(rowInParent_[p]), 0, static_cast<quintptr>(p));
}

int LayerTreeModel::rowCount(const QModelIndex& parent) const {
    if (!tree_ || (parent.isValid() && parent.column() != 0)) return 0;
    return static_cast<int>(layerTreeChildren(*tree_, nodeOf(parent)).size());
}

int LayerTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant LayerTreeModel::value(uint32_t n, int column, bool display) const {
    const LayerTree& t = *tree_;
    const double ns = static_cast<double>(t.gpuTimeNs[n]);
    const double flops = t.flops[n];
    const double flopsNs = static_cast<double>(t.flopsTimeNs[n]);
    switch (column) {
    case Name:
        return nodeName(n);
    case Kernels:
        return display ? QVariant(QStringLiteral("%L1").arg(t.kernels[n]))
                       : QVariant(static_cast<qulonglong>(t.kernels[n]));
    case GpuTime:
        return display ? QVariant(formatDuration(ns))
                       : QVariant(static_cast<qulonglong>(t.gpuTimeNs[n]));
    case Percent: {
        const double f = totalNs_ > 0 ? ns / totalNs_ : NAN;
        return display ? QVariant(formatPercent(f)) : QVariant(f);
    }
    case Flops:
        return display ? QVariant(formatFlops(flops))
                       : (std::isfinite(flops) ? QVariant(flops) : QVariant());
    case Tflops: {
        const double v = std::isfinite(flops) && flopsNs > 0 ? flops / flopsNs / 1e3 : NAN;
        return display ? QVariant(formatNumber(v, 1))
                       : (std::isfinite(v) ? QVariant(v) : QVariant());
    }
    case TcShare: {
        const double f = ns > 0 ? static_cast<double>(t.tcUsedTimeNs[n]) / ns : NAN;
        return display ? QVariant(formatPercent(f)) : QVariant(f);
    }
    default:
        return {};
    }
}

QVariant LayerTreeModel::data(const QModelIndex& index, int role) const {
    if (!tree_ || !index.isValid() || index.internalId() == kNoNode) return {};
    const auto n = static_cast<uint32_t>(index.internalId());
    switch (role) {
    case Qt::DisplayRole:
        return value(n, index.column(), true);
    case SortRole:
        return value(n, index.column(), false);
    case kCsvRole:
        return index.column() == Name ? value(n, Name, true) : value(n, index.column(), false);
    case NodeRole:
        return n;
    case Qt::TextAlignmentRole:
        return index.column() == Name ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                                      : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::ToolTipRole:
        if (index.column() != Name) return {};
        if (tree_->kind[n] == LayerNodeKind::Layer)
            return QStringLiteral("%1: this row counts its kernels here; a click shows the layer's "
                                  "kernels in both directions")
                .arg(value(n, Name, true).toString());
        return value(n, Name, true);
    default:
        return {};
    }
}

QVariant LayerTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    static const char* const titles[] = {"Layer / op",      "Kernels", "GPU time",
                                         "% of GPU time",   "FLOPs",   "TFLOP/s",
                                         "Tensor Core time"};
    static const char* const csv[] = {"name",  "kernels",  "gpu_time_ns",     "gpu_time_fraction",
                                      "flops", "tflops_s", "tc_time_fraction"};
    if (section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) return QString::fromLatin1(titles[section]);
    if (role == kCsvRole) return QString::fromLatin1(csv[section]);
    return {};
}

} // namespace ls::gui
