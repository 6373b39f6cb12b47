#pragma once
// Painting the timeline, apart from its input: the rows of a TimelineRowModel over the window of a
// TimeAxis, with what the user marked (highlights, selection, links, projection, measure). A
// painter is made per frame from const references; a frame walks the visible rows only, folding
// each lane per pixel (core/views/timeline_tracks.h) and filling rectangles in batches by colour.
// The minimap's busy columns are the one cache, kept per width by the view.
#include "core/present/time_axis.h"
#include "widgets/timeline/timeline_row_model.h"

#include <QColor>
#include <QPointF>
#include <QString>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

class QPainter;
class QRect;
class QSize;

namespace ls::gui {

namespace timeline {

inline QString qstr(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

} // namespace timeline

enum class TimelineColorMode { KernelClass, Layer, Direction };

// What the user marked, held by the view and drawn over the lanes.
struct TimelineMarks {
    TimelineColorMode colorMode = TimelineColorMode::KernelClass;
    std::vector<std::vector<KernelId>> highlightByLane; // per flat lane, by start
    std::vector<KernelId> linked;                       // the shown trace's (slot 0)
    std::optional<std::pair<double, double>> projection;
    KernelId selected;
    uint32_t selectedSlot = 0;
    std::optional<std::pair<double, double>> measure;
    uint64_t measuredKernels = 0; // in measure, summed once when it changes, not per paint
    double measuredGpuNs = 0;
    bool everyRankInTable = false; // the shown rank's header names the panes, not the table
};

// GPU busy time per minimap pixel over the whole span, built once per width.
struct TimelineMinimap {
    std::vector<float> busy;
    int width = -1;
    float peak = 1.f;
    void invalidate() { width = -1; }
};

class TimelinePainter {
  public:
    // scrollY: how far the rows are scrolled, in pixels.
    TimelinePainter(const TimelineRowModel& rows, const TimeAxis& axis, const TimelineMarks& marks,
                    int scrollY);

    // Everything, into a device of `size` (the view's viewport, the bench's QImage).
    void paint(QPainter& p, const QSize& size, TimelineMinimap& minimap) const;

    // The top of a flat lane's row in device coordinates; -1 when hidden.
    int laneTop(uint32_t lane) const;
    // The centre of a slot's kernel bar with lanes lanesWidth wide, if its lane is shown.
    std::optional<QPointF> kernelPoint(KernelId k, uint32_t slot, int lanesWidth) const;
    QColor colorOf(uint32_t slot, TimelineEventKind kind, uint32_t id) const;

  private:
    using Row = TimelineRowModel::Row;
    void paintRuler(QPainter& p, const QRect& r, const TimeWindow& w) const;
    void paintMinimap(QPainter& p, const QRect& r, const TimeWindow& w,
                      TimelineMinimap& minimap) const;
    void paintLanes(QPainter& p, const QSize& size, const TimeWindow& w) const;
    void paintOverlays(QPainter& p, const QSize& size, const TimeWindow& w) const;
    void paintHighlights(QPainter& p, const TimeWindow& w) const;
    void paintSelected(QPainter& p, const TimeWindow& w) const;
    static void drawArrow(QPainter& p, const QPointF& from, const QPointF& to, const QColor& color,
                          double width);
    // A graph launch's arrows to its other GPU items, at most this many (a few thousand nodes).
    static constexpr int kMaxFanArrows = 4096;
    void paintMeasure(QPainter& p, const QSize& size, const TimeWindow& w) const;
    void paintLinks(QPainter& p, const TimeWindow& w) const;
    void paintCollective(QPainter& p, const QSize& size, const TimeWindow& w) const;
    void paintRankHeader(QPainter& p, const Row& row, int y, const QSize& size,
                         const TimeWindow& w) const;
    // A GPU memory lane: allocated (filled) and reserved (a line) as steps, scaled to the lane's
    // highest total, which is written at its top (timeline_memory_paint.cpp).
    void paintMemoryLane(QPainter& p, const Row& row, int y, const QSize& size,
                         const TimeWindow& own) const;

    const TimelineRowModel& rows_;
    const TimeAxis& axis_;
    const TimelineMarks& marks_;
    int scroll_;
};

} // namespace ls::gui
