// The timeline's data side: time<->pixel mapping, lanes (every event once, sorted, never
// overlapping), folding (events folded plus drawn = events in the window, bounded by pixels)
// and hit-testing, on the sample trace and on a synthetic dense lane.
#include "core/costs/kernel_class.h"
#include "core/views/timeline_tracks.h"
#include "tests/support/correlation_fixture.h"
#include "tests/support/sample_fixture.h"

#include <cmath>
#include <gtest/gtest.h>
#include <set>

namespace {

using ls::TimelineEventKind;
using ls::TimeWindow;

TEST(TimeWindow, MapsTimeAndPixelsBothWays) {
    struct Case {
        double from, to;
        int width;
        double time, x;
    } cases[] = {
        {0, 1000, 1000, 500, 500},
        {0, 1000, 100, 500, 50},
        {1e9, 2e9, 1000, 1.5e9, 500},
        {-100, 100, 200, 0, 100},
        {10, 20, 1000, 10, 0},
        {10, 20, 1000, 20, 1000},
        {1.7e18, 1.7e18 + 1e6, 1000, 1.7e18 + 5e5,
         500}, // absolute epoch timestamps keep ns precision
    };
    for (const auto& c : cases) {
        const TimeWindow w = ls::fitWindow(c.from, c.to, c.width);
        EXPECT_NEAR(w.toX(c.time), c.x, 1e-6 * c.width) << c.from << ".." << c.to;
        EXPECT_NEAR(w.toTime(c.x), c.time, w.nsPerPixel * 1e-3 + 1) << c.from << ".." << c.to;
        EXPECT_NEAR(w.endNs(), c.to, 1e-6 * (c.to - c.from) + 1);
    }
}

TEST(TimeWindow, ZoomKeepsTheTimeUnderTheCursor) {
    const TimeWindow w = ls::fitWindow(0, 1e6, 1000);
    for (double x : {0.0, 250.0, 999.0})
        for (double f : {0.5, 0.8, 1.25, 3.0}) {
            const TimeWindow z = ls::zoomAt(w, x, f);
            EXPECT_NEAR(z.toTime(x), w.toTime(x), 1e-6);
            EXPECT_NEAR(z.nsPerPixel, w.nsPerPixel * f, 1e-9);
        }
}

class TimelineSample : public ls::test::SampleTraceSuite {
  protected:
    void SetUp() override { tracks_ = ls::buildTimelineTracks(*trace_); }
    ls::TimelineTracks tracks_;
};

TEST_F(TimelineSample, EveryEventIsInOneLaneSortedAndNonOverlapping) {
    const auto& t = *trace_;
    std::vector<size_t> seen(5, 0);
    std::set<uint32_t> kernels;
    for (const auto& lane : tracks_.lanes) {
        seen[static_cast<size_t>(lane.kind)] += lane.events.size();
        for (size_t i = 1; i < lane.events.size(); ++i) {
            EXPECT_LE(ls::eventEnd(t, lane.kind, lane.events[i - 1]),
                      ls::eventStart(t, lane.kind, lane.events[i]));
        }
        if (lane.kind == TimelineEventKind::Kernel)
            kernels.insert(lane.events.begin(), lane.events.end());
    }
    size_t marks = 0;
    for (size_t r = 0; r < t.ranges.size(); ++r) marks += t.ranges.kind[r] == ls::RangeKind::Mark;
    EXPECT_EQ(seen[0], t.ranges.size() - marks);
    EXPECT_EQ(seen[1], t.apiCalls.size());
    EXPECT_EQ(seen[2], t.kernels.size());
    EXPECT_EQ(kernels.size(), t.kernels.size());
    EXPECT_EQ(seen[3], t.memcpys.size());
    EXPECT_EQ(seen[4], t.memsets.size());
    // The sample: two CPU threads (main, autograd) above one GPU stream.
    ASSERT_EQ(tracks_.groups.size(), 3u);
    EXPECT_FALSE(tracks_.groups[0].gpu);
    EXPECT_TRUE(tracks_.groups[2].gpu);
    EXPECT_NE(tracks_.groups[2].label.find("stream 7"), std::string::npos);
}

TEST_F(TimelineSample, NvtxLanesAreTheNestingDepths) {
    const auto& t = *trace_;
    for (const auto& lane : tracks_.lanes) {
        if (lane.kind != TimelineEventKind::Range) continue;
        for (uint32_t r : lane.events)
            if (t.ranges.kind[r] == ls::RangeKind::PushPop) {
                EXPECT_EQ(t.ranges.depth[r], lane.level) << t.str(t.ranges.name[r]);
            }
    }
}

// 300 nested ranges and two inside the innermost: 301 NVTX lanes, more than the byte the lane
// assignment notes per event holds, so the lanes are chosen again when filled. Each lane holds
// the ranges of its nesting level (counted by parents: the depth column stops at 255).
TEST(TimelineDeepStack, MoreLanesThanAByteHoldsKeepEveryRangeOnItsLevel) {
    ls::test::TempDir dir;
    const auto t = ls::test::fixture::load(dir, ls::test::fixture::correlationFixture(R"(
        INSERT INTO NVTX_EVENTS(start, end, text)
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299)
            SELECT i, 100000 - i, 'level ' || i FROM n;
        INSERT INTO NVTX_EVENTS(start, end, text) VALUES (400, 500, 'inner a'), (600, 700, 'inner b');
    )"));
    ASSERT_TRUE(t);
    const auto tracks = ls::buildTimelineTracks(*t);
    size_t lanes = 0, events = 0;
    for (const auto& lane : tracks.lanes) {
        if (lane.kind != TimelineEventKind::Range) continue;
        ++lanes;
        for (uint32_t r : lane.events) {
            uint32_t level = 0;
            for (ls::RangeId p = t->ranges.parent[r]; p.valid(); p = t->ranges.parent[p.value])
                ++level;
            EXPECT_EQ(level, lane.level) << t->str(t->ranges.name[r]);
            ++events;
        }
    }
    EXPECT_EQ(lanes, 301u);
    EXPECT_EQ(events, 302u);
}

// Folding conserves events: over every lane and many windows, the counts of the bars add up to
// the events intersecting the window, and there are never many more bars than pixels.
TEST_F(TimelineSample, FoldedPlusDrawnEqualsEventsInTheWindow) {
    const auto& t = *trace_;
    const double span = static_cast<double>(tracks_.end - tracks_.start);
    std::vector<std::pair<double, double>> windows;
    for (double fraction : {1.0, 0.1, 0.01, 0.001, 0.00001})
        for (double offset : {0.0, 0.3, 0.55, 0.9})
            windows.emplace_back(tracks_.start + span * offset * (1 - fraction),
                                 tracks_.start + span * (offset * (1 - fraction) + fraction));
    for (int width : {37, 400, 1920})
        for (const auto& [from, to] : windows) {
            const TimeWindow w = ls::fitWindow(from, to, width);
            for (const auto& lane : tracks_.lanes) {
                std::vector<ls::TimelineBar> bars;
                ls::foldLane(t, lane, w, bars);
                size_t count = 0;
                uint32_t next = 0;
                for (const auto& b : bars) {
                    EXPECT_GE(b.first, next) << "bars overlap in events";
                    next = b.first + b.count;
                    count += b.count;
                    EXPECT_GE(b.x1 - b.x0, 1.0 - 1e-9);
                }
                EXPECT_EQ(count, ls::eventsInWindow(t, lane, w.startNs, w.endNs()))
                    << "width " << width << " window " << from;
                EXPECT_LE(bars.size(), static_cast<size_t>(width) * 2 + 2);
            }
        }
}

TEST_F(TimelineSample, HitTestFindsTheKernelAtItsMidpoint) {
    const auto& t = *trace_;
    for (const auto& lane : tracks_.lanes) {
        if (lane.kind != TimelineEventKind::Kernel) continue;
        for (size_t i = 0; i < lane.events.size(); ++i) {
            const uint32_t k = lane.events[i];
            const double mid =
                (static_cast<double>(t.kernels.start[k]) + static_cast<double>(t.kernels.end[k])) /
                2;
            EXPECT_EQ(ls::eventAt(t, lane, mid, 0), static_cast<int64_t>(i));
        }
        EXPECT_EQ(ls::eventAt(t, lane, static_cast<double>(tracks_.start) - 1e9, 10), -1);
    }
}

TEST(TimelineFolding, ManyTinyEventsFoldToAboutOneBarPerPixel) {
    // A synthetic trace: 200,000 back-to-back 10 ns kernels on one stream.
    ls::Trace t;
    const uint32_t n = 200000;
    for (uint32_t i = 0; i < n; ++i) {
        t.kernels.start.push_back(static_cast<ls::TimeNs>(i) * 20);
        t.kernels.end.push_back(static_cast<ls::TimeNs>(i) * 20 + 10);
    }
    ls::TimelineLane lane;
    lane.kind = TimelineEventKind::Kernel;
    for (uint32_t i = 0; i < n; ++i) lane.events.push_back(i);
    for (int width : {100, 1920}) {
        std::vector<ls::TimelineBar> bars;
        const TimeWindow w = ls::fitWindow(0, n * 20.0, width);
        ls::foldLane(t, lane, w, bars);
        size_t count = 0;
        for (const auto& b : bars) count += b.count;
        EXPECT_EQ(count, n);
        // About one bar per pixel column (rounding at column edges adds a few).
        EXPECT_LE(bars.size(), static_cast<size_t>(width) + static_cast<size_t>(width) / 100 + 2);
        EXPECT_GE(bars.size(), static_cast<size_t>(width) * 9 / 10);
    }
    // Zoomed in far enough, every event is its own bar.
    std::vector<ls::TimelineBar> bars;
    ls::foldLane(t, lane, ls::fitWindow(1000, 2000, 1000), bars);
    ASSERT_EQ(bars.size(), 50u); // events 50..99 intersect [1000, 2000)
    for (const auto& b : bars) EXPECT_EQ(b.count, 1u);
}

TEST(KernelClass, NamesAndTensorCoreVerdictsPickTheClass) {
    using ls::KernelClass;
    using ls::TcState;
    EXPECT_EQ(
        ls::classifyKernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", TcState::NotApplicable),
        KernelClass::Communication);
    EXPECT_EQ(ls::classifyKernel("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16",
                                 TcState::Used),
              KernelClass::Attention);
    EXPECT_EQ(ls::classifyKernel("nvjet_sm90_hsh_96x64_64x8_1x2_h_bz_NNN", TcState::Used),
              KernelClass::GemmTensorCore);
    EXPECT_EQ(
        ls::classifyKernel(
            "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma",
            TcState::NotUsed),
        KernelClass::GemmNoTensorCore);
    EXPECT_EQ(
        ls::classifyKernel(
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
            TcState::NotApplicable),
        KernelClass::Elementwise);
    EXPECT_EQ(ls::classifyKernel("void at::native::reduce_kernel<512, 1>", TcState::NotApplicable),
              KernelClass::Reduction);
    EXPECT_EQ(ls::classifyKernel("my_custom_kernel", TcState::NotApplicable), KernelClass::Other);
    EXPECT_EQ(ls::classifyKernel("sm90_xmma_something", TcState::Used),
              KernelClass::GemmTensorCore);
}

} // namespace
