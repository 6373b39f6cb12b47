#pragma once
// The two runs' timelines of the Compare tab, stacked: A above B, aligned at the start of the
// same iteration (or, without iteration ranges, at each run's first kernel), zooming and panning
// together. The GPU streams come first; the CPU threads are collapsed (expand them from the row
// header's menu).
#include "widgets/compare/compare_loader.h"
#include "widgets/timeline/timeline_view.h"

#include <QWidget>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QSpinBox;

namespace ls::gui {

class CompareTimelines : public QWidget {
    Q_OBJECT
  public:
    explicit CompareTimelines(QWidget* parent = nullptr);
    void setPair(std::shared_ptr<const ComparePair> pair);
    TimelineView* viewA() const { return a_; }
    TimelineView* viewB() const { return b_; }
    // The times the views align: B's time at the same x is A's time + offsetNs().
    double alignA() const { return alignA_; }
    double alignB() const { return alignB_; }
    double offsetNs() const { return alignB_ - alignA_; }
    // Aligns both runs at the start of their iteration `index` (0-based, clamped to each side's
    // iterations) and shows that iteration.
    void alignAt(int index);
    // Outlines a diff row's kernels on each side and zooms both to them (within the aligned
    // iteration where the row has kernels there).
    void showKernels(std::vector<KernelId> a, std::vector<KernelId> b, const QString& what);
    void clearHighlight();

  private:
    void follow(const TimelineView* from, TimelineView* to, double shiftNs);
    void updateLegend();

    std::shared_ptr<const ComparePair> pair_;
    TimelineView* a_;
    TimelineView* b_;
    QLabel* labelA_;
    QLabel* labelB_;
    QLabel* what_;
    QLabel* legend_;
    QSpinBox* iteration_;
    QComboBox* colorMode_;
    double alignA_ = 0, alignB_ = 0;
    double lengthA_ = 0,
           lengthB_ = 0; // the aligned iterations' durations (without them: the runs' spans)
    bool syncing_ = false;
};

} // namespace ls::gui
