// The Roofline tab offscreen, against core: on the sample (an H200 trace) every level plots one
// marker per core roofline point at (intensity, achieved TFLOP/s), the roofs carry the H200's
// peak and bandwidth, each point's filter selects exactly its kernels, and clicking a marker
// emits that filter. An unknown GPU keeps the points and drops the roofs.
#include "core/load/load.h"
#include "core/views/kernel_filter.h"
#include "tests/widgets/widget_test_support.h"
#include "widgets/roofline/roofline_chart.h"
#include "widgets/roofline/roofline_panel.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/window/main_window.h"

#include <QChart>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QToolTip>
#include <cmath>
#include <gtest/gtest.h>

namespace {

using ls::RooflineLevel;
using ls::gui::RooflinePanel;

constexpr RooflineLevel kLevels[] = {RooflineLevel::Family, RooflineLevel::Op, RooflineLevel::Layer,
                                     RooflineLevel::Kernel};

std::shared_ptr<const ls::Trace> sample() {
    auto loaded = ls::loadTrace(ls::gui::test::samplePath().toStdString());
    return loaded.trace;
}

TEST(RooflinePanel, PlotsCorePointsUnderTheH200Roofs) {
    const auto trace = sample();
    ASSERT_TRUE(trace);
    RooflinePanel panel;
    panel.resize(1200, 800);
    panel.setData(ls::buildRooflineData(trace));
    const ls::KernelTable table(trace);
    std::vector<ls::KernelId> all;
    for (uint32_t k = 0; k < table.size(); ++k) all.push_back(ls::KernelId(k));

    for (RooflineLevel level : kLevels) {
        SCOPED_TRACE(ls::rooflineLevelTitle(level));
        panel.setLevel(level);
        const auto core = ls::roofline(*trace, ls::rooflineGroupOf(*trace, level));
        ASSERT_GT(core.size(), 3u);
        ASSERT_EQ(panel.rows().size(), core.size());
        // Markers: one per point, all in scatter series.
        int plotted = 0;
        for (QAbstractSeries* s : panel.chart()->chart()->series())
            if (auto* scatter = qobject_cast<QScatterSeries*>(s))
                plotted += static_cast<int>(scatter->count());
        EXPECT_EQ(plotted, static_cast<int>(core.size()));
        const auto& markers = panel.chart()->markers();
        ASSERT_EQ(markers.size(), core.size());
        size_t positive = 0;
        for (size_t i = 0; i < core.size(); ++i) {
            EXPECT_EQ(panel.rows()[i].point.group.name, core[i].group.name);
            const QPointF at = markers[i].series->at(markers[i].index);
            const double x = core[i].intensity(), y = core[i].achieved() / 1e12;
            if (x > 0 && std::isfinite(x) && y > 0) {
                ++positive;
                EXPECT_DOUBLE_EQ(at.x(), x) << core[i].group.name;
                EXPECT_DOUBLE_EQ(at.y(), y) << core[i].group.name;
            }
            // The point's filter selects exactly its kernels.
            const auto parsed = ls::KernelFilter::parse(panel.rows()[i].filter);
            ASSERT_TRUE(parsed.filter) << panel.rows()[i].filter << ": " << parsed.error;
            EXPECT_EQ(parsed.filter->apply(table, all).size(), core[i].kernels)
                << panel.rows()[i].filter;
            EXPECT_TRUE(panel.chart()->pointText(i).contains(QStringLiteral("% of roof")));
        }
        EXPECT_GT(positive, core.size() / 2);

        // Roofs: H200 SXM, 4,800 GB/s, fp16 Tensor Cores 989.5 TFLOP/s, FP32 67 TFLOP/s.
        QLineSeries* memory = panel.chart()->roof(QStringLiteral("memoryRoof"));
        QLineSeries* compute = panel.chart()->roof(QStringLiteral("computeRoof"));
        QLineSeries* fp32 = panel.chart()->roof(QStringLiteral("fp32Roof"));
        ASSERT_TRUE(memory && compute && fp32);
        for (const QPointF& p : memory->points()) EXPECT_NEAR(p.y() * 1e12 / p.x(), 4800e9, 1e3);
        for (const QPointF& p : compute->points()) EXPECT_NEAR(p.y(), 989.5, 1e-9);
        for (const QPointF& p : fp32->points()) EXPECT_NEAR(p.y(), 67, 1e-9);
        EXPECT_NEAR(memory->points().back().y(), 989.5,
                    1e-6); // the memory roof meets the compute roof
        EXPECT_TRUE(panel.chart()->chart()->title().contains(QStringLiteral("NVIDIA H200")));
        EXPECT_TRUE(compute->name().contains(QStringLiteral("989.5")));
        EXPECT_TRUE(memory->name().contains(QStringLiteral("4800")));
    }
}

TEST(RooflinePanel, ClickingAMarkerEmitsItsFilter) {
    const auto trace = sample();
    ASSERT_TRUE(trace);
    RooflinePanel panel;
    panel.resize(1400, 900);
    panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
    panel.setLevel(RooflineLevel::Family);
    panel.setData(ls::buildRooflineData(trace));
    QCoreApplication::processEvents();
    QChartView* view = panel.chart();
    const auto& markers = panel.chart()->markers();
    // A marker no other lies near on screen, so the click can only hit it.
    std::vector<QPoint> screen;
    for (const auto& m : markers)
        screen.push_back(
            view->mapFromScene(view->chart()->mapToPosition(m.series->at(m.index), m.series)));
    int target = -1;
    for (size_t i = 0; i < screen.size() && target < 0; ++i) {
        bool alone = true;
        for (size_t j = 0; j < screen.size(); ++j)
            if (j != i && (screen[i] - screen[j]).manhattanLength() < 40) alone = false;
        if (alone && view->rect().contains(screen[i])) target = static_cast<int>(i);
    }
    ASSERT_GE(target, 0);
    QSignalSpy spy(&panel, &RooflinePanel::filterRequested);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, screen[static_cast<size_t>(target)]);
    ASSERT_EQ(spy.count(), 1);
    EXPECT_EQ(spy.at(0).at(0).toString().toStdString(),
              panel.rows()[static_cast<size_t>(target)].filter);
    const auto& m = markers[static_cast<size_t>(target)];
    EXPECT_TRUE(m.series->isPointSelected(m.index));
    QToolTip::hideText(); // the hover's tooltip, so that it is not left behind
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

TEST(RooflinePanel, UnknownGpuShowsPointsWithoutRoofs) {
    const auto loaded = sample();
    ASSERT_TRUE(loaded);
    auto trace = std::make_shared<ls::Trace>(*loaded);
    for (auto& d : trace->devices) d.name = "Mystery GPU 9000";
    RooflinePanel panel;
    panel.setData(ls::buildRooflineData(trace));
    const auto core = ls::roofline(*trace, ls::rooflineGroupOf(*trace, panel.level()));
    EXPECT_EQ(panel.chart()->markers().size(), core.size());
    EXPECT_FALSE(panel.chart()->roof(QStringLiteral("memoryRoof")));
    EXPECT_FALSE(panel.chart()->roof(QStringLiteral("computeRoof")));
    EXPECT_TRUE(panel.message()->text().contains(QStringLiteral("Mystery GPU 9000")));
    EXPECT_TRUE(panel.message()->text().contains(QStringLiteral("roofs not drawn")));
}

TEST(RooflinePanel, IsATabOfTheMainWindowAndClickFiltersTheKernelTable) {
    const auto window = ls::gui::test::openInWindow(ls::gui::test::samplePath());
    ASSERT_TRUE(window);
    RooflinePanel* panel = window->rooflinePanel();
    ASSERT_TRUE(panel);
    auto* tabs = qobject_cast<QTabWidget*>(window->centralWidget());
    ASSERT_TRUE(tabs);
    const int index = tabs->indexOf(panel);
    ASSERT_GE(index, 0);
    EXPECT_EQ(tabs->tabText(index), QStringLiteral("Roofline"));
    ASSERT_FALSE(panel->rows().empty());
    emit panel->chart()->pointClicked(0);
    EXPECT_EQ(window->kernelView()->filterEdit()->text().toStdString(), panel->rows()[0].filter);
}

} // namespace
