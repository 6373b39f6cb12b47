// MainWindow over a session of several ranks: the rank box, switching the shown trace, and the
// all-ranks mode of the kernel table and layer tree (their row ids are then session row ids,
// mapped here to and from the shown trace's kernel ids, which the timeline and panes use).
#include "core/load/memory_budget.h"
#include "core/present/step_timing.h"
#include "widgets/panes/ranks_panel.h"
#include "widgets/session/trace_loader.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/tables/layer_tree_model.h"
#include "widgets/timeline/timeline_area.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/window/main_window.h"
#include "widgets/window/session_controller.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QTableView>
#include <QTreeView>
#include <optional>

namespace ls::gui {

void MainWindow::showRanks(const std::shared_ptr<const RankAnalysis>& analysis) {
    shownRanks_ = analysis;
    allRanks_.reset();
    rankFilter_.clear();
    ranks_->setAnalysis(analysis);
    rankBox_->clear();
    const Session* s = analysis ? analysis->session.get() : nullptr;
    if (s && s->ranks.size() > 1) {
        for (const auto& r : s->ranks) {
            const QString file =
                QFileInfo(QString::fromStdString(s->traces[r.trace].file)).fileName();
            rankBox_->addItem(
                QStringLiteral("Rank %1 · GPU %2 · %3").arg(r.rank).arg(r.device).arg(file),
                r.rank);
        }
        for (uint32_t t = 0; t < s->traces.size(); ++t) {
            int inTrace = 0;
            for (const auto& r : s->ranks) inTrace += r.trace == t;
            if (inTrace > 1)
                rankBox_->addItem(
                    QStringLiteral("All ranks of %1")
                        .arg(QFileInfo(QString::fromStdString(s->traces[t].file)).fileName()),
                    -1 - static_cast<int>(t));
        }
        // Every rank's table and tree needs every rank's model: not for a session of summaries.
        if (s->traces.size() > 1 && !analysis->fromSummaries()) {
            rankBox_->addItem(
                QStringLiteral("All %1 ranks in the table and tree").arg(s->ranks.size()),
                kAllRanks);
            rankBox_->setItemData(
                rankBox_->count() - 1,
                QStringLiteral("Every rank's kernels in one table and one layer tree; "
                               "the timeline and the panes keep the shown rank's trace"),
                Qt::ToolTipRole);
        }
    }
    rankBox_->setVisible(rankBox_->count() > 1);
}

bool MainWindow::rankPending() const { return controller_->rankWorkPending(); }

void MainWindow::showBusy(const QString& what) {
    statusLabel_->setText(what);
    progress_->setMaximum(0);
    progress_->setVisible(true);
}

void MainWindow::endBusy() {
    progress_->setVisible(controller_->loader()->busy()); // a load may be under way
}

void MainWindow::setRankBoxTo(int rank) {
    for (int i = 0; i < rankBox_->count(); ++i)
        if (rankBox_->itemData(i).toInt() == rank) rankBox_->setCurrentIndex(i);
}

void MainWindow::showTrace(uint32_t trace, std::function<void()> then, bool leaveAllRanks) {
    if (!shown() || !shown()->ranks) return;
    if (trace == shown()->shownTrace && !shown()->modelPending) {
        controller_->cancelRankWork(); // a switch to another trace asked for before this one
        endBusy();
        if (leaveAllRanks && allRanks_) {
            allRanks_.reset();
            fillTableAndTree();
        }
        if (then) then();
        return;
    }
    // Building another trace's table, tree, timeline and panes takes seconds on a big trace:
    // off the GUI thread, the window as it was until then.
    const auto ranks = shown()->ranks;
    showBusy(QStringLiteral("Preparing %1…")
                 .arg(QFileInfo(QString::fromStdString(ranks->session->traces.at(trace).file))
                          .fileName()));
    controller_->prepareTrace(trace, tableOrder(),
                              [this, then = std::move(then), leaveAllRanks](auto prepared) {
                                  endBusy();
                                  if (leaveAllRanks) allRanks_.reset();
                                  controller_->show(std::move(prepared), false);
                                  if (then) then();
                              });
}

void MainWindow::showRank(int rank, std::function<void()> then) {
    if (!shown() || !shown()->ranks) return;
    const auto analysis = shown()->ranks;
    const Session& s = *analysis->session;
    if (kernelView_->filterEdit()->text() == rankFilter_ && !rankFilter_.isEmpty())
        kernelView_->applyFilter(QString());
    rankFilter_.clear();
    if (rank == kAllRanks) {
        if (analysis->fromSummaries()) {
            statusLabel_->setText(
                QStringLiteral("Every rank in the table and tree needs every rank's model: this "
                               "job opened from its %1 ranks' summaries (memory budget %2)")
                    .arg(s.ranks.size())
                    .arg(QString::fromStdString(formatByteSize(analysis->models->budget()))));
            return;
        }
        if (s.traces.size() < 2) return;
        setRankBoxTo(kAllRanks);
        if (!controller_->allRanks()) { // every trace's table and tree: seconds over many ranks
            showBusy(QStringLiteral("Building the table and layer tree of all %1 ranks…")
                         .arg(s.ranks.size()));
            controller_->prepareAllRanks([this, then = std::move(then)](auto) {
                endBusy();
                showRank(kAllRanks, then);
            });
            return;
        }
        controller_->cancelRankWork(); // a rank switch asked for before
        endBusy();
        if (!allRanks_) {
            allRanks_ = controller_->allRanks();
            fillTableAndTree();
        }
        statusLabel_->setText(
            QStringLiteral("Table and layer tree: %L1 kernels of all %2 ranks in %3 files; "
                           "timeline and panes: %4")
                .arg(static_cast<qulonglong>(allRanks_->kernels->size()))
                .arg(s.ranks.size())
                .arg(s.traces.size())
                .arg(QFileInfo(QString::fromStdString(s.traces[shown()->shownTrace].file))
                         .fileName()));
        if (then) then();
        emit rankShown();
        return;
    }
    uint32_t trace = rank < 0 ? static_cast<uint32_t>(-1 - rank) : UINT32_MAX;
    const SessionRank* chosen = nullptr;
    for (const auto& r : s.ranks)
        if (r.rank == rank) chosen = &r;
    if (chosen) trace = chosen->trace;
    if (trace >= s.traces.size()) return;
    setRankBoxTo(rank);
    int inTrace = 0;
    for (const auto& r : s.ranks) inTrace += r.trace == trace;
    const std::optional<uint32_t> device =
        chosen && inTrace > 1 ? std::optional(chosen->device) : std::nullopt;
    const QString file = QString::fromStdString(s.traces[trace].file);
    showTrace(
        trace,
        [this, rank, device, file, known = chosen != nullptr, then = std::move(then)] {
            // A file holding several GPUs: the rank is its device's kernels.
            if (device) {
                rankFilter_ = QStringLiteral("device = %1").arg(*device);
                kernelView_->applyFilter(rankFilter_);
            }
            setRankBoxTo(rank);
            QString text = known ? QStringLiteral("Showing rank %1 (%2)").arg(rank).arg(file)
                                 : QStringLiteral("Showing all ranks of %1").arg(file);
            if (const auto& ranks = shown()->ranks; ranks && ranks->fromSummaries())
                text += QStringLiteral("  ·  %1 ranks from their summaries; full models within %2, "
                                       "%3 held")
                            .arg(ranks->session->ranks.size())
                            .arg(QString::fromStdString(formatByteSize(ranks->models->budget())))
                            .arg(ranks->models->heldTraces().size());
            statusLabel_->setText(text);
            if (then) then();
            emit rankShown();
        },
        true);
}

// Each trace's row in the all-ranks layer tree: "Rank 3 · job_rank3.sqlite", "Ranks 0–7 ·
// node.nvvp".
QStringList MainWindow::traceRankNames() const {
    QStringList names;
    if (!shownRanks_) return names;
    const Session& s = *shownRanks_->session;
    for (uint32_t t = 0; t < s.traces.size(); ++t) {
        std::vector<int> ranks;
        for (const auto& r : s.ranks)
            if (r.trace == t) ranks.push_back(r.rank);
        const QString file = QFileInfo(QString::fromStdString(s.traces[t].file)).fileName();
        if (ranks.empty())
            names << file;
        else if (ranks.size() == 1)
            names << QStringLiteral("Rank %1 · %2").arg(ranks.front()).arg(file);
        else
            names << QStringLiteral("Ranks %1–%2 · %3")
                         .arg(ranks.front())
                         .arg(ranks.back())
                         .arg(file);
    }
    return names;
}

KernelOrder MainWindow::tableOrder() const {
    const auto* header = kernelView_->table()->horizontalHeader();
    return KernelOrder{header->sortIndicatorSection(),
                       header->sortIndicatorOrder() == Qt::DescendingOrder};
}

void MainWindow::fillTableAndTree() {
    std::optional<StepTiming> step(std::in_place, "kernel table");
    if (allRanks_)
        kernelModel_->setTables(allRanks_->kernels);
    else if (shown()->sortedKernels) // sorted on the loader thread
        kernelModel_->setSortedTable(
            shown()->kernels, shown()->sortedKernels, shown()->kernelOrder.column,
            shown()->kernelOrder.descending ? Qt::DescendingOrder : Qt::AscendingOrder);
    else
        kernelModel_->setTable(shown()->kernels);
    step.emplace("kernel table: sort and filter");
    // The model keeps its sort and filter across tables; sort again only where the header asks
    // for another order (the remembered one on the first open).
    auto* header = kernelView_->table()->horizontalHeader();
    const int column = header->sortIndicatorSection();
    if (column >= 0 && column < kernelModel_->columnCount() &&
        (column != kernelModel_->sortColumn() ||
         header->sortIndicatorOrder() != kernelModel_->sortOrder()))
        kernelModel_->sort(column, header->sortIndicatorOrder());
    kernelView_->applyFilter(kernelView_->filterEdit()->text());
    step.emplace("layer tree");
    if (allRanks_)
        layerModel_->setSessionTree(allRanks_->layers, allRanks_->traces, traceRankNames());
    else
        layerModel_->setTree(shown()->trace, shown()->layers);
    layerView_->expandToDepth(allRanks_ ? 0 : 1);
    timeline_->view()->setEveryRankInTable(allRanks_ != nullptr);
}

KernelId MainWindow::rowOfShown(KernelId k) const {
    return allRanks_ && k.valid() ? allRanks_->kernels->rowOf(shown()->shownTrace, k) : k;
}

std::vector<KernelId> MainWindow::rowsOfShown(const std::vector<KernelId>& kernels) const {
    if (!allRanks_) return kernels;
    std::vector<KernelId> rows;
    rows.reserve(kernels.size());
    for (KernelId k : kernels) rows.push_back(rowOfShown(k));
    return rows;
}

void MainWindow::showRowsOnTimeline(const std::vector<KernelId>& rows, const QString& what) {
    if (!allRanks_) return timeline_->showKernels(rows, what);
    // Every rank's rows: each lit in its own trace's rows of the session timeline.
    std::vector<std::vector<KernelId>> byTrace(allRanks_->traces.size());
    for (KernelId row : rows)
        byTrace[allRanks_->kernels->traceOf(row)].push_back(allRanks_->kernels->localOf(row));
    timeline_->showTraceKernels(byTrace, what);
}

uint32_t MainWindow::traceOfRow(KernelId row) const {
    return allRanks_ && row.valid() ? allRanks_->kernels->traceOf(row)
                                    : (shown() ? shown()->shownTrace : 0);
}

} // namespace ls::gui
