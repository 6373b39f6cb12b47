#pragma once
// The Findings tab: what is wrong with the open trace (or the ranks opened together), costliest
// first (core/findings). Each finding is a row that expands into the bound its cost is estimated
// against, its evidence and its fix; picking one asks the window to select its evidence in the
// kernel table, the layer tree and the timeline. Whether the window shows this tab first after a
// load is a setting the tab carries (a check box, kept in QSettings).
#include "core/findings/finding.h"
#include "widgets/page/trace_page.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QTreeWidget;
class QTreeWidgetItem;
class QTextBrowser;

namespace ls::gui {

class BackgroundJob;

class FindingsPage : public QWidget, public TracePage {
    Q_OBJECT
  public:
    explicit FindingsPage(QWidget* parent = nullptr);
    std::vector<std::function<void()>> showSteps(std::shared_ptr<const TraceViews> views) override;

    // Shown first after a load (the setting, default on).
    static bool showFirst();
    static void setShowFirst(bool on);

    const FindingList& findings() const { return list_; }
    QTreeWidget* tree() const { return tree_; }
    QTextBrowser* details() const { return details_; } // the current finding, in full
    QCheckBox* showFirstBox() const { return showFirstBox_; }
    // Selects finding `index` (0 = the costliest) as a click would: expands it and asks for its
    // evidence.
    void pick(int index);

  signals:
    void evidenceRequested(const ls::Finding& finding);
    void findingsShown(); // the list for the shown views is on screen

  private:
    void showList(FindingList list);
    int findingOf(QTreeWidgetItem* item) const;
    void showDetails(int index);

    QLabel* header_;
    QCheckBox* showFirstBox_;
    QTreeWidget* tree_;
    QTextBrowser* details_;
    BackgroundJob* job_;
    FindingList list_;
    std::shared_ptr<const TraceViews> views_; // what the list was computed for
};

} // namespace ls::gui
