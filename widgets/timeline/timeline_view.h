#pragma once
// The zoomable timeline: NVTX ranges and CUDA API calls per thread above kernels, memcpys and
// memsets per GPU stream. A custom widget: per lane, binary searches find the visible events and
// sub-pixel runs fold into one bar (core/views/timeline_tracks.h); paint never walks all events.
// Ctrl+wheel zooms at the cursor, wheel scrolls rows, drag pans, Shift+drag measures a time
// range, W/S/A/D zoom and pan, F zooms to the selection, 0 fits all, Alt+Left/Right go back and
// forward through zoom history.
#include "widgets/timeline/timeline_data.h"

#include <QAbstractScrollArea>

#include <memory>
#include <optional>
#include <vector>

namespace ls::gui {

class TimelineView : public QAbstractScrollArea {
    Q_OBJECT
public:
    enum class ColorMode { KernelClass, Layer, Direction };
    struct Hit {
        TimelineEventKind kind;
        uint32_t id;       // event id (kernel id, range id, …)
        uint32_t count;    // > 1 for a folded bar
        double fromNs, toNs;
        double totalNs; // summed durations (a folded bar: of all it holds)
    };

    explicit TimelineView(QWidget* parent = nullptr);
    void setData(std::shared_ptr<const TimelineData> timeline);
    const TimelineData* data() const { return data_.get(); }

    void setColorMode(ColorMode mode);
    ColorMode colorMode() const { return colorMode_; }
    // Kernels to emphasize (a layer, the table's rows); reveal zooms and scrolls to them.
    void setHighlight(std::vector<KernelId> kernels, bool reveal);
    const std::vector<KernelId>& highlighted() const { return highlight_; }
    void selectKernel(KernelId k, bool reveal);
    // The other direction's kernels of the selected kernel's op (forward <-> backward), drawn
    // linked to it.
    void setLinked(std::vector<KernelId> kernels);
    const std::vector<KernelId>& linked() const { return linked_; }
    // The GPU projection of a clicked range: from its first kernel's start to its last's end.
    void setProjection(std::optional<std::pair<double, double>> span);
    KernelId selectedKernel() const { return selected_; }

    TimeWindow window() const { return window_; }
    void setWindow(double fromNs, double toNs, bool record = true);
    void fitAll();
    void zoomToSelection();
    void back();
    void forward();
    void zoomBy(double factor, double atX);
    void panBy(double pixels);

    // Paints what the view shows into any device (the bench renders into a QImage).
    void paintContent(QPainter& p, const QSize& size) const;
    std::optional<Hit> hitAt(const QPoint& viewportPos) const;
    // Centre of the kernel's bar in viewport coordinates, if its lane is on screen.
    std::optional<QPointF> kernelPoint(KernelId k) const;
    int laneTop(uint32_t lane) const; // -1 when hidden
    // The Shift+drag measurement: its range, the kernels in it and their GPU time inside it.
    struct Measure {
        double fromNs, toNs;
        uint64_t kernels;
        double gpuNs;
    };
    std::optional<Measure> measure() const {
        if (!measure_) return std::nullopt;
        return Measure{measure_->first, measure_->second, measuredKernels_, measuredGpuNs_};
    }
    // Row layout controls (also on the row headers' context menu and by dragging headers).
    void setGroupCollapsed(uint32_t group, bool collapsed);
    void setGroupHidden(uint32_t group, bool hidden);
    void setNvtxLevels(uint32_t group, uint32_t levels);
    void moveGroup(uint32_t group, size_t position);
    const std::vector<uint32_t>& groupOrder() const { return groupOrder_; }

signals:
    void kernelClicked(ls::KernelId k);
    void rangeClicked(ls::RangeId r);
    void windowChanged();

protected:
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void contextMenuEvent(QContextMenuEvent* e) override;
    bool viewportEvent(QEvent* e) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    struct Row {
        bool header;
        uint32_t index; // group or lane
        int y, height;
    };
    void layoutRows();
    void showGroupMenu(uint32_t group, const QPoint& globalPos);
    std::optional<uint32_t> groupHeaderAt(int viewportY) const;
    void updateScrollBar();
    int lanesWidth() const;
    TimeWindow laneWindow(int widthPx) const;
    QColor colorOf(TimelineEventKind kind, uint32_t id) const;
    QString tooltipFor(const Hit& h) const;
    void recordHistory();
    void setMeasure(double fromNs, double toNs);
    void paintRuler(QPainter& p, const QRect& r, const TimeWindow& w) const;
    void paintMinimap(QPainter& p, const QRect& r, const TimeWindow& w) const;
    void paintLanes(QPainter& p, const QSize& size, const TimeWindow& w) const;
    void paintOverlays(QPainter& p, const QSize& size, const TimeWindow& w) const;
    void paintLinks(QPainter& p, const TimeWindow& w) const;

    std::shared_ptr<const TimelineData> data_;
    ColorMode colorMode_ = ColorMode::KernelClass;
    TimeWindow window_;
    std::vector<Row> rows_;
    std::vector<int> laneRow_; // per lane: index into rows_, -1 hidden
    std::vector<uint8_t> collapsed_; // per group
    std::vector<uint8_t> hidden_;    // per group
    std::vector<uint32_t> nvtxLevels_; // per group: NVTX lanes shown
    std::vector<uint32_t> groupOrder_; // display order of groups (drag a header to change it)
    std::vector<std::pair<uint32_t, uint32_t>> groupLanes_; // per group: [first, last) lane
    std::optional<uint32_t> draggedGroup_;
    std::vector<KernelId> highlight_; // by start
    std::vector<KernelId> linked_;
    std::optional<std::pair<double, double>> projection_;
    std::vector<std::vector<KernelId>> highlightByLane_;
    KernelId selected_;
    std::vector<std::pair<double, double>> history_;
    size_t historyPos_ = 0;
    // Mouse state.
    QPoint pressPos_;
    bool panning_ = false, measuring_ = false, moved_ = false;
    double pressStartNs_ = 0;
    std::optional<std::pair<double, double>> measure_;
    uint64_t measuredKernels_ = 0; // in measure_, summed once when it changes, not per paint
    double measuredGpuNs_ = 0;
};

} // namespace ls::gui
