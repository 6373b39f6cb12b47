// The time axis every timeline keeps (core/present/time_axis.h), table-driven: clamping to the
// bounds and the minimum width, zoom anchors, panning, the history's back and forward, and the time
// <-> pixel mapping, each expected value worked out by hand.
#include "core/present/time_axis.h"

#include <gtest/gtest.h>
#include <ostream>
#include <vector>

namespace ls {

void PrintTo(const TimeSpan& s, std::ostream* os) { *os << "[" << s.from << ", " << s.to << ")"; }

namespace {

// Bounds [0, 1000), a minimum width of 10 ns.
TimeAxis axis0To1000() {
    TimeAxis axis(10);
    axis.setBounds(0, 1000);
    return axis;
}

TEST(TimeAxis, SetWindowClampsToTheBoundsAndTheMinimumWidth) {
    struct Case {
        double from, to;
        TimeSpan expected;
        const char* why;
    };
    const std::vector<Case> cases = {
        {100, 300, {100, 300}, "inside: unchanged"},
        {-50, 150, {0, 200}, "past the left edge: slides right, keeping 200 ns"},
        {900, 1100, {800, 1000}, "past the right edge: slides left, keeping 200 ns"},
        {-500, 2000, {0, 1000}, "wider than the bounds: the bounds"},
        {0, 1000, {0, 1000}, "exactly the bounds"},
        {500, 504, {497, 507}, "narrower than 10 ns: widened about its centre 502"},
        {500, 500, {495, 505}, "empty: the minimum about its point"},
        {600, 400, {495, 505}, "inverted: the minimum about its centre 500"},
        {-3, 1, {0, 10}, "narrow at the left edge: widened, then slid inside"},
    };
    for (const Case& c : cases) {
        TimeAxis axis = axis0To1000();
        axis.setWindow(c.from, c.to);
        EXPECT_DOUBLE_EQ(axis.from(), c.expected.from) << c.why;
        EXPECT_DOUBLE_EQ(axis.to(), c.expected.to) << c.why;
    }
}

TEST(TimeAxis, BoundsNarrowerThanTheMinimumGrowAndClampTheWindow) {
    TimeAxis axis(10);
    axis.setWindow(0, 500); // no bounds yet: nothing to clamp to
    EXPECT_EQ(axis.window(), (TimeSpan{0, 500}));
    axis.setBounds(100, 104); // 4 ns: grows to 10 about 102
    EXPECT_EQ(axis.bounds(), (TimeSpan{97, 107}));
    EXPECT_EQ(axis.window(), (TimeSpan{97, 107})) << "the window is clamped at once";
    axis.setBounds(0, 1000);
    axis.setWindow(200, 400);
    axis.setBounds(0, 300); // 200 ns still fits: slid left
    EXPECT_EQ(axis.window(), (TimeSpan{100, 300}));
}

TEST(TimeAxis, ZoomKeepsTheAnchorInPlace) {
    struct Case {
        TimeSpan start;
        double factor, fraction;
        TimeSpan expected;
        const char* why;
    };
    const std::vector<Case> cases = {
        // [200, 600): the anchor at 1/4 is 300; width 400 * 0.5 = 200 -> [300 - 50, 300 + 150).
        {{200, 600}, 0.5, 0.25, {250, 450}, "zoom in at a quarter"},
        // The centre 400 stays: width 800 -> [0, 800).
        {{200, 600}, 2, 0.5, {0, 800}, "zoom out about the centre"},
        // At the left edge 200: width 100 -> [200, 300).
        {{200, 600}, 0.25, 0, {200, 300}, "zoom in at the left edge"},
        // At the right edge 600: width 800 -> [-200, 600), slid inside the bounds to [0, 800).
        {{200, 600}, 2, 1, {0, 800}, "zoom out past the left bound"},
        // Width 400 * 4 = 1600 is wider than the bounds: the bounds.
        {{200, 600}, 4, 0.5, {0, 1000}, "zoom out past both bounds"},
        // Width 20 * 0.1 = 2 < 10: the minimum, still about the anchor 510 at the centre.
        {{500, 520}, 0.1, 0.5, {505, 515}, "zoom in below the minimum width"},
    };
    for (const Case& c : cases) {
        TimeAxis axis = axis0To1000();
        axis.setWindow(c.start.from, c.start.to);
        axis.zoomBy(c.factor, c.fraction);
        EXPECT_DOUBLE_EQ(axis.from(), c.expected.from) << c.why;
        EXPECT_DOUBLE_EQ(axis.to(), c.expected.to) << c.why;
    }
}

TEST(TimeAxis, ZoomAtATimeKeepsThatTimeInPlace) {
    TimeAxis axis = axis0To1000();
    axis.setWindow(200, 600);
    axis.zoomAt(0.5, 500); // 500 is at 3/4 of [200, 600): width 200 -> [350, 550)
    EXPECT_EQ(axis.window(), (TimeSpan{350, 550}));
    EXPECT_FALSE(axis.zoomBy(0, 0.5)) << "a factor of 0 is refused";
    EXPECT_FALSE(axis.zoomBy(-1, 0.5));
    EXPECT_EQ(axis.window(), (TimeSpan{350, 550}));
}

TEST(TimeAxis, PanMovesByAFractionOrByNanosecondsAndStopsAtTheBounds) {
    struct Case {
        double fraction, ns;
        TimeSpan expected;
        const char* why;
    };
    const std::vector<Case> cases = {
        {0.25, 0, {250, 450}, "a quarter of 200 ns later"},
        {-0.5, 0, {100, 300}, "half earlier"},
        {0, 30, {230, 430}, "30 ns later"},
        {0, -500, {0, 200}, "past the left bound: stops there"},
        {10, 0, {800, 1000}, "past the right bound: stops there"},
    };
    for (const Case& c : cases) {
        TimeAxis axis = axis0To1000();
        axis.setWindow(200, 400);
        if (c.fraction != 0)
            axis.panBy(c.fraction);
        else
            axis.panByNs(c.ns);
        EXPECT_EQ(axis.window(), c.expected) << c.why;
    }
}

TEST(TimeAxis, FitAllShowsTheBounds) {
    TimeAxis axis = axis0To1000();
    axis.setWindow(100, 200);
    EXPECT_TRUE(axis.fitAll());
    EXPECT_EQ(axis.window(), (TimeSpan{0, 1000}));
    EXPECT_FALSE(axis.fitAll()) << "already fitted";
    TimeAxis unbounded;
    EXPECT_FALSE(unbounded.fitAll()) << "no bounds, nothing to fit";
}

TEST(TimeAxis, HistoryGoesBackAndForwardAndDropsTheEntriesAhead) {
    TimeAxis axis = axis0To1000();
    const TimeSpan a{0, 1000}, b{100, 500}, c{200, 300}, d{600, 700};
    axis.setWindow(a.from, a.to);
    axis.setWindow(b.from, b.to);
    axis.setWindow(c.from, c.to);
    EXPECT_EQ(axis.history(), (std::vector<TimeSpan>{a, b, c}));
    EXPECT_EQ(axis.historyPosition(), 2U);
    EXPECT_FALSE(axis.forward()) << "at the newest";
    EXPECT_TRUE(axis.back());
    EXPECT_EQ(axis.window(), b);
    EXPECT_TRUE(axis.back());
    EXPECT_EQ(axis.window(), a);
    EXPECT_FALSE(axis.back()) << "at the oldest";
    EXPECT_TRUE(axis.forward());
    EXPECT_EQ(axis.window(), b);
    // A new window after going back drops c.
    axis.setWindow(d.from, d.to);
    EXPECT_EQ(axis.history(), (std::vector<TimeSpan>{a, b, d}));
    EXPECT_FALSE(axis.canGoForward());
    EXPECT_TRUE(axis.canGoBack());
}

TEST(TimeAxis, GesturesRecordOnlyWhenAskedAndNeverTwiceInARow) {
    TimeAxis axis = axis0To1000();
    axis.setWindow(0, 1000);
    axis.zoomBy(0.5, 0.5); // [250, 750), not recorded
    axis.panBy(0.1);       // [300, 800), not recorded
    EXPECT_EQ(axis.history().size(), 1U);
    axis.record();
    axis.record(); // the same window again: one entry
    axis.setWindow(300, 800);
    EXPECT_EQ(axis.history(), (std::vector<TimeSpan>{{0, 1000}, {300, 800}}));
    axis.setWindow(400, 500,
                   false); // not recorded; back goes to the entry before the current
    EXPECT_TRUE(axis.back());
    EXPECT_EQ(axis.window(), (TimeSpan{0, 1000}));
}

TEST(TimeAxis, HistoryKeepsTheNewestEntriesAndNewBoundsClearIt) {
    TimeAxis axis = axis0To1000();
    for (int i = 0; i < 150; ++i) axis.setWindow(i, i + 100);
    ASSERT_EQ(axis.history().size(), TimeAxis::kHistoryCap);
    EXPECT_EQ(axis.history().front(), (TimeSpan{50, 150})) << "the oldest 50 dropped";
    EXPECT_EQ(axis.history().back(), (TimeSpan{149, 249}));
    EXPECT_EQ(axis.historyPosition(), TimeAxis::kHistoryCap - 1);
    axis.setBounds(0, 2000);
    EXPECT_TRUE(axis.history().empty());
    EXPECT_FALSE(axis.back());
}

TEST(TimeAxis, TimeAndPixelMapEachOtherBack) {
    struct Case {
        TimeSpan window;
        int widthPx;
        double ns, x, nsPerPx;
    };
    const std::vector<Case> cases = {
        {{0, 1000}, 100, 250, 25, 10},            // 10 ns a pixel
        {{1000, 1500}, 1000, 1250, 500, 0.5},     // two pixels a ns
        {{-200, 200}, 400, -200, 0, 1},           // the left edge
        {{-200, 200}, 400, 200, 400, 1},          // the right edge
        {{0, 1000}, 100, 1100, 110, 10},          // a time after the window: past the width
        {{0, 1000}, 100, -50, -5, 10},            // before it: negative
        {{5e9, 5.02e9}, 2000, 5.01e9, 1000, 1e4}, // a trace 5 s in, 20 ms shown
    };
    for (const Case& c : cases) {
        EXPECT_DOUBLE_EQ(nsPerPixel(c.window, c.widthPx), c.nsPerPx);
        EXPECT_DOUBLE_EQ(timeToX(c.window, c.widthPx, c.ns), c.x);
        EXPECT_DOUBLE_EQ(xToTime(c.window, c.widthPx, c.x), c.ns);
        const TimeWindow w = timeWindowOf(c.window, c.widthPx);
        EXPECT_DOUBLE_EQ(w.startNs, c.window.from);
        EXPECT_DOUBLE_EQ(w.nsPerPixel, c.nsPerPx);
        EXPECT_EQ(w.widthPx, c.widthPx);
        EXPECT_DOUBLE_EQ(w.toX(c.ns), c.x) << "the lanes' window agrees";
    }
    // A width of 0 pixels maps as 1.
    EXPECT_DOUBLE_EQ(nsPerPixel({0, 100}, 0), 100);
    TimeAxis axis = axis0To1000();
    axis.setWindow(200, 400);
    EXPECT_DOUBLE_EQ(axis.toX(300, 100), 50);
    EXPECT_DOUBLE_EQ(axis.toTime(25, 100), 250);
}

} // namespace
} // namespace ls
