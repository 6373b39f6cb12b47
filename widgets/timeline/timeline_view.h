#pragma once
// The zoomable timeline: NVTX ranges and CUDA API calls per thread above kernels, memcpys and
// memsets per GPU stream. A custom widget: per lane, binary searches find the visible events and
// sub-pixel runs fold into one bar (core/views/timeline_tracks.h); paint never walks all events.
// A session of several ranks shows every trace's rows on the shown trace's clock, under one
// header per rank (collapsible, reorderable by dragging, filtered by "0-7, 12"); a selected
// collective kernel is linked to its peers on the other ranks with the skew between them.
// Ctrl+wheel zooms at the cursor, wheel scrolls rows, drag pans, Shift+drag measures a time
// range, W/S/A/D zoom and pan, F zooms to the selection, 0 fits all, Alt+Left/Right go back and
// forward through zoom history.
// The rows are a TimelineRowModel, the time a TimeAxis, the drawing a TimelinePainter; the view
// holds them and handles input.
#include "core/present/session_timeline.h"
#include "core/present/time_axis.h"
#include "widgets/timeline/timeline_painter.h"
#include "widgets/timeline/timeline_row_model.h"

#include <QAbstractScrollArea>
#include <memory>
#include <optional>
#include <vector>

namespace ls::gui {

class TimelineView : public QAbstractScrollArea {
    Q_OBJECT
  public:
    using ColorMode = TimelineColorMode;
    struct Hit {
        TimelineEventKind kind;
        uint32_t id;    // event id (kernel id, range id, …)
        uint32_t count; // > 1 for a folded bar
        double fromNs, toNs;
        double totalNs;    // summed durations (a folded bar: of all it holds)
        uint32_t slot = 0; // 0: the shown trace; else another trace of the session (view order)
    };

    explicit TimelineView(QWidget* parent = nullptr);
    void setData(std::shared_ptr<const TimelineData> timeline);
    // A session: every trace's rows under rank headers, on the clock of trace `shown` (view slot
    // 0), whose kernels the highlight, selection and linked lists name. Setting the same session
    // with another trace shown keeps the rank layout and the visible time.
    void setSession(std::shared_ptr<const SessionTimeline> session, uint32_t shown);
    const TimelineData* data() const { return rows_.data(); }
    const SessionTimeline* session() const { return rows_.session(); }
    const TimelineRowModel& rows() const { return rows_; }

    void setColorMode(ColorMode mode);
    ColorMode colorMode() const { return marks_.colorMode; }
    // Kernels to emphasize (a layer, the table's rows); reveal zooms and scrolls to them.
    void setHighlight(std::vector<KernelId> kernels, bool reveal);
    // The same over a session: byTrace[t] are kernels of session trace t, lit in that trace's rows
    // wherever they are (the all-ranks table's rows). highlighted() keeps the shown trace's.
    void setTraceHighlight(const std::vector<std::vector<KernelId>>& byTrace, bool reveal);
    size_t highlightedCount() const { return highlightCount_; } // over every trace
    const std::vector<KernelId>& highlighted() const { return highlight_; }
    void selectKernel(KernelId k, bool reveal);
    // The other direction's kernels of the selected kernel's op (forward <-> backward), drawn
    // linked to it.
    void setLinked(std::vector<KernelId> kernels);
    const std::vector<KernelId>& linked() const { return marks_.linked; }
    // The GPU projection of a clicked range: from its first kernel's start to its last's end.
    void setProjection(std::optional<std::pair<double, double>> span);
    KernelId selectedKernel() const { return marks_.selected; }
    // The session trace the selected kernel belongs to.
    uint32_t selectedTrace() const { return slotTrace(marks_.selectedSlot); }

    // The time shown: an axis over the traces' span (with a 1 % margin each side). The methods
    // below forward to it, repaint and say windowChanged.
    const TimeAxis& axis() const { return axis_; }
    TimeWindow window() const { return axis_.timeWindow(lanesWidth()); } // over the lanes' width
    void setWindow(double fromNs, double toNs, bool record = true);
    // The span the window may show (fitAll shows it); setData and setSession set the traces' span
    // with a 1 % margin each side. Clears the zoom history.
    void setBounds(double fromNs, double toNs);
    void fitAll();
    void zoomToSelection();
    void
    revealHighlight(); // zooms to the highlighted kernels of every trace and scrolls to the first
    void back();
    void forward();
    // atX: pixels from the lanes' left edge.
    void zoomBy(double factor, double atX);
    void panBy(double pixels);

    // Paints what the view shows into any device (the bench renders into a QImage).
    void paintContent(QPainter& p, const QSize& size) const;
    std::optional<Hit> hitAt(const QPoint& viewportPos) const;
    // Centre of the kernel's bar in viewport coordinates, if its lane is on screen (slot as in
    // Hit).
    std::optional<QPointF> kernelPoint(KernelId k, uint32_t slot = 0) const;
    int laneTop(uint32_t lane) const; // -1 when hidden
    // The Shift+drag measurement: its range, the kernels in it and their GPU time inside it.
    struct Measure {
        double fromNs, toNs;
        uint64_t kernels;
        double gpuNs;
    };
    std::optional<Measure> measure() const {
        if (!marks_.measure) return std::nullopt;
        return Measure{marks_.measure->first, marks_.measure->second, marks_.measuredKernels,
                       marks_.measuredGpuNs};
    }
    // Row layout controls (also on the row headers' context menu and by dragging headers).
    void setGroupCollapsed(uint32_t group, bool collapsed);
    void setGroupHidden(uint32_t group, bool hidden);
    void setNvtxLevels(uint32_t group, uint32_t levels);
    void moveGroup(uint32_t group, size_t position);
    const std::vector<uint32_t>& groupOrder() const { return rows_.groupOrder(); }

    // Rank sections of a session (indexes into session()->sections); none for a single rank.
    size_t rankSections() const { return rows_.sectionCount(); }
    // "0-7, 12, 40-": the ranks shown; empty shows all. False (and all shown) when unreadable.
    bool setRankFilter(const QString& text);
    void setRankCollapsed(uint32_t section, bool collapsed);
    void moveRank(uint32_t section, size_t position);
    const std::vector<uint32_t>& rankOrder() const { return rows_.sectionOrder(); }
    // Sections with a header on screen order (shown by the filter), top to bottom.
    std::vector<uint32_t> shownRankSections() const { return rows_.shownRankSections(); }
    // The session trace shown at view slot `slot`.
    uint32_t slotTrace(uint32_t slot) const { return rows_.slotTrace(slot); }
    // The collective of the selected kernel when it is one matched across ranks, else nullptr.
    const MatchedCollective* selectedCollective() const {
        return rows_.collectiveOf(marks_.selectedSlot, marks_.selected);
    }
    // Selects a kernel of view slot `slot` (0: the shown trace, as selectKernel).
    void selectSlotKernel(uint32_t slot, KernelId k, bool reveal);
    // The kernel table lists every rank: the shown rank's header says it is the panes' rank.
    void setEveryRankInTable(bool on) {
        marks_.everyRankInTable = on;
        viewport()->update();
    }
    // Selects a kernel of session trace `trace` wherever its rows are in this view.
    void selectTraceKernel(uint32_t trace, KernelId k, bool reveal);

  signals:
    void kernelClicked(ls::KernelId k);
    // A kernel of another trace of the session: the rank it belongs to.
    void otherRankKernelClicked(int rank, ls::KernelId k);
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
    using Row = TimelineRowModel::Row;
    using RowKind = TimelineRowModel::RowKind;
    TimelinePainter painter() const;
    void clearMarks();
    void rowsChanged(); // after the row model changed: scroll range, repaint
    void windowMoved(); // after the axis changed: repaint, windowChanged
    void boundToSpan();
    void showGroupMenu(uint32_t group, const QPoint& globalPos);
    void showRankMenu(uint32_t section, const QPoint& globalPos);
    std::optional<Row> headerAt(int viewportY) const;
    void updateScrollBar();
    int lanesWidth() const;
    QString tooltipFor(const Hit& h) const;
    void setMeasure(double fromNs, double toNs);

    TimelineRowModel rows_;
    TimeAxis axis_;
    TimelineMarks marks_;
    mutable TimelineMinimap minimap_;
    std::vector<KernelId> highlight_; // the shown trace's, by start
    size_t highlightCount_ = 0;
    std::optional<Row> draggedHeader_;
    // Mouse state.
    QPoint pressPos_;
    bool panning_ = false, measuring_ = false, moved_ = false;
    double pressStartNs_ = 0;
};

} // namespace ls::gui
