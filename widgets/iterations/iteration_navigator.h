#pragma once
// The iteration navigator: a strip above the timeline with Previous / Next / Slowest, where the
// shown iteration stands ("iteration 3 · 2 of 5 · 24.4 ms (median 24.4 ms)"), how the
// iterations were found, and a bar chart of their durations. Going to an iteration (a button, a
// shortcut, a click on a bar) zooms the timeline to its span on the trace clock. A trace without
// iterations shows one line saying so.
#include "core/reports/iteration_summary.h"

#include <QWidget>
#include <memory>

class QAction;
class QLabel;
class QToolButton;

namespace ls::gui {

class IterationChart;
class TimelineView;

class IterationNavigator : public QWidget {
    Q_OBJECT
  public:
    explicit IterationNavigator(TimelineView* timeline, QWidget* parent = nullptr);
    // Computed on the loader thread (TraceViews::iterations). Null hides the strip.
    void setSummary(std::shared_ptr<const IterationSummary> summary);
    const IterationSummary* summary() const { return summary_.get(); }

    int current() const { return current_; } // index into summary()->rows; -1: none yet
    int count() const;
    int slowestIndex() const; // -1 without iterations
    // Zooms the timeline to iteration `index` (clamped) and makes it current.
    void goTo(int index);
    void next();     // the first when none is current
    void previous(); // the last when none is current
    void slowest();

    IterationChart* chart() const { return chart_; }
    QString positionText() const;
    QString ruleText() const;
    // Previous (Alt+PgUp, [), Next (Alt+PgDown, ]) and Slowest: the window puts them in a menu
    // so that their shortcuts work from every tab.
    QList<QAction*> navigationActions() const;

    // "5 iteration ranges", "5 training steps detected from optimizer runs (op counts agree
    // within 0 %)", …; empty for none.
    static QString ruleSentence(const IterationSummary& s);

  signals:
    // An iteration was chosen: the window brings the timeline forward (before it is zoomed).
    void navigated(int index);

  private:
    void followTimeline();
    QString position(bool html) const;
    void refresh();

    TimelineView* timeline_;
    std::shared_ptr<const IterationSummary> summary_;
    int current_ = -1;
    bool zooming_ = false; // the timeline's window change is ours
    QAction* previous_;
    QAction* next_;
    QAction* slowest_;
    QLabel* position_;
    QLabel* rule_;
    QLabel* none_;
    QWidget* controls_;
    IterationChart* chart_;
};

} // namespace ls::gui
