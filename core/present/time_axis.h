#pragma once
// One time axis per timeline: the span it may show (its bounds), the window it shows, zooming about
// an anchor, panning, fitting, and a history of windows to go back and forward through (after Qt
// Creator's timelinezoomcontrol.h and hotspot's filterandzoomstack.h). Every timeline (the main
// one, the ranks', the comparison's two) keeps one; what differs between them is only their input
// and their painting. Times are ns as double, on the owner's clock. Plain data: a test drives it
// without Qt.
//
// The time <-> pixel mapping of a plot showing a window is a set of small pure functions below.
#include "core/views/timeline_tracks.h"

#include <cstddef>
#include <vector>

namespace ls {

// [from, to) in ns.
struct TimeSpan {
    double from = 0, to = 0;
    double width() const { return to - from; }
    bool operator==(const TimeSpan&) const = default;
};

// The mapping of a plot widthPx wide (at least 1) showing `window`: x 0 is window.from, x widthPx
// is window.to.
double nsPerPixel(const TimeSpan& window, int widthPx);
double timeToX(const TimeSpan& window, int widthPx, double ns);
double xToTime(const TimeSpan& window, int widthPx, double x);
// The same window as the lanes' folding takes it (core/views/timeline_tracks.h).
TimeWindow timeWindowOf(const TimeSpan& window, int widthPx);

class TimeAxis {
  public:
    static constexpr size_t kHistoryCap = 100; // the oldest entries go first

    // minWidthNs: the narrowest window (the deepest zoom); at least 1e-3 ns.
    explicit TimeAxis(double minWidthNs = 1);

    // The span the window may show; it is clamped into it. Clears the history. Bounds narrower than
    // the minimum width grow to it about their centre; non-finite ones are ignored.
    void setBounds(double fromNs, double toNs);
    TimeSpan bounds() const { return bounds_; }
    double minWidth() const { return minWidth_; }

    TimeSpan window() const { return window_; }
    double from() const { return window_.from; }
    double to() const { return window_.to; }
    double width() const { return window_.width(); }

    // Each returns whether the window moved. `record` adds the new window to the history. A window
    // narrower than the minimum widens about its centre; one wider than the bounds becomes the
    // bounds; one reaching past an edge slides back inside, keeping its width.
    bool setWindow(double fromNs, double toNs, bool record = true);
    // factor < 1 zooms in, > 1 out, keeping the time at `fraction` of the width (0 the left edge, 1
    // the right) where it is, unless the bounds push the window aside.
    bool zoomBy(double factor, double fraction);
    // The same about a time: its fraction of the window is kept (that of a time outside it too).
    bool zoomAt(double factor, double anchorNs);
    bool panBy(double fraction); // of the window's width; > 0 moves later
    bool panByNs(double ns);
    bool fitAll(bool record = true); // the whole bounds

    // History: zoom and pan gestures do not record (a wheel turn, a drag); the owner records the
    // window once a gesture ends. Recording the entry already current does nothing; recording after
    // going back drops the entries ahead.
    void record();
    bool back();    // to the previous entry; false at the first
    bool forward(); // to the next entry; false at the last
    bool canGoBack() const { return pos_ > 0; }
    bool canGoForward() const { return pos_ + 1 < history_.size(); }
    const std::vector<TimeSpan>& history() const { return history_; }
    size_t historyPosition() const { return pos_; }
    void clearHistory();

    // Mapping for a plot widthPx wide showing the window.
    double toX(double ns, int widthPx) const { return timeToX(window_, widthPx, ns); }
    double toTime(double x, int widthPx) const { return xToTime(window_, widthPx, x); }
    TimeWindow timeWindow(int widthPx) const { return timeWindowOf(window_, widthPx); }

  private:
    TimeSpan clamp(TimeSpan w) const;
    bool apply(TimeSpan w, bool record);

    double minWidth_;
    bool bounded_ = false;
    TimeSpan bounds_;
    TimeSpan window_{0, 1};
    std::vector<TimeSpan> history_;
    size_t pos_ = 0;
};

} // namespace ls
