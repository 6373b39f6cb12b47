#pragma once
// The window's session: loading (TraceLoader), the shown trace's views and their staged delivery,
// and rank switching (another trace of the session, every rank's table and tree, prepared off
// the GUI thread on the window's JobTracker). The views reach the window in stages, so that no turn
// of the event loop adds up every tab's work on a million kernels: the table, tree and timeline
// first (visibleDue), the load report, title and status line in the next turn after their paint
// (reportDue), then each page's steps (TracePage::showSteps) in turns of their own once every tab's
// rows are built, and allShown for a newly opened trace. A newer trace's views replace a stage
// still pending. The window does the showing; this class owns the order and the state that keeps
// it.
#include "core/present/trace_views.h"

#include <QObject>
#include <QPointer>
#include <QStringList>
#include <functional>
#include <memory>
#include <vector>

class QWidget;

namespace ls::gui {

class BackgroundJob;
class TracePage;
class TraceLoader;

class SessionController : public QObject {
    Q_OBJECT
  public:
    // paintGate: the widget whose paint is held back until the report's turn (the timeline), so
    // that the table's paint and the timeline's fall in separate turns.
    explicit SessionController(QWidget* paintGate, QObject* parent = nullptr);

    // Loading: files or folders open as one session; its views come through show() and
    // complete(). The loader's progress, failures and cancel reach the window through loader().
    TraceLoader* loader() const { return loader_; }
    void open(const QStringList& paths, KernelOrder order);
    void cancelLoad();

    void addPage(TracePage* page); // pages' steps run in the order pages were added
    const std::shared_ptr<const TraceViews>& views() const { return views_; }

    // Shows views now. deferPanes (a newly loaded trace): the report, title and pages come in
    // later turns; else at once (another rank of the open session).
    void show(std::shared_ptr<const TraceViews> views, bool deferPanes);
    // The shown trace's views with every tab's rows (the load's second stage); ignored when they
    // are of another trace or the shown views are complete already.
    void complete(std::shared_ptr<const TraceViews> complete);
    // Files of the session being opened that could not be read: handed on (notOpenedDue) with
    // the report, or at once when no report is pending.
    void setNotOpened(const QStringList& lines);
    // Some stage of the shown views is still to come.
    bool pending() const { return reportPending_ || !steps_.empty(); }

    // Rank switching. Trace `trace` of the shown session prepared off the GUI thread; `ready`
    // gets it unless another session opened or another request came meanwhile. In a session of
    // summaries the trace's model comes from the session's ModelPool first (a load with
    // progress, rankProgress; rankUnavailable when its file is not here).
    void prepareTrace(uint32_t trace, KernelOrder order,
                      std::function<void(std::shared_ptr<const TraceViews>)> ready);
    // Every rank's table and tree: built once per session (off the GUI thread), then at once.
    void prepareAllRanks(std::function<void(std::shared_ptr<const AllRanksView>)> ready);
    std::shared_ptr<const AllRanksView> allRanks() const { return allRanks_; } // null until built
    void cancelRankWork();
    bool rankWorkPending() const;

  signals:
    // The table, tree, timeline and what a click on them reaches are to show views() now;
    // newSession: another session than the last shown (not another rank of it).
    void visibleDue(bool newSession);
    // The load report, and for a new session the title, status line and recent files.
    void reportDue(bool newSession);
    void notOpenedDue(const QStringList& lines);
    void rankWorkFailed(const QString& what); // preparing a rank threw (one line)
    void rankProgress(const QString& text, qint64 done, qint64 total); // loading a rank's model
    void rankUnavailable(const QString& why); // its model cannot be had: which file to copy
    void firstShown(); // a new session's visible part and report are on screen
    void allShown();   // and every page too

  private:
    void showReport(bool newSession, bool wasComplete, bool deferPanes);
    void flushNotOpened();
    void queuePageSteps(bool defer);
    void runStep();

    TraceLoader* loader_;
    BackgroundJob* rankJob_;   // prepareTrace's and prepareAllRanks' work
    uint64_t rankRequest_ = 0; // counts rank requests: a kept rank's posted views check it
    bool keptPending_ = false; // a kept rank's views are posted, to be shown next turn
    std::shared_ptr<const AllRanksView> allRanks_; // of ranks_, kept for switching back
    QPointer<QWidget> paintGate_;
    std::vector<TracePage*> pages_;
    std::shared_ptr<const TraceViews> views_;
    std::shared_ptr<const RankAnalysis> ranks_; // of the last session shown
    std::vector<std::function<void()>> steps_;  // the pages' steps still to run, in order
    bool allShownDue_ = false;                  // allShown follows the pages' steps
    bool allShownQueued_ = false;               // allShown is among steps_
    bool reportPending_ = false;                // show()'s report is still to come
    // The complete views when they come before the report (a small trace's can): taken once the
    // report is shown, so that firstShown always comes first.
    std::shared_ptr<const TraceViews> completeWaiting_;
    QStringList notOpened_;
};

} // namespace ls::gui
