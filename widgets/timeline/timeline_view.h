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
#include "core/present/session_timeline.h"

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
        uint32_t id;    // event id (kernel id, range id, …)
        uint32_t count; // > 1 for a folded bar
        double fromNs, toNs;
        double totalNs;    // summed durations (a folded bar: of all it holds)
        uint32_t part = 0; // 0: the shown trace; else another trace of the session (view order)
    };

    explicit TimelineView(QWidget* parent = nullptr);
    void setData(std::shared_ptr<const TimelineData> timeline);
    // A session: every part's rows under rank headers, on the clock of part `shown`, whose
    // kernels the highlight, selection and linked lists name. Setting the same session with
    // another part shown keeps the rank layout and the visible time.
    void setSession(std::shared_ptr<const SessionTimeline> session, uint32_t shown);
    const TimelineData* data() const { return data_.get(); }
    const SessionTimeline* session() const { return session_.get(); }

    void setColorMode(ColorMode mode);
    ColorMode colorMode() const { return colorMode_; }
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
    const std::vector<KernelId>& linked() const { return linked_; }
    // The GPU projection of a clicked range: from its first kernel's start to its last's end.
    void setProjection(std::optional<std::pair<double, double>> span);
    KernelId selectedKernel() const { return selected_; }
    uint32_t selectedTrace() const {
        return sessionPart(selectedPart_);
    } // the session trace it belongs to

    TimeWindow window() const { return window_; }
    void setWindow(double fromNs, double toNs, bool record = true);
    void fitAll();
    void zoomToSelection();
    void
    revealHighlight(); // zooms to the highlighted kernels of every trace and scrolls to the first
    void back();
    void forward();
    void zoomBy(double factor, double atX);
    void panBy(double pixels);

    // Paints what the view shows into any device (the bench renders into a QImage).
    void paintContent(QPainter& p, const QSize& size) const;
    std::optional<Hit> hitAt(const QPoint& viewportPos) const;
    // Centre of the kernel's bar in viewport coordinates, if its lane is on screen (part as in
    // Hit).
    std::optional<QPointF> kernelPoint(KernelId k, uint32_t part = 0) const;
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

    // Rank sections of a session (indexes into session()->sections); none for a single rank.
    size_t rankSections() const { return sectioned() ? session_->sections.size() : 0; }
    // "0-7, 12, 40-": the ranks shown; empty shows all. False (and all shown) when unreadable.
    bool setRankFilter(const QString& text);
    void setRankCollapsed(uint32_t section, bool collapsed);
    void moveRank(uint32_t section, size_t position);
    const std::vector<uint32_t>& rankOrder() const { return sectionOrder_; }
    // Sections with a header on screen order (shown by the filter), top to bottom.
    std::vector<uint32_t> shownRankSections() const;
    // The session part shown at view part `part`, and the view part of a session part.
    uint32_t sessionPart(uint32_t part) const {
        return part < partIndex_.size() ? partIndex_[part] : 0;
    }
    // The collective of the selected kernel when it is one matched across ranks, else nullptr.
    const MatchedCollective* selectedCollective() const;
    // Selects a kernel of view part `part` (0: the shown trace, as selectKernel).
    void selectPartKernel(uint32_t part, KernelId k, bool reveal);
    // The kernel table lists every rank: the shown rank's header says it is the panes' rank.
    void setEveryRankInTable(bool on) {
        everyRankInTable_ = on;
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
    enum class RowKind : uint8_t { Rank, Group, Lane };
    struct Row {
        RowKind kind;
        uint32_t index; // section, group or lane (flat: every part's, the shown part's first)
        int y, height;
        bool header() const { return kind != RowKind::Lane; }
    };
    // The parts' groups and lanes in one numbering: view part 0 is the shown trace, so its
    // group and lane numbers are the flat ones.
    void flattenParts(const std::vector<std::shared_ptr<const TimelineData>>& parts,
                      const std::vector<double>& shift);
    const TimelineLane& laneAt(uint32_t lane) const;
    const TimelineGroup& groupAt(uint32_t group) const;
    uint32_t flatKernelLane(uint32_t part, KernelId k) const;
    bool sectioned() const { return session_ && session_->sections.size() > 1; }
    void resetRowState();
    void layoutRows();
    void showGroupMenu(uint32_t group, const QPoint& globalPos);
    void showRankMenu(uint32_t section, const QPoint& globalPos);
    std::optional<Row> headerAt(int viewportY) const;
    void dropHeader(const Row& dragged, int viewportY);
    void updateScrollBar();
    int lanesWidth() const;
    TimeWindow laneWindow(int widthPx) const;
    QColor colorOf(uint32_t part, TimelineEventKind kind, uint32_t id) const;
    QString tooltipFor(const Hit& h) const;
    void recordHistory();
    void setMeasure(double fromNs, double toNs);
    void paintRuler(QPainter& p, const QRect& r, const TimeWindow& w) const;
    void paintMinimap(QPainter& p, const QRect& r, const TimeWindow& w) const;
    void paintLanes(QPainter& p, const QSize& size, const TimeWindow& w) const;
    void paintOverlays(QPainter& p, const QSize& size, const TimeWindow& w) const;
    void paintLinks(QPainter& p, const TimeWindow& w) const;
    void paintCollective(QPainter& p, const QSize& size, const TimeWindow& w) const;
    void paintRankHeader(QPainter& p, const Row& row, int y, const QSize& size,
                         const TimeWindow& w) const;

    std::shared_ptr<const TimelineData> data_; // the shown trace: view part 0
    std::shared_ptr<const SessionTimeline> session_;
    std::vector<std::shared_ptr<const TimelineData>> parts_; // by view part
    std::vector<uint32_t> partIndex_;                        // view part -> session part
    std::vector<double> shift_; // per view part: add to its times for the view's clock
    std::vector<uint32_t> laneBase_, groupBase_; // per view part: its first flat lane / group
    std::vector<uint32_t> lanePart_, groupPart_; // per flat lane / group: its view part
    std::vector<int> groupSection_;              // per flat group: its rank section, -1 none
    double spanStart_ = 0, spanEnd_ = 0;         // all parts, the view's clock
    std::vector<uint32_t> sectionOrder_;
    std::vector<uint8_t> sectionCollapsed_, sectionShown_;
    std::vector<std::vector<uint32_t>>
        sectionKernelLanes_; // per section: its GPU kernel lanes (a collapsed rank's strip)
    std::optional<Row> draggedHeader_;
    mutable std::vector<float> minimap_; // busy per minimap pixel, for minimapWidth_
    mutable int minimapWidth_ = -1;
    mutable float minimapPeak_ = 1.f;
    ColorMode colorMode_ = ColorMode::KernelClass;
    TimeWindow window_;
    std::vector<Row> rows_;
    std::vector<int> laneRow_;         // per lane: index into rows_, -1 hidden
    std::vector<uint8_t> collapsed_;   // per group
    std::vector<uint8_t> hidden_;      // per group
    std::vector<uint32_t> nvtxLevels_; // per group: NVTX lanes shown
    std::vector<uint32_t> groupOrder_; // display order of groups (drag a header to change it)
    std::vector<std::pair<uint32_t, uint32_t>> groupLanes_; // per group: [first, last) lane
    std::vector<KernelId> highlight_;                       // by start
    std::vector<KernelId> linked_;
    std::optional<std::pair<double, double>> projection_;
    std::vector<std::vector<KernelId>>
        highlightByLane_; // per flat lane, by start: of that lane's part
    size_t highlightCount_ = 0;
    KernelId selected_;
    uint32_t selectedPart_ = 0;
    bool everyRankInTable_ = false;
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
