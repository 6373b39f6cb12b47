#pragma once
// The centre of the window: the timeline with its toolbar (colour mode, legend, fit, back and
// forward). Layer clicks, table selections and "show in timeline" land here.
#include "core/views/kernel_table.h"
#include "widgets/timeline/timeline_view.h"

#include <QWidget>
#include <memory>
#include <vector>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;

namespace ls::gui {

class TimelineArea : public QWidget {
    Q_OBJECT
  public:
    explicit TimelineArea(QWidget* parent = nullptr);
    void setData(std::shared_ptr<const TimelineData> timeline);
    // Several ranks: all their rows, trace `shown` the one the table and tree show.
    void setSession(std::shared_ptr<const SessionTimeline> session, uint32_t shown);
    QLineEdit* rankFilter() const { return rankFilter_; }
    TimelineView* view() const { return view_; }
    // Kernels selected elsewhere (a layer click, a range, the counterpart of an op).
    void showKernels(const std::vector<KernelId>& kernels, const QString& what);
    // Kernels of several traces of the session (byTrace[t]: session trace t's), each in its rows.
    void showTraceKernels(const std::vector<std::vector<KernelId>>& byTrace, const QString& what);
    void focusKernel(KernelId k);
    void clearHighlight();
    // A strip of controls between the toolbar and the view (the iteration navigator).
    void addStrip(QWidget* strip);

  private:
    void updateLegend();

    TimelineView* view_;
    QComboBox* colorMode_;
    QHBoxLayout* legend_;
    QLabel* what_;
    QLineEdit* rankFilter_;
};

} // namespace ls::gui
