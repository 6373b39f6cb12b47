#pragma once
// The main window: layer tree (left dock), timeline area (centre, with the Summary and Load
// report tabs), kernel table (bottom dock), details of the current kernel (right dock). Opens
// traces from the menu, recent files, drag and drop, the command line or the bundled sample;
// loads them in the background with progress and Cancel. Layout persists in QSettings.
#include "core/findings/finding.h"
#include "core/import/ncu/ncu_metrics.h"
#include "core/present/trace_views.h"

#include <QMainWindow>
#include <QStringList>
#include <functional>
#include <memory>
#include <vector>

class QAbstractItemView;
class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTableView;
class QTextBrowser;
class QTreeView;

namespace ls::gui {

class ComparePanel;
class FindingsPage;
class FwdBwdPanel;
class IterationNavigator;
class KernelSummaryModel;
class KernelTableModel;
class KernelTableView;
class LoadingPage;
class SummaryTablesPage;
class LayerTreeModel;
class RanksPanel;
class RooflinePanel;
class SessionController;
class SettingsWriter;
class SummaryPage;
class StartPage;
class SummaryCharts;
class TimelineArea;
class TraceLoader;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void openFile(const QString& path) { openFiles({path}); }
    // Several files, or a folder, open as one session: the ranks of one job.
    void openFiles(const QStringList& paths);
    // Shows rank `rank` of the session in the table, tree, timeline and panes (its trace; in a
    // file holding several GPUs, its device's kernels); -1 - t shows all of trace t; kAllRanks
    // puts every rank of the session in the table and the layer tree (the panes keep their trace).
    // `then` runs once it is shown (it is prepared off the GUI thread when it takes long).
    void showRank(int rank, std::function<void()> then = {});
    static constexpr int kAllRanks = -0x40000000;
    bool allRanksShown() const { return allRanks_ != nullptr; }
    // A rank switch or the all-ranks table still being prepared off the GUI thread (rankShown
    // follows once it is on screen).
    bool rankPending() const;
    std::shared_ptr<const Trace> trace() const { return shown() ? shown()->trace : nullptr; }
    const TraceViews* views() const { return shown().get(); }
    // Where the sample trace is: installed share dir, else the source tree's resources/.
    static QString samplePath();
    // The start page instead of the tabs (open, recent files, the sample, how to get a trace)
    // until a trace opens: for a start without a file and without the sample.
    void showStartPage();

    KernelTableView* kernelView() const { return kernelView_; }
    KernelTableModel* kernelModel() const { return kernelModel_; }
    QTreeView* layerView() const { return layerView_; }
    LayerTreeModel* layerModel() const { return layerModel_; }
    QTextBrowser* detailsView() const { return details_; }
    SummaryCharts* charts() const;
    QTableView* summaryView() const;
    FwdBwdPanel* fwdBwdPanel() const { return fwdBwd_; }
    RanksPanel* ranksPanel() const { return ranks_; }
    RooflinePanel* rooflinePanel() const { return roofline_; }
    FindingsPage* findingsPage() const { return findings_; }
    SummaryTablesPage* summaryTablesPage() const { return summaryTables_; }
    // The Compare tab: added to the tabs once a comparison opens.
    ComparePanel* comparePanel() const { return compare_; }
    QComboBox* rankBox() const { return rankBox_; }
    QString statusText() const; // the status bar's line
    // The iteration strip above the timeline: previous/next/slowest and the durations chart.
    IterationNavigator* iterationNavigator() const { return iterations_; }
    // What the central area shows while a file loads: progress and the kernels read so far.
    LoadingPage* loadingPage() const { return loading_; }

    // Selects a layer tree node: the kernel table shows its kernels (a layer: forward and
    // backward), the timeline the same set.
    void showLayerNode(uint32_t node);
    // Writes the view's rows (all, or the selected ones) as CSV; returns the error, if any.
    QString exportView(const QAbstractItemView& view, const QString& path, bool selectedOnly);
    // Loads `path` in the background and compares it (run B) with the open trace (run A) in the
    // Compare tab.
    void compareWith(const QString& path);
    // Imports Nsight Compute CSV metrics onto the open trace; returns the error line, if any
    // (the trace and its table stay as they were). The CSV is parsed off the GUI thread: this call
    // waits in an event loop, the window keeps handling events.
    QString importNcu(const QString& path);
    // The same without waiting: a job of the window's tracker; `done` gets "" once the table shows
    // the metrics, else the error line ("cancelled" when a newer import superseded it).
    void importNcuInBackground(const QString& path,
                               std::function<void(const QString& error)> done = {});

  signals:
    // A load in progress first drew kernels in its overview (the loading page), before the
    // window is usable.
    void loadingFirstFrame();
    void windowReady(); // a newly opened trace's table, tree and timeline are shown
    void traceLoaded(); // and its other tabs too
    void loadFailed(const QString& reason);
    void rankShown(); // what showRank asked for is on screen
    // showRank's rank has no model to show (a job's trace not on this machine): which file to copy
    // where; the shown rank stays.
    void rankUnavailable(const QString& why);

  protected:
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;
    void closeEvent(QCloseEvent* e) override;

  private:
    void buildDocks();
    void buildMenus();
    void connectViews();
    void updateRecentMenu();
    // The shown trace's views (SessionController::views).
    const std::shared_ptr<const TraceViews>& shown() const;
    // The controller's stages: the table, tree, timeline and what a click on them reaches; then
    // the load report (and, newSession, the title, status line and recent files).
    void showVisible(bool newSession);
    void showReport(bool newSession);
    void showNotOpened(const QStringList& lines); // above the load report and in the status line
    void showRanks(const std::shared_ptr<const RankAnalysis>& analysis);
    // The timeline and panes on another trace of the session, prepared off the GUI thread; `then`
    // runs once it is shown (at once when it already is). leaveAllRanks: the table and tree go
    // back to the one trace then too.
    void showTrace(uint32_t trace, std::function<void()> then = {}, bool leaveAllRanks = false);
    void setRankBoxTo(int rank);
    void showBusy(const QString& what); // a rank being prepared: the status line and a busy bar
    void endBusy();
    void fillTableAndTree();        // the shown trace's, or every rank's
    KernelOrder tableOrder() const; // the kernel table header's sort
    QStringList traceRankNames() const;
    // Kernel ids of the shown trace <-> the kernel table's row ids (the same but in all-ranks
    // mode).
    KernelId rowOfShown(KernelId k) const;
    std::vector<KernelId> rowsOfShown(const std::vector<KernelId>& kernels) const;
    uint32_t traceOfRow(KernelId row) const;
    // Lights up the table rows' kernels on the timeline, each in its trace's rows (all ranks: in
    // every rank's).
    void showRowsOnTimeline(const std::vector<KernelId>& rows, const QString& what);
    void selectRow(KernelId row); // table row, details, links
    void showError(const QString& path, const QString& reason);
    void setLoading(bool loading);
    void showKernelDetails(KernelId row);
    void selectTimelineKernel(KernelId k); // a click on a kernel bar of the shown trace
    void syncTreeToKernel(KernelId row);
    void showCounterpart(KernelId row);
    // A finding's evidence: its kernels in the table, tree and timeline, its stretch of time shown.
    void showFindingEvidence(const Finding& finding);
    // A Summary tables row's kernels in the kernel table, the layer tree and the timeline.
    void showTableKernels(const std::vector<KernelId>& kernels, const QString& label);
    void showLayerMenu(const QPoint& pos);
    void exportInteractive(bool selectedOnly);
    void importNcuInteractive();
    QAbstractItemView* exportTarget() const;
    void saveSettings();

    SessionController* controller_ = nullptr; // the shown views and their staged delivery
    std::shared_ptr<const NcuMetrics> ncu_;
    QString loadingPath_; // the file or folder being opened; empty for several files picked at once
    QString loadingFolder_; // the folder of what is being opened
    QString shownPath_;     // the file on screen: a failed or cancelled open leaves it

    KernelTableModel* kernelModel_;
    KernelTableView* kernelView_ = nullptr;
    LayerTreeModel* layerModel_;
    QTreeView* layerView_ = nullptr;
    QTextBrowser* details_ = nullptr;
    TimelineArea* timeline_ = nullptr;
    SummaryPage* summary_ = nullptr;
    FwdBwdPanel* fwdBwd_ = nullptr;
    RanksPanel* ranks_ = nullptr;
    RooflinePanel* roofline_ = nullptr;
    FindingsPage* findings_ = nullptr;
    SummaryTablesPage* summaryTables_ = nullptr;
    ComparePanel* compare_ = nullptr;
    IterationNavigator* iterations_ = nullptr;
    StartPage* start_ = nullptr;
    LoadingPage* loading_ = nullptr;
    bool loadingFramed_ = false; // loadingFirstFrame said for the load in progress
    QComboBox* rankBox_ = nullptr;
    std::shared_ptr<const RankAnalysis>
        shownRanks_; // the session the Ranks tab and the rank box show
    std::shared_ptr<const AllRanksView> allRanks_; // set while the table and tree show every rank
    QString rankFilter_; // the device filter showRank put in the filter bar, cleared when leaving
                         // the rank
    QTextBrowser* reportView_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QDockWidget* layerDock_ = nullptr;
    QDockWidget* kernelDock_ = nullptr;
    QDockWidget* detailsDock_ = nullptr;
    QAbstractItemView* lastExportView_ = nullptr;
    bool syncing_ = false; // a tree selection made to follow the table must not re-filter it

    QProgressBar* progress_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QLabel* statusLabel_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QStringList recent_; // the recent files, newest first: kept here, written off this thread
    std::unique_ptr<SettingsWriter> settingsWriter_; // what an open writes (recent, last folder)
};

} // namespace ls::gui
