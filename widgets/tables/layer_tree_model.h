#pragma once
// The layer tree (core/views/layer_tree.h) as an item model: iteration → direction → layer → op,
// each row with kernel count, GPU time, share of the total, FLOPs, TFLOP/s and Tensor Core share.
// Nodes are addressed by their index in the tree's columns (internalId), no item objects. Every
// rank of a session at once: the session's combined tree, a row per rank on top.
#include "core/views/layer_tree.h"
#include "core/views/session_layer_tree.h"
#include "widgets/export/csv_export.h"

#include <QAbstractItemModel>
#include <QStringList>
#include <memory>

namespace ls::gui {

class LayerTreeModel : public QAbstractItemModel {
    Q_OBJECT
  public:
    enum Column { Name, Kernels, GpuTime, Percent, Flops, Tflops, TcShare, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int NodeRole = Qt::UserRole + 3;

    explicit LayerTreeModel(QObject* parent = nullptr);
    void setTree(std::shared_ptr<const Trace> trace, std::shared_ptr<const LayerTree> tree);
    // traces[p] is the session tree's part p, rankNames[p] names its Rank row.
    void setSessionTree(std::shared_ptr<const SessionLayerTree> tree,
                        std::vector<std::shared_ptr<const Trace>> traces, QStringList rankNames);
    const LayerTree* tree() const { return tree_.get(); }
    QString nodeName(uint32_t node) const;

    // The root node is not shown: its children are the top-level rows.
    uint32_t nodeOf(const QModelIndex& index) const;
    QModelIndex indexOf(uint32_t node) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    QVariant value(uint32_t node, int column, bool display) const;
    void indexTree();

    std::vector<std::shared_ptr<const Trace>> traces_; // one, or a session's parts
    std::shared_ptr<const LayerTree> tree_;
    std::shared_ptr<const SessionLayerTree> sessionTree_; // owns tree_ when set
    QStringList rankNames_;
    std::vector<uint32_t> rowInParent_; // per node
    double totalNs_ = 0;
};

} // namespace ls::gui
