#pragma once
// The Ranks tab: for the traces opened together, the rank_sum table (compute, communication,
// overlap, exposed communication and idle per rank), the same as stacked bars (Qt Charts), a
// rank × iteration heat map of step time, and the collectives matched across ranks with their
// skew and last-arriving rank. A one-line verdict on top says what stands out.
#include "core/present/trace_views.h"

#include <QWidget>
#include <memory>

class QLabel;
class QStandardItemModel;
class QTableView;
class QVBoxLayout;

namespace ls::gui {

class CollectiveTableModel;
class RankHeatMap;
class RankTimeline;

class RanksPanel : public QWidget {
    Q_OBJECT
  public:
    explicit RanksPanel(QWidget* parent = nullptr);
    void setAnalysis(std::shared_ptr<const RankAnalysis> analysis);

    QTableView* rankTable() const { return rankTable_; }
    QTableView* collectiveTable() const { return collectiveTable_; }
    RankHeatMap* heatMap() const { return heatMap_; }
    RankTimeline* timeline() const { return timeline_; }
    QString verdict() const;

  signals:
    // The user asked to see rank `rank` (a double click in a table, a click in the heat map).
    void rankRequested(int rank);

  private:
    void fillRankTable();
    void fillCollectives();
    void rebuildChart();
    void dropChart();
    void showEvent(QShowEvent* event) override;

    std::shared_ptr<const RankAnalysis> analysis_;
    QLabel* verdict_;
    QStandardItemModel* rankModel_;
    CollectiveTableModel* collectiveModel_;
    QTableView* rankTable_;
    QTableView* collectiveTable_;
    RankHeatMap* heatMap_;
    RankTimeline* timeline_;
    QVBoxLayout* chartBox_;
    QWidget* chart_ = nullptr;
    bool chartStale_ = false; // set while hidden: built on the next show
};

} // namespace ls::gui
