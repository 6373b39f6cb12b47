#pragma once
// Rank × iteration heat map of step time: one row per rank, one column per iteration, each cell
// coloured by how much longer than that iteration's fastest rank it took. Hover names the cell;
// a click asks to show that rank.
#include "core/reports/collectives.h"

#include <QWidget>
#include <vector>

namespace ls::gui {

class RankHeatMap : public QWidget {
    Q_OBJECT
  public:
    explicit RankHeatMap(QWidget* parent = nullptr);
    void setIterations(const std::vector<RankIterationRow>& rows);
    QSize sizeHint() const override { return {480, 220}; }

    struct Cell {
        int row = -1, column = -1;
    };
    // The cell under a point of the widget (row: rank index, column: iteration index), or -1s.
    Cell cellAt(QPoint p) const;
    int rankOfRow(int row) const {
        return row >= 0 && row < static_cast<int>(ranks_.size()) ? ranks_[static_cast<size_t>(row)]
                                                                 : -1;
    }

  signals:
    void rankClicked(int rank);

  protected:
    void paintEvent(QPaintEvent* e) override;
    bool event(QEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;

  private:
    QRect gridRect() const;
    std::vector<int> ranks_, iterations_;
    std::vector<double> ms_;      // ranks × iterations, NaN where a rank lacks the iteration
    std::vector<double> fastest_; // per iteration
    std::vector<double> slowest_; // per iteration
};

} // namespace ls::gui
