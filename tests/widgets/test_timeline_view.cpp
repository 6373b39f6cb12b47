// The timeline widget offscreen: pixels at known kernels' positions have the kernel's colour,
// a click at a kernel's pixel selects it (in the view, the kernel table and the details pane),
// keys zoom, pan and walk the history, and a range click lists the range's kernels.
#include "core/load/load.h"
#include "core/pytorch/correlation.h"
#include "tests/widgets/widget_test_support.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/timeline/timeline_area.h"
#include "widgets/timeline/timeline_palette.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/window/main_window.h"

#include <QApplication>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <gtest/gtest.h>

namespace {

using ls::KernelId;
using ls::gui::TimelineView;

class TimelineViewTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        auto loaded = ls::loadTrace(ls::gui::test::samplePath().toStdString());
        ASSERT_TRUE(loaded.ok());
        data_ = ls::buildTimelineData(loaded.trace);
    }
    static void TearDownTestSuite() { data_.reset(); }
    void SetUp() override {
        view_ = std::make_unique<TimelineView>();
        view_->resize(1200, 700);
        view_->show();
        view_->setData(data_);
    }
    // The longest kernel: a Tensor Core GEMM of the LM head.
    static KernelId longest() {
        const auto& k = data_->trace->kernels;
        uint32_t best = 0;
        for (uint32_t i = 1; i < k.size(); ++i)
            if (k.duration(i) > k.duration(best)) best = i;
        return KernelId(best);
    }
    QImage render() const {
        QImage image(view_->viewport()->size(), QImage::Format_RGB32);
        QPainter p(&image);
        view_->paintContent(p, image.size());
        return image;
    }
    static inline std::shared_ptr<const ls::TimelineData> data_;
    std::unique_ptr<TimelineView> view_;
};

TEST_F(TimelineViewTest, KernelPixelsHaveTheKernelsColourInEachMode) {
    const KernelId k = longest();
    ASSERT_EQ(data_->kernelClass[k.value], ls::KernelClass::GemmTensorCore);
    const auto point = view_->kernelPoint(k);
    ASSERT_TRUE(point);
    const QPoint probe(static_cast<int>(point->x()),
                       static_cast<int>(point->y()) - 5); // above the label text
    EXPECT_EQ(render().pixelColor(probe),
              ls::gui::kernelClassColor(ls::KernelClass::GemmTensorCore));
    view_->setColorMode(TimelineView::ColorMode::Direction);
    EXPECT_EQ(render().pixelColor(probe),
              ls::gui::directionColor(data_->trace->kernelLinks.direction[k.value]));
    // Left of the first kernel, the kernel lane is background.
    const auto& kern = data_->trace->kernels;
    const auto first = view_->kernelPoint(KernelId(0));
    ASSERT_TRUE(first);
    const double x =
        first->x() -
        (static_cast<double>(kern.end[0] - kern.start[0]) / 2) / view_->window().nsPerPixel - 4;
    EXPECT_EQ(render().pixelColor(QPoint(static_cast<int>(x), probe.y())),
              QColor(0xfa, 0xfa, 0xfa));
}

TEST_F(TimelineViewTest, ClickAtAKernelsPixelSelectsIt) {
    const KernelId k = longest();
    const auto point = view_->kernelPoint(k);
    ASSERT_TRUE(point);
    const auto hit = view_->hitAt(point->toPoint());
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->kind, ls::TimelineEventKind::Kernel);
    EXPECT_EQ(hit->id, k.value);
    QSignalSpy clicked(view_.get(), &TimelineView::kernelClicked);
    QTest::mouseClick(view_->viewport(), Qt::LeftButton, {}, point->toPoint());
    ASSERT_EQ(clicked.count(), 1);
    EXPECT_EQ(clicked.first().first().value<KernelId>().value, k.value);
    EXPECT_EQ(view_->selectedKernel(), k);
}

TEST_F(TimelineViewTest, KeysZoomPanFitAndWalkHistory) {
    view_->setFocus();
    const auto fitted = view_->window();
    QTest::keyClick(view_.get(), Qt::Key_W);
    const auto zoomed = view_->window();
    EXPECT_LT(zoomed.nsPerPixel, fitted.nsPerPixel);
    QTest::keyClick(view_.get(), Qt::Key_D);
    EXPECT_GT(view_->window().startNs, zoomed.startNs);
    QTest::keyClick(view_.get(), Qt::Key_0);
    EXPECT_NEAR(view_->window().nsPerPixel, fitted.nsPerPixel, 1e-9);
    QTest::keyClick(view_.get(), Qt::Key_Left, Qt::AltModifier);
    EXPECT_NEAR(view_->window().nsPerPixel, zoomed.nsPerPixel, 1e-9);
    QTest::keyClick(view_.get(), Qt::Key_Right, Qt::AltModifier);
    EXPECT_NEAR(view_->window().nsPerPixel, fitted.nsPerPixel, 1e-9);
}

TEST_F(TimelineViewTest, FoldedBarsZoomInWhenClicked) {
    // At a 40-pixel-wide view the sample's 214 kernels fold; a click on a folded bar zooms in.
    view_->resize(230 + 40 + view_->verticalScrollBar()->width(), 700);
    QTest::qWait(20);
    view_->fitAll();
    const auto before = view_->window();
    const auto lane = view_->kernelPoint(KernelId(0));
    ASSERT_TRUE(lane);
    std::optional<QPointF> point;
    for (int x = 230; x < view_->viewport()->width() && !point; ++x)
        if (const auto hit = view_->hitAt(QPoint(x, static_cast<int>(lane->y())));
            hit && hit->count > 1)
            point = QPointF(x, lane->y());
    ASSERT_TRUE(point) << "no folded bar at 40 pixels for 214 kernels";
    // Its tooltip numbers: the summed durations of exactly the kernels it holds.
    const auto folded = view_->hitAt(point->toPoint());
    const auto& kern = data_->trace->kernels;
    double sum = 0, count = 0;
    for (size_t k = 0; k < kern.size(); ++k)
        if (static_cast<double>(kern.start[k]) >= folded->fromNs &&
            static_cast<double>(kern.end[k]) <= folded->toNs) {
            sum += static_cast<double>(kern.duration(k));
            ++count;
        }
    EXPECT_EQ(count, folded->count);
    EXPECT_DOUBLE_EQ(sum, folded->totalNs);
    QTest::mouseClick(view_->viewport(), Qt::LeftButton, {}, point->toPoint());
    EXPECT_LT(view_->window().nsPerPixel, before.nsPerPixel);
}

TEST_F(TimelineViewTest, ShiftDragMeasuresKernelsAndTheirGpuTimeInTheRange) {
    const auto lane = view_->kernelPoint(KernelId(0));
    ASSERT_TRUE(lane);
    const QPoint from(400, static_cast<int>(lane->y())), to(700, static_cast<int>(lane->y()));
    QTest::mousePress(view_->viewport(), Qt::LeftButton, Qt::ShiftModifier, from);
    QMouseEvent move(QEvent::MouseMove, QPointF(to), view_->viewport()->mapToGlobal(QPointF(to)),
                     Qt::NoButton, Qt::LeftButton, Qt::ShiftModifier);
    QApplication::sendEvent(view_->viewport(), &move);
    QTest::mouseRelease(view_->viewport(), Qt::LeftButton, Qt::ShiftModifier, to);
    const auto m = view_->measure();
    ASSERT_TRUE(m);
    // By hand: every kernel overlapping the range, clipped to it.
    const auto& k = data_->trace->kernels;
    uint64_t count = 0;
    double gpu = 0;
    for (size_t i = 0; i < k.size(); ++i) {
        const double s = std::max(m->fromNs, static_cast<double>(k.start[i])),
                     e = std::min(m->toNs, static_cast<double>(k.end[i]));
        if (static_cast<double>(k.end[i]) > m->fromNs &&
            static_cast<double>(k.start[i]) < m->toNs) {
            ++count;
            gpu += e - s;
        }
    }
    EXPECT_GT(count, 5u);
    EXPECT_EQ(m->kernels, count);
    EXPECT_NEAR(m->gpuNs, gpu, 1e-3);
}

TEST_F(TimelineViewTest, RowsCollapseHideLimitNvtxLevelsAndReorder) {
    const auto& tracks = data_->tracks;
    ASSERT_EQ(tracks.groups.size(), 3u); // main thread, autograd thread, GPU stream
    uint32_t kernelLane = 0, deepRange = 0;
    for (uint32_t l = 0; l < tracks.lanes.size(); ++l) {
        if (tracks.lanes[l].kind == ls::TimelineEventKind::Kernel) kernelLane = l;
        if (tracks.lanes[l].kind == ls::TimelineEventKind::Range && tracks.lanes[l].group == 0 &&
            tracks.lanes[l].level == 3)
            deepRange = l;
    }
    ASSERT_GT(deepRange, 0u);
    const int kernelTop = view_->laneTop(kernelLane);
    ASSERT_GE(kernelTop, 0);
    view_->setNvtxLevels(0, 2); // main thread: NVTX 0 and 1 only
    EXPECT_EQ(view_->laneTop(deepRange), -1);
    EXPECT_LT(view_->laneTop(kernelLane), kernelTop);
    view_->moveGroup(2, 0); // GPU stream first
    EXPECT_EQ(view_->groupOrder().front(), 2u);
    EXPECT_LT(view_->laneTop(kernelLane),
              view_->laneTop(tracks.lanes.front().events.empty() ? 0 : 0));
    view_->setGroupHidden(2, true);
    EXPECT_EQ(view_->laneTop(kernelLane), -1);
    EXPECT_FALSE(view_->kernelPoint(KernelId(0)));
    view_->setGroupHidden(2, false);
    view_->setGroupCollapsed(2, true);
    EXPECT_EQ(view_->laneTop(kernelLane), -1);
}

TEST(TimelineInWindow, ClickingAKernelSelectsItInTheTableAndRangesListTheirKernels) {
    const auto window = ls::gui::test::openInWindow(ls::gui::test::samplePath());
    ASSERT_TRUE(window);
    ls::gui::MainWindow& w = *window;
    auto* view = w.findChild<TimelineView*>();
    ASSERT_NE(view, nullptr);
    const auto& t = *w.trace();
    uint32_t longestKernel = 0;
    for (uint32_t i = 1; i < t.kernels.size(); ++i)
        if (t.kernels.duration(i) > t.kernels.duration(longestKernel)) longestKernel = i;
    const auto point = view->kernelPoint(KernelId(longestKernel));
    ASSERT_TRUE(point);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, point->toPoint());
    EXPECT_EQ(w.kernelView()->currentKernel(), KernelId(longestKernel));
    // The LM head's forward GEMM is linked to its backward node's kernels.
    const ls::OpId op = t.kernelLinks.opInstance[longestKernel];
    ASSERT_TRUE(op.valid() && t.ops.paired[op.value].valid());
    EXPECT_EQ(view->linked(), ls::kernelsOfOp(t, t.ops.paired[op.value]));
    EXPECT_FALSE(view->linked().empty());
    // A range: the "layer0" push/pop range of the main thread lists exactly its kernels.
    emit view->rangeClicked(ls::RangeId([&] {
        for (uint32_t r = 0; r < t.ranges.size(); ++r)
            if (t.str(t.ranges.name[r]) == "layer0") return r;
        return 0u;
    }()));
    EXPECT_TRUE(w.kernelModel()->scopeLabel().contains(QStringLiteral("layer0")));
    EXPECT_EQ(w.kernelModel()->rowCount(),
              24); // layer0's forward kernels, under the range on its thread
}

} // namespace
