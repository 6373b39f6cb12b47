#pragma once
// The Roofline tab's chart: a log-log scatter of achieved TFLOP/s over arithmetic intensity, one
// marker per roofline point (sized by GPU time, coloured by Tensor Core state), under the memory
// roof and the compute roofs of the trace's GPU. Hovering names a point; clicking selects it.
#include "core/present/roofline_data.h"

#include <QChartView>

class QLineSeries;
class QScatterSeries;

namespace ls::gui {

class RooflineChart : public QChartView {
    Q_OBJECT
  public:
    explicit RooflineChart(QWidget* parent = nullptr);
    // Draws rows; peaks null: no roofs.
    void setRows(const std::vector<RooflineRow>* rows, const DevicePeaks* peaks,
                 const QString& gpu);

    // Where row i is drawn: its series and index there (tests, selection).
    struct Marker {
        QScatterSeries* series = nullptr;
        int index = -1;
    };
    const std::vector<Marker>& markers() const { return markers_; }
    QLineSeries* roof(const QString& objectName) const; // "memoryRoof", "computeRoof", "fp32Roof"
    QString pointText(size_t row) const;                // the hover text
    void select(int row);                               // -1: none

  signals:
    void pointClicked(int row);

  private:
    int rowAt(QScatterSeries* s, const QPointF& p) const;

    const std::vector<RooflineRow>* rows_ = nullptr;
    std::vector<Marker> markers_;
    std::vector<std::vector<int>> seriesRows_; // per scatter series (in seriesOrder_), its rows
    std::vector<QScatterSeries*> seriesOrder_;
};

} // namespace ls::gui
