// LoadOverviewView::refresh: once kernels are drawn, new kernels repaint only the ruler and the
// rows, not the empty area below them; the first kernels (replacing the centred message) repaint
// all of it.
#include "core/present/load_overview.h"
#include "widgets/timeline/load_overview_view.h"

#include <QCoreApplication>
#include <QPaintEvent>
#include <QTest>
#include <gtest/gtest.h>
#include <memory>
#include <vector>

namespace {

// The rectangle of each paint a widget receives.
class PaintRects : public QObject {
  public:
    std::vector<QRect> rects;
    bool eventFilter(QObject*, QEvent* e) override {
        if (e->type() == QEvent::Paint) rects.push_back(static_cast<QPaintEvent*>(e)->rect());
        return false;
    }
};

void addKernels(ls::LoadOverview& overview, int from, int count) {
    std::vector<ls::KernelSpan> k;
    for (int i = from; i < from + count; ++i)
        k.push_back({i * 1000LL, i * 1000LL + 600, 0, static_cast<uint32_t>(7 + i % 2)});
    overview.add(k);
}

TEST(LoadOverviewPaint, NewKernelsRepaintTheRowsNotTheEmptyAreaBelow) {
    auto overview = std::make_shared<ls::LoadOverview>();
    ls::gui::LoadOverviewView view;
    view.resize(1200, 700);
    view.setOverview(overview);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    PaintRects paints;
    view.installEventFilter(&paints);

    addKernels(*overview, 0, 1000);
    view.refresh();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !paints.rects.empty(); }, 5000));
    EXPECT_EQ(paints.rects.back(), view.rect()) << "the first kernels: all of it";

    paints.rects.clear();
    addKernels(*overview, 1000, 1000);
    view.refresh();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !paints.rects.empty(); }, 5000));
    const QRect painted = paints.rects.back();
    EXPECT_EQ(painted.top(), 0);
    EXPECT_EQ(painted.width(), view.width());
    EXPECT_LT(painted.height(), view.height() / 2) << "two streams' rows, not the page";
    EXPECT_GT(painted.height(), 2 * 18) << "the ruler and both rows";
    EXPECT_EQ(view.snapshot().lanes.size(), 2u);
}

} // namespace
