#pragma once
// The Forward/Backward tab: forward ops and backward nodes side by side, each with its kernels
// below it; selecting one side selects its partners on the other; a table of backward/forward
// time ratios per layer or per op type underneath.
#include "core/present/fwd_bwd_data.h"
#include "core/views/fwd_bwd.h"
#include "core/views/kernel_table.h"
#include "widgets/page/trace_page.h"

#include <QWidget>
#include <functional>
#include <memory>
#include <vector>

class QComboBox;
class QTableView;

namespace ls::gui {

class FwdBwdRatioModel;
class KernelTableModel;
class OpSideModel;

class FwdBwdPanel : public QWidget, public TracePage {
    Q_OBJECT
  public:
    explicit FwdBwdPanel(QWidget* parent = nullptr);
    void setSession(std::shared_ptr<const KernelTable> table,
                    std::shared_ptr<const FwdBwdData> rows);
    // The same in steps, each short enough for one turn of the event loop (run in order).
    std::vector<std::function<void()>> sessionSteps(std::shared_ptr<const KernelTable> table,
                                                    std::shared_ptr<const FwdBwdData> rows);

    // TracePage: the shown trace's pairs in sessionSteps' steps; a kernel shows as its op.
    std::vector<std::function<void()>> showSteps(std::shared_ptr<const TraceViews> views) override;
    bool showKernel(KernelId k) override;
    std::vector<QAbstractItemView*> exportViews() const override;

    // Selects an op instance (forward op or backward node) and its partners.
    bool selectOp(OpId op);
    // Shows only the ops of one layer ("" for all).
    void showLayer(const QString& layer);

    QTableView* forwardView() const { return forwardView_; }
    QTableView* backwardView() const { return backwardView_; }
    QTableView* forwardKernelsView() const { return forwardKernelsView_; }
    QTableView* backwardKernelsView() const { return backwardKernelsView_; }
    QTableView* ratioView() const { return ratioView_; }
    KernelTableModel* forwardKernels() const { return forwardKernels_; }
    KernelTableModel* backwardKernels() const { return backwardKernels_; }

  signals:
    // Both sides' kernels, for the timeline.
    void kernelsSelected(const std::vector<ls::KernelId>& kernels, const QString& what);

  private:
    void sideSelected(bool forwardSide);
    void selectRows(QTableView* view, const std::vector<uint32_t>& rows);
    std::vector<uint32_t> selectedRows(QTableView* view) const;
    void fillRatios();

    std::shared_ptr<const KernelTable> table_;
    std::shared_ptr<const FwdBwdPairs> pairs_;
    std::shared_ptr<const FwdBwdData> data_;
    OpSideModel* forward_;
    OpSideModel* backward_;
    KernelTableModel* forwardKernels_;
    KernelTableModel* backwardKernels_;
    FwdBwdRatioModel* ratios_;
    QTableView* forwardView_;
    QTableView* backwardView_;
    QTableView* forwardKernelsView_;
    QTableView* backwardKernelsView_;
    QTableView* ratioView_;
    QComboBox* layer_;
    QComboBox* ratioKey_;
    bool syncing_ = false;
};

} // namespace ls::gui
