#pragma once
// The Compare tab: two runs compared by meaning (core/compare/run_diff.h). A one-line verdict and
// what the times were normalized by; a level selector (direction, layer, op, kernel family,
// kernel, iteration) and Per sample; the diff table with drill-down (a layer's ops, an op's or a
// family's kernels: double-click or Enter; Backspace or Alt+Left goes back up; the breadcrumb
// jumps to any step); bars of A against B; the two timelines stacked, aligned at an iteration,
// the selected row's kernels outlined in both. Loading B and every diff run off the GUI thread.
#include "core/present/trace_views.h"
#include "widgets/compare/compare_loader.h"

#include <QWidget>
#include <memory>
#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QTableView;
class QToolButton;

class QTabWidget;

namespace ls::gui {

class CompareTimelines;
class DiffChart;
class DiffSortProxy;
class DiffTableModel;

class ComparePanel : public QWidget {
    Q_OBJECT
  public:
    // A "Compare" tab of `tabs` while a comparison is open: added and shown when one opens,
    // removed when it closes.
    void showAsTabOf(QTabWidget* tabs);
    explicit ComparePanel(QWidget* parent = nullptr);

    // Loads pathB in the background and compares it (B) with the open trace (A). Remembers pathB.
    void compare(std::shared_ptr<const TraceViews> a, const QString& pathB);
    // The open trace is now `a`: a comparison of another trace is closed.
    void setBase(const std::shared_ptr<const Trace>& a);
    void close();
    // The file dialog for run B, starting at the last compared file; empty when cancelled.
    static QString chooseFile(QWidget* parent);
    static QString lastComparedFile();

    void setLevel(DiffLevel level); // keeps the drill-down scope
    void setPerSample(bool on);
    // Opens the next level under a model row (a direction's layers, a layer's ops, an op's or a
    // family's kernels); false when the row has none.
    bool drillDown(int modelRow);
    void goBack();              // one step up the drill-down
    void goToStep(size_t step); // 0: the top

    bool isOpen() const { return pair_ != nullptr; }
    bool busy() const;
    const ComparePair* pair() const { return pair_.get(); }
    const CompareResult* shown() const { return shown_.get(); }
    const DiffOptions& options() const {
        return options_;
    } // the last asked for (shown once its diff is in)
    size_t depth() const { return history_.size(); }
    QString breadcrumb() const;
    QString verdict() const;
    DiffTableModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    DiffChart* chart() const { return chart_; }
    CompareTimelines* timelines() const { return timelines_; }
    QComboBox* levelBox() const { return level_; }
    QCheckBox* perSampleBox() const { return perSample_; }

  signals:
    void statusMessage(const QString& text);
    void opened();      // a new pair's first diff is shown
    void closed();      // the comparison was closed
    void resultShown(); // a diff is shown (the first and every later one)

  private:
    struct Step {
        DiffOptions options;
        std::string key; // the row drilled from, selected again on the way back
    };
    void request(const DiffOptions& options);
    void show(const std::shared_ptr<const CompareResult>& result);
    bool selectKey(const std::string& key);
    void rowSelected(int modelRow);
    void updateControls();
    QString stepLabel(size_t step) const;

    CompareLoader* loader_;
    std::shared_ptr<const Trace> loadingA_; // run A of the comparison being opened
    std::shared_ptr<const ComparePair> pair_;
    std::shared_ptr<const CompareResult> shown_;
    std::shared_ptr<const DiffResult>
        shownDiff_; // aliases shown_->diff for the model and the chart
    DiffOptions options_;
    std::vector<Step> history_;
    std::string reselect_; // after a step back: the row to select once the diff is in

    QLabel* verdict_;
    QLabel* normalized_;
    QComboBox* level_;
    QCheckBox* perSample_;
    QToolButton* back_;
    QLabel* crumbs_;
    DiffTableModel* model_;
    DiffSortProxy* proxy_;
    QTableView* table_;
    DiffChart* chart_;
    CompareTimelines* timelines_;
};

} // namespace ls::gui
