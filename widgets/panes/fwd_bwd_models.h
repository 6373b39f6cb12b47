#pragma once
// Item models of the Forward/Backward tab: forward ops or backward nodes (one model, two sides)
// and the backward/forward ratio table (by layer or by op type). Human units on display, raw
// values on SortRole and the CSV role.
#include "core/views/fwd_bwd.h"
#include "widgets/export/csv_export.h"
#include "widgets/util/revealed_table_model.h"

#include <QAbstractTableModel>
#include <memory>

namespace ls::gui {

class OpSideModel : public RevealedTableModel {
    Q_OBJECT
  public:
    enum class Side { Forward, Backward };
    // Forward: op, layer, shapes, dtype, paired, … ; backward: node, forward op, layer, …
    enum Column {
        Name,
        Partner,
        Layer,
        Shapes,
        DType,
        Kernels,
        GpuTime,
        Flops,
        Tflops,
        TcShare,
        Unpaired,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1;

    OpSideModel(Side side, QObject* parent = nullptr);
    // byTime: this side's rows by GPU time, costliest first (opRowsByGpuTime), when already known;
    // shared, not copied (a copy of half a million rows faults in 2 MB of fresh pages).
    void setPairs(std::shared_ptr<const Trace> trace, std::shared_ptr<const FwdBwdPairs> pairs,
                  std::shared_ptr<const std::vector<uint32_t>> byTime = nullptr);
    // Rows in order of a number column (unknown below every number), ties in their order.
    static std::vector<uint32_t> numberOrder(const std::vector<OpSideRow>& rows, int column,
                                             bool descending);
    const OpSideRow* rowAt(int row) const;
    // Model rows are in sort order; pairRow maps one to its index in the pairs' rows (what
    // partners refer to), modelRow back (-1 when out of range or filtered out; it may be past
    // rowCount() while the rows are revealed: revealThrough).
    uint32_t pairRow(int row) const { return shown()[static_cast<size_t>(row)]; }
    int modelRow(uint32_t pairRow) const;

    // Only the rows of this layer (empty: all). Filtered here, not through a proxy: a proxy maps
    // every row again at each reset, 50 ms for a million kernels' op rows on the GUI thread.
    void setLayer(const QString& layer);
    const QString& layer() const { return layer_; }

    // Sorts the rows in the model itself, numbers from the rows (unknown below every number),
    // texts by their characters; ties keep their order. A new trace's rows come in the last
    // order asked for: GPU time, costliest first, until the user picks another.
    void sort(int column, Qt::SortOrder order) override;

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    const std::vector<OpSideRow>& rows() const;
    QVariant value(const OpSideRow& r, int column, bool display) const;
    static bool numberKey(const OpSideRow& r, int column, double& key); // false for text columns
    void sortRows(std::shared_ptr<const std::vector<uint32_t>> presorted = nullptr);
    void filterRows();
    // Model row -> pair row: every sorted row, or the picked layer's.
    const std::vector<uint32_t>& shown() const { return layer_.isEmpty() ? *sorted_ : order_; }

    Side side_;
    std::shared_ptr<const Trace> trace_;
    std::shared_ptr<const FwdBwdPairs> pairs_;
    std::shared_ptr<const std::vector<uint32_t>> sorted_; // every pair row in sort order
    std::vector<uint32_t> order_;                         // sorted_'s rows of the picked layer
    mutable std::vector<int32_t>
        rowOfPair_; // pair row -> model row (-1: filtered out), built on first use
    QString layer_;
    int sortColumn_ = GpuTime;
    Qt::SortOrder sortOrder_ = Qt::DescendingOrder;
};

class FwdBwdRatioModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Key,
        ForwardTime,
        BackwardTime,
        Ratio,
        ForwardFlops,
        BackwardFlops,
        ForwardKernels,
        BackwardKernels,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit FwdBwdRatioModel(QObject* parent = nullptr);
    void setRows(std::vector<FwdBwdRatioRow> rows, const QString& keyTitle);
    const FwdBwdRatioRow* rowAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    std::vector<FwdBwdRatioRow> rows_;
    QString keyTitle_;
};

} // namespace ls::gui
