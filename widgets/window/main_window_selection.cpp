// MainWindow's answers to a selection: a layer tree node clicked, a kernel picked in the table or
// on the timeline (table row, details, tree and timeline follow), an op's counterpart asked for.
#include "core/pytorch/correlation.h"
#include "widgets/panes/fwd_bwd_panel.h"
#include "widgets/tables/kernel_details.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/tables/layer_tree_model.h"
#include "widgets/timeline/timeline_area.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/window/main_window.h"

#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMenu>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTreeView>

namespace ls::gui {

void MainWindow::showLayerNode(uint32_t node) {
    const LayerTree* tree = layerModel_->tree();
    if (!shown() || !tree || node >= tree->size()) return;
    QString label = layerModel_->nodeName(node);
    if (tree->kind[node] == LayerNodeKind::Layer)
        label = QStringLiteral("Layer %1, forward and backward").arg(label);
    else if (tree->kind[node] == LayerNodeKind::Root)
        label = allRanks_ ? QStringLiteral("All ranks") : QStringLiteral("All kernels");
    if (allRanks_ && tree->kind[node] != LayerNodeKind::Root &&
        tree->kind[node] != LayerNodeKind::Rank)
        label = QStringLiteral("%1: %2").arg(
            traceRankNames().value(static_cast<qsizetype>(allRanks_->layers->trace[node])), label);
    std::vector<const Trace*> traces;
    if (allRanks_)
        for (const auto& t : allRanks_->traces) traces.push_back(t.get());
    kernelModel_->setScope(allRanks_ ? kernelsOfSessionNode(*allRanks_->layers, traces, node)
                                     : kernelsOfNode(*shown()->trace, *tree, node),
                           label);
    showRowsOnTimeline(kernelModel_->rows(), label);
}

void MainWindow::showLayerMenu(const QPoint& pos) {
    if (!shown()) return;
    const QModelIndex index = layerView_->indexAt(pos);
    if (!index.isValid()) return;
    const uint32_t node = layerModel_->nodeOf(index);
    const LayerTree& tree = *layerModel_->tree();
    QMenu menu(this);
    menu.addAction(QStringLiteral("Show its kernels"), this, [this, node] { showLayerNode(node); });
    if (tree.kind[node] == LayerNodeKind::Layer) {
        const QString layer = layerModel_->nodeName(node);
        const uint32_t trace = allRanks_ ? allRanks_->layers->trace[node] : shown()->shownTrace;
        menu.addAction(QStringLiteral("Forward/backward of %1").arg(layer), this,
                       [this, layer, trace] {
                           showTrace(trace, [this, layer] { // the panes show one trace: the node's
                               tabs_->setCurrentWidget(fwdBwd_);
                               fwdBwd_->showLayer(layer);
                           });
                       });
    }
    menu.exec(layerView_->viewport()->mapToGlobal(pos));
}

void MainWindow::syncTreeToKernel(KernelId row) {
    if (!shown() || !row.valid()) return;
    const uint32_t node = allRanks_ ? allRanks_->layers->tree.kernelNode[row.value]
                                    : shown()->layers->kernelNode[row.value];
    const QModelIndex index = layerModel_->indexOf(node);
    if (!index.isValid()) return;
    syncing_ = true;
    layerView_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                             QItemSelectionModel::Rows);
    layerView_->scrollTo(index);
    syncing_ = false;
}

void MainWindow::selectTimelineKernel(KernelId k) { selectRow(rowOfShown(k)); }

void MainWindow::selectRow(KernelId row) {
    if (!kernelView_->selectKernel(
            row)) { // hidden by a scope or filter: show everything, then select
        kernelModel_->clearScope();
        kernelView_->applyFilter(QString());
        timeline_->clearHighlight();
        kernelView_->selectKernel(row);
    }
    showKernelDetails(row);
}

void MainWindow::showKernelDetails(KernelId row) {
    if (!shown()) return;
    if (allRanks_ && row.valid()) { // a kernel of any rank: its own trace's details
        const KernelId k = kernelModel_->localOf(row);
        const uint32_t trace = traceOfRow(row);
        details_->setHtml(kernelDetailsHtml(kernelModel_->tableOf(row), k));
        if (trace != shown()->shownTrace) {
            timeline_->view()->selectTraceKernel(trace, k, tabs_->currentWidget() == timeline_);
            timeline_->view()->setLinked({});
            return;
        }
    } else {
        details_->setHtml(kernelDetailsHtml(*shown()->kernels, row, ncu_.get()));
    }
    const KernelId k = allRanks_ && row.valid() ? kernelModel_->localOf(row) : row;
    if (!k.valid()) return;
    timeline_->view()->selectKernel(k, tabs_->currentWidget() == timeline_);
    // Link the kernel to its op's counterpart in the other direction.
    const Trace& t = *shown()->trace;
    const OpId op = t.kernelLinks.opInstance[k.value];
    timeline_->view()->setLinked(op.valid() && t.ops.paired[op.value].valid()
                                     ? kernelsOfOp(t, t.ops.paired[op.value])
                                     : std::vector<KernelId>{});
}

void MainWindow::showCounterpart(KernelId row) {
    if (!shown() || !row.valid()) return;
    const Trace& t = kernelModel_->tableOf(row).trace();
    const uint32_t trace = traceOfRow(row);
    const KernelId k = kernelModel_->localOf(row);
    const OpId op = t.kernelLinks.opInstance[k.value];
    if (!op.valid() || !t.ops.paired[op.value].valid()) return;
    const OpId other = t.ops.paired[op.value];
    const RangeId marker = t.ops.range[other.value];
    const QString name = QString::fromStdString(std::string(t.str(t.ranges.name[marker.value])));
    const bool toForward = t.ops.direction[op.value] == Direction::Backward;
    std::vector<KernelId> rows = kernelsOfOp(t, other);
    if (allRanks_)
        for (KernelId& r : rows) r = allRanks_->kernels->rowOf(trace, r);
    kernelModel_->setScope(
        std::move(rows),
        QStringLiteral("%1 op %2 (op_id %3)")
            .arg(toForward ? QStringLiteral("Forward") : QStringLiteral("Backward"), name)
            .arg(t.ranges.opId[marker.value]));
    showRowsOnTimeline(kernelModel_->rows(), name);
}

} // namespace ls::gui

namespace ls::gui {

void MainWindow::showFindingEvidence(const Finding& finding) {
    if (!shown()) return;
    const Finding f = finding; // showTrace may run it later
    showTrace(f.evidence.trace, [this, f] {
        if (!shown() || !shown()->trace) return;
        const QString label = QStringLiteral("Finding: %1").arg(QString::fromStdString(f.rule));
        std::vector<KernelId> kernels;
        for (KernelId k : f.evidence.kernels)
            if (k.valid() && k.value < shown()->trace->kernels.size()) kernels.push_back(k);
        if (!kernels.empty()) {
            std::vector<KernelId> rows = rowsOfShown(kernels);
            syncTreeToKernel(rows.front());
            kernelModel_->setScope(rows, label);
            showRowsOnTimeline(kernelModel_->rows(), label);
            kernelView_->selectKernel(rows.front());
            showKernelDetails(rows.front());
        }
        if (f.evidence.windowEnd > f.evidence.windowStart) { // the stretch where it shows
            const double span = static_cast<double>(f.evidence.windowEnd - f.evidence.windowStart);
            const double margin = std::max(span * 0.5, 1e5);
            timeline_->view()->setWindow(static_cast<double>(f.evidence.windowStart) - margin,
                                         static_cast<double>(f.evidence.windowEnd) + margin);
        }
    });
}

void MainWindow::showTableKernels(const std::vector<KernelId>& kernels, const QString& label) {
    if (!shown() || !shown()->trace) return;
    std::vector<KernelId> valid;
    for (KernelId k : kernels)
        if (k.valid() && k.value < shown()->trace->kernels.size()) valid.push_back(k);
    if (valid.empty()) return;
    std::vector<KernelId> rows = rowsOfShown(valid);
    syncTreeToKernel(rows.front());
    kernelModel_->setScope(rows, label);
    showRowsOnTimeline(kernelModel_->rows(), label);
    kernelView_->selectKernel(rows.front());
    showKernelDetails(rows.front());
}

} // namespace ls::gui
