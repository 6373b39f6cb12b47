#include "widgets/window/main_window.h"

#include "core/load/memory_budget.h"
#include "core/present/kernel_scopes.h"
#include "core/present/step_timing.h"
#include "core/pytorch/correlation.h"
#include "widgets/compare/compare_panel.h"
#include "widgets/export/csv_export.h"
#include "widgets/findings/findings_page.h"
#include "widgets/help/shortcuts_dialog.h"
#include "widgets/iterations/iteration_navigator.h"
#include "widgets/panes/fwd_bwd_panel.h"
#include "widgets/panes/load_report_text.h"
#include "widgets/panes/ranks_panel.h"
#include "widgets/panes/summary_charts.h"
#include "widgets/panes/summary_page.h"
#include "widgets/roofline/roofline_panel.h"
#include "widgets/session/job_tracker.h"
#include "widgets/session/jobs_indicator.h"
#include "widgets/session/load_settings.h"
#include "widgets/session/settings_writer.h"
#include "widgets/session/trace_loader.h"
#include "widgets/start/start_page.h"
#include "widgets/summary_tables/summary_tables_page.h"
#include "widgets/tables/details_view.h"
#include "widgets/tables/kernel_details.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/tables/layer_tree_model.h"
#include "widgets/timeline/load_overview_view.h"
#include "widgets/timeline/timeline_area.h"
#include "widgets/util/units.h"
#include "widgets/window/loading_page.h"
#include "widgets/window/session_controller.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QTreeView>
#include <future>

namespace ls::gui {
namespace {
constexpr int kMaxRecent = 8;
const auto kRecentKey = QStringLiteral("recentFiles");
const auto kStateKey = QStringLiteral("window/state");
const auto kGeometryKey = QStringLiteral("window/geometry");
const auto kTabKey = QStringLiteral("window/tab");
const auto kLayerHeaderKey = QStringLiteral("layerTree/header");
constexpr int kStateVersion = 2;
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), kernelModel_(new KernelTableModel(this)),
      layerModel_(new LayerTreeModel(this)), recent_(QSettings().value(kRecentKey).toStringList()),
      settingsWriter_(std::make_unique<SettingsWriter>()) {
    setWindowTitle(QStringLiteral("Layerscope"));
    setAcceptDrops(true);
    setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);

    timeline_ = new TimelineArea;
    iterations_ = new IterationNavigator(timeline_->view());
    timeline_->addStrip(iterations_);
    reportView_ = new QTextBrowser;
    reportView_->setHtml(QStringLiteral(
        "<p>Open an Nsight Systems SQLite export, an nvprof database or a PyTorch profiler trace "
        "(.json or .json.gz) with File → Open (Ctrl+O), drop one on "
        "this window, or try the sample trace (Help → Open sample trace).</p>"));
    tabs_ = new QTabWidget;
    tabs_->setDocumentMode(true);
    tabs_->addTab(timeline_, QStringLiteral("Timeline"));
    tabs_->addTab(summary_ = new SummaryPage, QStringLiteral("Summary"));
    tabs_->addTab(fwdBwd_ = new FwdBwdPanel, QStringLiteral("Forward/Backward"));
    tabs_->addTab(reportView_, QStringLiteral("Load report"));
    tabs_->addTab(ranks_ = new RanksPanel, QStringLiteral("Ranks"));
    tabs_->setTabToolTip(
        tabs_->indexOf(ranks_),
        QStringLiteral("Per rank of the files opened together: compute, communication, "
                       "overlap, idle; collectives across ranks; step time per iteration"));
    tabs_->addTab(roofline_ = new RooflinePanel, QStringLiteral("Roofline"));
    tabs_->addTab(findings_ = new FindingsPage, QStringLiteral("Findings"));
    tabs_->setTabToolTip(tabs_->indexOf(findings_),
                         QStringLiteral("What is wrong, costliest first, each with its evidence"));
    tabs_->addTab(summaryTables_ = new SummaryTablesPage, QStringLiteral("Summary tables"));
    tabs_->setTabToolTip(tabs_->indexOf(summaryTables_),
                         QStringLiteral("PaddlePaddle's profiler tables for this trace: overview, "
                                        "model, distribution, operator, kernel"));
    compare_ = new ComparePanel(tabs_); // a tab once a comparison opens
    compare_->hide();
    setCentralWidget(tabs_);
    controller_ = new SessionController(timeline_, this);
    for (TracePage* page :
         std::initializer_list<TracePage*>{summary_, roofline_, fwdBwd_, findings_, summaryTables_})
        controller_->addPage(page);
    connect(summaryTables_, &SummaryTablesPage::kernelsRequested, this,
            &MainWindow::showTableKernels);
    connect(controller_, &SessionController::visibleDue, this, &MainWindow::showVisible);
    connect(controller_, &SessionController::reportDue, this, &MainWindow::showReport);
    connect(controller_, &SessionController::notOpenedDue, this, &MainWindow::showNotOpened);
    connect(controller_, &SessionController::firstShown, this, &MainWindow::windowReady);
    connect(findings_, &FindingsPage::evidenceRequested, this, &MainWindow::showFindingEvidence);
    connect(this, &MainWindow::windowReady, this, [this] {
        if (FindingsPage::showFirst()) tabs_->setCurrentWidget(findings_);
    });
    connect(controller_, &SessionController::allShown, this, &MainWindow::traceLoaded);
    start_ = new StartPage(this, kStateVersion); // stands in for the tabs while no trace is open
    connect(start_, &StartPage::fileRequested, this, &MainWindow::openFile);

    buildDocks();

    progress_ = new QProgressBar;
    progress_->setMinimumWidth(220);
    progress_->setMaximumWidth(300);
    progress_->setTextVisible(true);
    cancelButton_ = new QPushButton(QStringLiteral("Cancel"));
    cancelButton_->setToolTip(
        QStringLiteral("Stop loading (the window keeps what it showed before)"));
    statusLabel_ = new QLabel;
    statusBar()->addWidget(statusLabel_, 1);
    rankBox_ = new QComboBox;
    rankBox_->setToolTip(QStringLiteral(
        "The rank the kernel table, layer tree, timeline and panes show (Ctrl+[ / Ctrl+])"));
    rankBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    rankBox_->hide(); // until a session of several ranks opens (an empty box on the start page)
    statusBar()->addPermanentWidget(rankBox_);
    // Every background job (loads, rank switches, comparisons, imports, model cache writes) runs on
    // the window's one tracker; the indicator lists those running.
    statusBar()->addPermanentWidget(new JobsIndicator(JobTracker::nearest(this)));
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancelButton_);
    loading_ = new LoadingPage(this);
    setLoading(false);

    connect(cancelButton_, &QPushButton::clicked, controller_, &SessionController::cancelLoad);
    connect(loading_, &LoadingPage::cancelRequested, controller_, &SessionController::cancelLoad);
    connect(loading_->overview(), &LoadOverviewView::painted, this, [this](quint64 kernels) {
        if (loadingFramed_ || kernels == 0) return;
        loadingFramed_ = true;
        emit loadingFirstFrame();
    });
    connect(controller_->loader(), &TraceLoader::progress, this,
            [this](qint64 done, qint64 total, const QString& table, bool inBytes) {
                progress_->setMaximum(1000);
                progress_->setValue(total > 0 ? static_cast<int>(1000 * done / total) : 0);
                const QString unit = inBytes ? QStringLiteral("MB") : QStringLiteral("M rows");
                progress_->setFormat(QStringLiteral("%p% of %1 %2")
                                         .arg(static_cast<double>(total) / 1e6, 0, 'f', 1)
                                         .arg(unit));
                progress_->setToolTip(
                    QStringLiteral("%L1 of %L2 %3 read")
                        .arg(done)
                        .arg(total)
                        .arg(inBytes ? QStringLiteral("bytes") : QStringLiteral("rows")));
                statusLabel_->setText(QStringLiteral("Reading %1…").arg(table));
                loading_->setProgress(done, total, table, inBytes);
            });
    connect(controller_->loader(), &TraceLoader::failed, this, &MainWindow::showError);
    // Not a modal dialog: the files that opened are usable, the others are listed where the
    // load report is.
    connect(controller_->loader(), &TraceLoader::filesProgress, this, [this](int done, int total) {
        statusLabel_->setText(QStringLiteral("Loaded %1 of %2 files…").arg(done).arg(total));
    });
    connect(ranks_, &RanksPanel::rankRequested, this, [this](int rank) { showRank(rank); });
    connect(controller_, &SessionController::rankProgress, this,
            [this](const QString& text, qint64 done, qint64 total) {
                statusLabel_->setText(text + QStringLiteral("…"));
                progress_->setVisible(true);
                progress_->setMaximum(total > 0 ? 1000 : 0);
                if (total > 0) progress_->setValue(static_cast<int>(1000 * done / total));
            });
    connect(controller_, &SessionController::rankUnavailable, this, [this](const QString& why) {
        endBusy();
        if (shown() && shown()->ranks) // the box back on the rank still shown
            for (const auto& r : shown()->ranks->session->ranks)
                if (r.trace == shown()->shownTrace) {
                    setRankBoxTo(r.rank);
                    break;
                }
        statusLabel_->setText(why);
        emit rankUnavailable(why);
    });
    connect(controller_, &SessionController::rankWorkFailed, this, [this](const QString& what) {
        endBusy();
        statusLabel_->setText(QStringLiteral("Could not prepare the rank: %1").arg(what));
    });
    connect(iterations_, &IterationNavigator::navigated, this,
            [this] { tabs_->setCurrentWidget(timeline_); });
    connect(compare_, &ComparePanel::statusMessage, statusLabel_, &QLabel::setText);
    compare_->showAsTabOf(tabs_);
    connect(rankBox_, &QComboBox::activated, this,
            [this](int index) { showRank(rankBox_->itemData(index).toInt()); });
    connect(controller_->loader(), &TraceLoader::cancelled, this, [this] {
        setLoading(false);
        statusLabel_->setText(QStringLiteral("Loading cancelled"));
    });
    connectViews();
    buildMenus();

    QSettings settings;
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray()))
        fitToScreen(this); // first start: 90% of the screen
    if (!restoreState(settings.value(kStateKey).toByteArray(), kStateVersion))
        static_cast<DetailsView*>(details_)->widenDockWhenShown();
    tabs_->setCurrentIndex(settings.value(kTabKey, 0).toInt());
    kernelView_->restoreLayout();
    layerView_->header()->restoreState(settings.value(kLayerHeaderKey).toByteArray());
}

MainWindow::~MainWindow() {
    // Children are destroyed after this body; focus moves while they go and must not reach us.
    disconnect(qApp, nullptr, this, nullptr);
}

void MainWindow::buildDocks() {
    layerView_ = new QTreeView;
    layerView_->setObjectName(QStringLiteral("layerTree"));
    layerView_->setModel(layerModel_);
    layerView_->setUniformRowHeights(true);
    layerView_->setAlternatingRowColors(true);
    layerView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    layerView_->header()->setStretchLastSection(false);
    layerView_->header()->setDefaultSectionSize(72);
    layerView_->header()->resizeSection(0, 220);
    layerDock_ = new QDockWidget(QStringLiteral("Layers"), this);
    layerDock_->setObjectName(QStringLiteral("layersDock"));
    layerDock_->setWidget(layerView_);
    addDockWidget(Qt::LeftDockWidgetArea, layerDock_);

    kernelView_ = new KernelTableView(kernelModel_);
    kernelDock_ = new QDockWidget(QStringLiteral("Kernels"), this);
    kernelDock_->setObjectName(QStringLiteral("kernelsDock"));
    kernelDock_->setWidget(kernelView_);
    addDockWidget(Qt::BottomDockWidgetArea, kernelDock_);

    details_ = new DetailsView;
    details_->setObjectName(QStringLiteral("kernelDetails"));
    details_->setHtml(
        QStringLiteral("<p style='color:#666'>Select a kernel to see its details.</p>"));
    detailsDock_ = new QDockWidget(QStringLiteral("Details"), this);
    detailsDock_->setObjectName(QStringLiteral("detailsDock"));
    detailsDock_->setWidget(details_);
    addDockWidget(Qt::RightDockWidgetArea, detailsDock_);
    resizeDocks({layerDock_, detailsDock_}, {400, 300}, Qt::Horizontal);
    resizeDocks({kernelDock_}, {360}, Qt::Vertical);
}

void MainWindow::connectViews() {
    connect(layerView_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (syncing_ || !current.isValid()) return;
                showLayerNode(layerModel_->nodeOf(current));
            });
    connect(kernelView_, &KernelTableView::currentKernelChanged, this, [this](KernelId k) {
        showKernelDetails(k);
        syncTreeToKernel(k);
    });
    // Several rows selected in the table: they light up on the timeline.
    connect(kernelView_, &KernelTableView::selectionChanged, this, [this] {
        std::vector<KernelId> selected;
        for (const QItemSelectionRange& range : kernelView_->table()->selectionModel()->selection())
            for (int r = range.top(); r <= range.bottom(); ++r)
                selected.push_back(kernelModel_->kernelAt(r));
        std::sort(selected.begin(), selected.end());
        selected.erase(std::unique(selected.begin(), selected.end()), selected.end());
        if (selected.size() > 1) showRowsOnTimeline(selected, QStringLiteral("Selected rows"));
    });
    connect(kernelView_, &KernelTableView::showInTimeline, this, [this](KernelId row) {
        tabs_->setCurrentWidget(timeline_);
        const uint32_t trace = traceOfRow(row);
        if (trace == shown()->shownTrace)
            timeline_->focusKernel(allRanks_ ? kernelModel_->localOf(row) : row);
        else
            timeline_->view()->selectTraceKernel(trace, kernelModel_->localOf(row), true);
    });
    connect(kernelView_, &KernelTableView::showCounterpart, this, &MainWindow::showCounterpart);
    connect(kernelView_, &KernelTableView::scopeToLayer, this, [this](KernelId row) {
        if (!shown() || !row.valid()) return;
        const Trace& t = kernelModel_->tableOf(row).trace();
        const StringId layer = t.kernelLinks.layer[kernelModel_->localOf(row).value];
        if (!layer.valid()) return;
        const std::string name(t.str(layer));
        const std::vector<KernelId> rows =
            allRanks_ ? layerRowsOnEveryRank(*allRanks_, name) : kernelsOfLayer(t, layer);
        const QString label = QString::fromStdString(name);
        kernelModel_->setScope(
            rows, allRanks_
                      ? QStringLiteral("Layer %1 on every rank, forward and backward").arg(label)
                      : QStringLiteral("Layer %1, forward and backward").arg(label));
        showRowsOnTimeline(kernelModel_->rows(), QStringLiteral("Layer %1").arg(label));
    });
    connect(timeline_->view(), &TimelineView::kernelClicked, this,
            &MainWindow::selectTimelineKernel);
    connect(timeline_->view(), &TimelineView::otherRankKernelClicked, this,
            [this](int rank, KernelId k) {
                if (allRanks_) { // the table has every rank: select the row, the panes stay
                    for (const auto& r : shown()->ranks->session->ranks)
                        if (r.rank == rank) return selectRow(allRanks_->kernels->rowOf(r.trace, k));
                    return;
                }
                // The table, tree and panes follow the rank; the timeline keeps its place.
                showRank(rank, [this, k] { selectTimelineKernel(k); });
            });
    connect(timeline_->view(), &TimelineView::rangeClicked, this, [this](RangeId r) {
        if (!shown()) return;
        const Trace& t = *shown()->trace;
        const QString name = QString::fromStdString(std::string(t.str(t.ranges.name[r.value])));
        const auto kernels = kernelsUnder(t, r);
        kernelModel_->setScope(rowsOfShown(kernels), QStringLiteral("Range %1").arg(name));
        timeline_->view()->setHighlight(kernels, false);
        timeline_->view()->setProjection(gpuSpanOf(t, kernels));
    });
    connect(fwdBwd_, &FwdBwdPanel::kernelsSelected, this,
            [this](const std::vector<KernelId>& kernels, const QString& what) {
                timeline_->showKernels(kernels, what);
            });
    connect(kernelView_, &KernelTableView::showInFwdBwd, this, [this](KernelId row) {
        if (!shown() || !row.valid()) return;
        const KernelId k = kernelModel_->localOf(row);
        showTrace(traceOfRow(row), [this, k] { // the panes show one trace: the row's
            tabs_->setCurrentWidget(fwdBwd_);
            fwdBwd_->selectOp(shown()->trace->kernelLinks.opInstance[k.value]);
        });
    });
    layerView_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(layerView_, &QTreeView::customContextMenuRequested, this, &MainWindow::showLayerMenu);
    connect(summary_->charts(), &SummaryCharts::filterRequested, this,
            [this](const QString& expression) {
                kernelModel_->clearScope();
                kernelView_->applyFilter(expression);
                kernelDock_->raise();
            });
    connect(roofline_, &RooflinePanel::filterRequested, summary_->charts(),
            &SummaryCharts::filterRequested); // the same path
    // The export target is the table or tree the user last worked in.
    connect(qApp, &QApplication::focusChanged, this, [this](QWidget*, QWidget* now) {
        std::vector<QAbstractItemView*> views{kernelView_->table(), layerView_, compare_->table()};
        for (const TracePage* page :
             std::initializer_list<const TracePage*>{summary_, fwdBwd_, summaryTables_})
            for (QAbstractItemView* v : page->exportViews()) views.push_back(v);
        for (QAbstractItemView* v : views)
            if (now && (now == v || v->isAncestorOf(now))) lastExportView_ = v;
        if (now && kernelView_->isAncestorOf(now))
            lastExportView_ = kernelView_->table(); // the filter bar exports the table it filters
    });
}

QString MainWindow::samplePath() {
    const QString name = QStringLiteral("sample_gpt2_2layer_fp16_h200.sqlite");
    const QString installed =
        QCoreApplication::applicationDirPath() + QStringLiteral("/../share/layerscope/") + name;
    if (QFileInfo::exists(installed)) return QDir::cleanPath(installed);
    return QStringLiteral(LAYERSCOPE_RESOURCES_DIR "/") + name;
}

void MainWindow::showStartPage() { start_->showIn(recent_, samplePath()); }

void MainWindow::updateRecentMenu() {
    recentMenu_->clear();
    for (const QString& path : recent_)
        recentMenu_->addAction(path, this, [this, path] { openFile(path); });
    recentMenu_->setEnabled(!recent_.isEmpty());
}

void MainWindow::openFiles(const QStringList& paths) {
    if (paths.isEmpty()) return;
    // The title and Open Recent name one input (a file or a folder); several files picked at once
    // are named by their folder in the title only.
    loadingPath_ = paths.size() == 1 ? paths.front() : QString();
    loadingFolder_ = QFileInfo(paths.front()).absolutePath();
    setLoading(true);
    statusLabel_->setText(
        paths.size() == 1 ? QStringLiteral("Opening %1…").arg(QFileInfo(paths.front()).fileName())
                          : QStringLiteral("Opening %1 files…").arg(paths.size()));
    // The loading page takes the tabs' place, laid out and painted, before the load's threads
    // start: beside the loader starting up, that relayout and first paint (10-30 ms of CPU) take
    // 40-60 ms on a 2-core machine.
    std::promise<void> pagePainted;
    controller_->loader()->holdNextStartUntil(pagePainted.get_future().share());
    controller_->open(paths, tableOrder());
    // The overview of the kernels read so far exists once the loader has started.
    loadingFramed_ = false;
    loading_->begin(statusLabel_->text(), controller_->loader()->overview(),
                    paths.size() == 1 ? QFileInfo(paths.front()).size() : 0);
    if (isVisible()) {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        repaint();
    }
    pagePainted.set_value();
}

// While a file loads the loading page stands in for the tabs, and the table, tree and details
// (of the trace shown before, if any) take no input: what they show is about to go.
void MainWindow::setLoading(bool loading) {
    progress_->setVisible(loading);
    cancelButton_->setVisible(loading);
    if (loading) {
        progress_->setMaximum(0); // busy until the first progress report
        progress_->setValue(0);
    } else {
        loading_->end();
    }
    const auto suffix = loading ? QStringLiteral(" — loading…") : QString();
    layerDock_->setWindowTitle(QStringLiteral("Layers") + suffix);
    kernelDock_->setWindowTitle(QStringLiteral("Kernels") + suffix);
    detailsDock_->setWindowTitle(QStringLiteral("Details") + suffix);
    for (QDockWidget* dock : {layerDock_, kernelDock_, detailsDock_})
        dock->widget()->setEnabled(!loading);
    tabs_->setEnabled(!loading);
}

void MainWindow::showVisible(bool newSession) {
    setLoading(false);
    start_->leave();
    if (newSession) {
        const StepTiming step("ranks tab and box");
        showRanks(shown()->ranks);
    }
    ncu_.reset();
    // What the user looks at first, now: the table, the tree and the timeline, and everything
    // else a click on them reaches (details, comparison base).
    if (!allRanks_) fillTableAndTree(); // all ranks: the table and tree stay as they are
    {
        const StepTiming step("timeline");
        if (shown()->ranks && shown()->ranks->timelines)
            timeline_->setSession(shown()->ranks->timelines, shown()->shownTrace);
        else
            timeline_->setData(shown()->timeline);
        iterations_->setSummary(shown()->iterations);
        details_->setHtml(kernelDetailsHtml(*shown()->kernels, KernelId()));
    }
    compare_->setBase(shown()->trace); // a comparison of another trace closes
}

void MainWindow::showReport(bool newSession) {
    const Trace& t = *shown()->trace;
    {
        const StepTiming report("load report");
        reportView_->setHtml(
            loadReportHtml(t)); // now: a partly failed session's list goes above it
    }
    if (!newSession) return; // another rank of the open session: title, recent files, status stay
    const Session* opened = shown()->ranks ? shown()->ranks->session.get() : nullptr;
    const bool oneFile = !opened || opened->traces.size() == 1;
    shownPath_ =
        oneFile && opened ? QString::fromStdString(opened->traces.front().file) : loadingPath_;
    const QFileInfo info(shownPath_.isEmpty() ? loadingFolder_ : shownPath_);
    if (oneFile)
        setWindowTitle(QStringLiteral("%1 — Layerscope").arg(info.fileName()));
    else
        setWindowTitle(QStringLiteral("%1 ranks in %2 files · %3 — Layerscope")
                           .arg(opened->ranks.size())
                           .arg(opened->traces.size())
                           .arg(info.fileName()));
    setWindowFilePath(info.absoluteFilePath());
    // The layer tree's root holds every kernel's time: no pass over a million kernels here.
    const double gpu = static_cast<double>(shown()->layers->gpuTimeNs[0]);
    statusLabel_->setText(
        QStringLiteral("Span %1  ·  %L2 kernels  ·  GPU time %3  ·  loaded in %4")
            .arg(formatDuration(static_cast<double>(t.captureEnd - t.captureStart)))
            .arg(t.kernels.size())
            .arg(formatDuration(gpu),
                 formatDuration((t.loadSeconds + shown()->prepareSeconds) * 1e9)));
    if (opened && shown()->ranks->fromSummaries()) {
        const ModelPool& pool = *shown()->ranks->models;
        statusLabel_->setText(
            shown()->notice.empty()
                ? statusLabel_->text() +
                      QStringLiteral("  ·  %1 ranks from their summaries; full models within "
                                     "%2 (a rank's loads when you open it)")
                          .arg(opened->ranks.size())
                          .arg(QString::fromStdString(formatByteSize(pool.budget())))
                : QString::fromStdString(shown()->notice));
        if (shown()->modelPending) // every rank is on screen: now the first one's detail
            for (const auto& r : opened->ranks)
                if (r.trace == shown()->shownTrace) {
                    showRank(r.rank);
                    break;
                }
    }

    const StepTiming recentStep("title, status, recent files");
    QVariantMap remembered{{QStringLiteral("lastDir"), info.absolutePath()}};
    if (!shownPath_.isEmpty()) { // several files picked at once have no one name to reopen
        recent_.removeAll(info.absoluteFilePath());
        recent_.prepend(info.absoluteFilePath());
        while (recent_.size() > kMaxRecent) recent_.removeLast();
        remembered.insert(kRecentKey, recent_);
    }
    settingsWriter_->write(remembered);
    updateRecentMenu();
}

void MainWindow::showNotOpened(const QStringList& notOpened) {
    if (notOpened.isEmpty()) return;
    statusLabel_->setText(
        QStringLiteral("%1 file(s) could not be opened (see the Load report tab): %2")
            .arg(notOpened.size())
            .arg(notOpened.front()));
    QString html = QStringLiteral("<p><b>Not opened:</b></p><ul>");
    for (const QString& line : notOpened)
        html += QStringLiteral("<li>%1</li>").arg(line.toHtmlEscaped());
    reportView_->setHtml(html + QStringLiteral("</ul>") + reportView_->toHtml());
}

const std::shared_ptr<const TraceViews>& MainWindow::shown() const { return controller_->views(); }

QString MainWindow::statusText() const { return statusLabel_->text(); }

SummaryCharts* MainWindow::charts() const { return summary_->charts(); }
QTableView* MainWindow::summaryView() const { return summary_->table(); }

QAbstractItemView* MainWindow::exportTarget() const {
    return lastExportView_ ? lastExportView_
                           : static_cast<QAbstractItemView*>(kernelView_->table());
}

void MainWindow::compareWith(const QString& path) {
    if (shown())
        compare_->compare(shown(), path);
    else
        statusLabel_->setText(QStringLiteral("Open a trace first: it is run A of the comparison"));
}

void MainWindow::showError(const QString& path, const QString& reason) {
    setLoading(false);
    statusLabel_->setText(
        QStringLiteral("Could not open %1: %2").arg(QFileInfo(path).fileName(), reason));
    emit loadFailed(reason);
    if (QApplication::platformName() == QLatin1String("offscreen"))
        return; // no modal dialogs in tests
    QMessageBox box(QMessageBox::Warning, QStringLiteral("Could not open trace"),
                    QStringLiteral("%1: %2").arg(QFileInfo(path).fileName(), reason),
                    QMessageBox::Ok, this);
    box.setDetailedText(
        QStringLiteral("File: %1\nReason: %2\n\nLayerscope reads Nsight Systems exports made with "
                       "`nsys export --type sqlite`, nvprof databases and PyTorch profiler traces "
                       "(torch.profiler's export_chrome_trace, .json or .json.gz). It opens them "
                       "read-only and never writes beside them.")
            .arg(path, reason));
    box.exec();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
    const auto urls = e->mimeData()->urls();
    QStringList paths;
    for (const QUrl& url : urls)
        if (url.isLocalFile()) paths << url.toLocalFile();
    openFiles(paths); // several files or a folder: one session
}

void MainWindow::saveSettings() {
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(
        kStateKey,
        start_->windowState()); // the docks' layout, also while the start page hides them
    settings.setValue(kTabKey, tabs_->currentIndex());
    settings.setValue(kLayerHeaderKey, layerView_->header()->saveState());
    kernelView_->saveLayout();
}

void MainWindow::closeEvent(QCloseEvent* e) {
    saveSettings();
    controller_->cancelLoad();
    QMainWindow::closeEvent(e);
}

} // namespace ls::gui
