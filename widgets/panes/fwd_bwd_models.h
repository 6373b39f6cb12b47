#pragma once
// Item models of the Forward/Backward tab: forward ops or backward nodes (one model, two sides)
// and the backward/forward ratio table (by layer or by op type). Human units on display, raw
// values on SortRole and the CSV role.
#include "core/views/fwd_bwd.h"
#include "widgets/csv_export.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <memory>

namespace ls::gui {

class OpSideModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum class Side { Forward, Backward };
    // Forward: op, layer, shapes, dtype, paired, … ; backward: node, forward op, layer, …
    enum Column { Name, Partner, Layer, Shapes, DType, Kernels, GpuTime, Flops, Tflops, TcShare, Unpaired, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;

    OpSideModel(Side side, QObject* parent = nullptr);
    void setPairs(std::shared_ptr<const Trace> trace, std::shared_ptr<const FwdBwdPairs> pairs);
    const OpSideRow* rowAt(int row) const;
    // The number a numeric column sorts by (NaN: unknown); false for text columns.
    bool sortKey(int row, int column, double& key) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    const std::vector<OpSideRow>& rows() const;
    QVariant value(const OpSideRow& r, int column, bool display) const;

    Side side_;
    std::shared_ptr<const Trace> trace_;
    std::shared_ptr<const FwdBwdPairs> pairs_;
};

// Sorts an OpSideModel's numeric columns by reading its rows directly: through data() and
// QVariant a million-kernel trace's op rows took seconds to sort on the GUI thread.
class OpSideProxy : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

class FwdBwdRatioModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Key, ForwardTime, BackwardTime, Ratio, ForwardFlops, BackwardFlops, ForwardKernels, BackwardKernels, ColumnCount };
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
