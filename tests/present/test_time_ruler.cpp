// Ruler ticks (core/present/time_ruler.h), table-driven: the step for a scale, and the ticks of a
// window, worked out by hand.
#include "core/present/time_ruler.h"

#include <cmath>
#include <gtest/gtest.h>
#include <vector>

namespace ls {
namespace {

TEST(TimeRuler, StepIsTheSmallestOneTwoOrFiveTimesAPowerOfTen) {
    struct Case {
        double minStep, step;
    };
    for (const Case& c : std::vector<Case>{{0.2, 1},
                                           {1, 1},
                                           {1.5, 2},
                                           {2, 2},
                                           {2.01, 5},
                                           {5, 5},
                                           {7, 10},
                                           {10, 10},
                                           {11, 20},
                                           {90, 100},
                                           {101, 200},
                                           {4.5e5, 5e5},
                                           {5.1e5, 1e6},
                                           {3e9, 5e9}})
        EXPECT_DOUBLE_EQ(rulerStep(c.minStep), c.step) << "min " << c.minStep;
}

TEST(TimeRuler, TicksOfAWindowCountFromTheOrigin) {
    struct Case {
        double start, end, nsPerPixel, origin, spacing;
        double step;
        std::vector<double> offsets;
    };
    const std::vector<Case> cases = {
        // 1,000 ns over 100 px at 10 ns/px, ticks >= 20 px apart: step 200 ns, from the origin 0.
        {0, 1000, 10, 0, 20, 200, {0, 200, 400, 600, 800, 1000}},
        // The same window 50 ns later: the first tick is the first multiple at or after the start.
        {50, 1050, 10, 0, 20, 200, {200, 400, 600, 800, 1000}},
        // Offsets count from the origin (a capture start at 1,000,000 ns).
        {1'000'300, 1'001'100, 10, 1'000'000, 20, 200, {400, 600, 800, 1000}},
        // A window before the origin gives negative offsets.
        {-500, 0, 5, 0, 20, 100, {-500, -400, -300, -200, -100, 0}},
        // 90 px spacing at 1 ms per pixel: 90 ms -> 100 ms steps.
        {0, 350e6, 1e6, 0, 90, 100e6, {0, 100e6, 200e6, 300e6}},
        // Nothing for an empty or inverted window or a non-positive scale.
        {10, 10, 1, 0, 20, 0, {}},
        {10, 5, 1, 0, 20, 0, {}},
        {0, 100, 0, 0, 20, 0, {}},
    };
    for (const Case& c : cases) {
        const RulerTicks t = rulerTicks(c.start, c.end, c.nsPerPixel, c.origin, c.spacing);
        EXPECT_DOUBLE_EQ(t.stepNs, c.step) << c.start << ".." << c.end;
        EXPECT_EQ(t.offsets, c.offsets) << c.start << ".." << c.end;
    }
}

} // namespace
} // namespace ls
