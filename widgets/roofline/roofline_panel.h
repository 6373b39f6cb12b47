#pragma once
// The Roofline tab: the level selector (kernel family, op, layer, kernel), a line on the GPU and
// its peaks (or why there are no roofs), and the chart. Clicking a point asks for the kernel
// filter that selects its kernels.
#include "core/present/roofline_data.h"
#include "widgets/page/trace_page.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;

namespace ls::gui {

class RooflineChart;

class RooflinePanel : public QWidget, public TracePage {
    Q_OBJECT
  public:
    explicit RooflinePanel(QWidget* parent = nullptr);
    void setData(std::shared_ptr<const RooflineData> d); // null: empty
    // TracePage: the shown trace's points in one step.
    std::vector<std::function<void()>> showSteps(std::shared_ptr<const TraceViews> views) override;
    void setLevel(RooflineLevel level);
    RooflineLevel level() const;
    const std::vector<RooflineRow>& rows() const; // the plotted rows of the current level

    RooflineChart* chart() const { return chart_; }
    QComboBox* levelBox() const { return level_; }
    QLabel* message() const { return message_; }

  signals:
    void filterRequested(const QString& expression);

  private:
    void redraw();

    std::shared_ptr<const RooflineData> data_;
    QComboBox* level_;
    QLabel* message_;
    RooflineChart* chart_;
};

} // namespace ls::gui
