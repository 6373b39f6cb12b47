#pragma once
// The Ranks tab's timeline: one row per rank on the session's common clock, split into a compute
// lane and a communication lane (or one busy lane when collapsed), drawn from the unions of the
// rank's kernel intervals. Rows can be filtered ("0-7, 12") and ordered (by rank, exposed
// communication, idle); a selected collective is marked on every rank that ran it, with its skew.
// Per row and lane, two binary searches find the visible intervals; sub-pixel runs fold into one
// bar per pixel, so a frame costs the same for 2 ranks or 64. The time shown is a TimeAxis over
// the ranks' span.
#include "core/present/time_axis.h"
#include "core/present/trace_views.h"

#include <QImage>
#include <QWidget>
#include <memory>
#include <vector>

namespace ls::gui {

class RankTimeline : public QWidget {
    Q_OBJECT
  public:
    enum class Order { Rank, ExposedComm, Idle, Compute };

    explicit RankTimeline(QWidget* parent = nullptr);
    void setAnalysis(std::shared_ptr<const RankAnalysis> analysis);
    // "0-7, 12, 40-": the ranks to show; empty shows all. Returns false (and shows all) when
    // unreadable.
    bool setRankFilter(const QString& text);
    void setOrder(Order order);
    void setSplitLanes(bool split); // false: one busy lane per rank (collapsed rows)
    // Marks collective `index` (into the analysis' collectives) on its ranks; -1 clears.
    void selectCollective(int index);
    // Shows [from, to] of session time.
    void zoomTo(TimeNs from, TimeNs to);

    const std::vector<int>& shownRanks() const {
        return rows_;
    } // indexes into Session::ranks, top to bottom
    const TimeAxis& axis() const { return axis_; }
    double startNs() const { return axis_.from(); }
    double nsPerPixel() const { return ls::nsPerPixel(axis_.window(), plotWidth()); }
    int rowAt(int y) const;
    QSize sizeHint() const override { return {900, 260}; }

  signals:
    void rankClicked(int rank);

  protected:
    void paintEvent(QPaintEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    bool event(QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

  private:
    void rebuildRows();
    void fitAll();
    int rowHeight() const;
    int plotWidth() const;
    double toX(double ns) const { return axis_.toX(ns, plotWidth()); }

    std::shared_ptr<const RankAnalysis> analysis_;
    std::vector<int> rows_;       // shown rows, indexes into Session::ranks
    std::vector<uint8_t> filter_; // per Session::ranks entry: shown
    Order order_ = Order::Rank;
    bool split_ = true;
    int selected_ = -1;
    TimeNs spanStart_ = 0, spanEnd_ = 0;
    TimeAxis axis_{10}; // at least 10 ns shown
    int dragX_ = -1;
    double dragStartNs_ = 0;
    QImage
        lanes_; // the lanes' pixels, kept between frames: a new one a frame was mostly page faults
};

} // namespace ls::gui
