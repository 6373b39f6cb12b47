// Offscreen widget tests (QT_QPA_PLATFORM=offscreen): the summary model under
// QAbstractItemModelTester, and the main window loading the sample trace in the background.
#include "core/load/load.h"
#include "core/present/timeline_data.h"
#include "core/pytorch/correlation.h"
#include "core/reports/summary.h"
#include "widgets/panes/fwd_bwd_models.h"
#include "widgets/panes/fwd_bwd_panel.h"
#include "widgets/tables/kernel_summary_model.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/tables/layer_tree_model.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/util/units.h"
#include "widgets/window/main_window.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QHeaderView>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <functional>
#include <gtest/gtest.h>

namespace {

const QString kSample =
    QStringLiteral(LAYERSCOPE_SOURCE_DIR "/resources/sample_gpt2_2layer_fp16_h200.sqlite");

TEST(FormatDuration, PicksUnitsByMagnitude) {
    struct Case {
        double ns;
        const char* expected;
    } cases[] = {{0, "0 ns"},        {999, "999 ns"},     {1000, "1 µs"},
                 {12345, "12.3 µs"}, {4.56e6, "4.56 ms"}, {1.5e9, "1.500 s"}};
    for (const auto& c : cases)
        EXPECT_EQ(ls::gui::formatDuration(c.ns), QString::fromUtf8(c.expected)) << c.ns;
}

// Ruler ticks never read alike: at 50 µs steps around 12 ms three significant digits would
// print "12.2 ms" for 12.15, 12.20 and 12.25 ms.
TEST(FormatTick, ShowsTheDecimalsTheStepNeeds) {
    struct Case {
        double ns, step;
        const char* expected;
    } cases[] = {{12.15e6, 50e3, "12.15 ms"}, {12.2e6, 50e3, "12.20 ms"}, {12e6, 1e6, "12 ms"},
                 {12.5e6, 5e5, "12.5 ms"},    {0, 1e6, "0 ns"},           {500, 100, "500 ns"},
                 {1.234e6, 2e3, "1.234 ms"},  {2.5e9, 1e8, "2.5 s"},      {40e3, 10e3, "40 µs"},
                 {12.105e6, 5e3, "12.105 ms"}};
    for (const auto& c : cases)
        EXPECT_EQ(ls::gui::formatTick(c.ns, c.step), QString::fromUtf8(c.expected))
            << c.ns << " " << c.step;
    for (double t = 12.1e6; t < 12.4e6; t += 50e3)
        EXPECT_NE(ls::gui::formatTick(t, 50e3), ls::gui::formatTick(t + 50e3, 50e3));
}

TEST(KernelSummaryModel, PassesModelTesterAndMatchesCore) {
    auto loaded = ls::loadTrace(kSample.toStdString());
    ASSERT_TRUE(loaded.ok());
    ls::gui::KernelSummaryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setTrace(loaded.trace);
    const auto rows =
        ls::kernelSummary(*loaded.trace, ls::KernelGrouping::Name, ls::KernelNaming::Demangled);
    ASSERT_EQ(model.rowCount(), static_cast<int>(rows.size()));
    uint64_t total = 0;
    for (int r = 0; r < model.rowCount(); ++r) {
        total += model.index(r, ls::gui::KernelSummaryModel::Total)
                     .data(ls::gui::KernelSummaryModel::SortRole)
                     .toULongLong();
        EXPECT_EQ(model.index(r, ls::gui::KernelSummaryModel::Name).data().toString().toStdString(),
                  rows[static_cast<size_t>(r)].name);
    }
    uint64_t expected = 0;
    for (size_t i = 0; i < loaded.trace->kernels.size(); ++i)
        expected += static_cast<uint64_t>(loaded.trace->kernels.duration(i));
    EXPECT_EQ(total, expected);
    model.setTrace(nullptr);
    EXPECT_EQ(model.rowCount(), 0);
}

TEST(KernelTableModel, PassesModelTesterThroughScopeFilterAndSort) {
    auto loaded = ls::loadTrace(kSample.toStdString());
    ASSERT_TRUE(loaded.ok());
    ls::gui::KernelTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setTable(std::make_shared<const ls::KernelTable>(loaded.trace));
    EXPECT_EQ(model.rowCount(), 214);
    EXPECT_EQ(model.columnCount(), static_cast<int>(ls::kKernelFieldCount));
    model.sort(static_cast<int>(ls::KernelField::Duration), Qt::DescendingOrder);
    EXPECT_EQ(model.setFilter(QStringLiteral("direction = forward")), QString());
    EXPECT_EQ(model.rowCount(),
              61); // the sample's forward kernels (layer tree: iteration 2 > forward)
    EXPECT_NE(model.setFilter(QStringLiteral("flops > lots")), QString());
    EXPECT_EQ(model.rowCount(), 61); // a bad expression leaves the rows alone
    model.setScope(ls::kernelsOfLayer(*loaded.trace, loaded.trace->strings.find("layer0")),
                   QStringLiteral("layer0"));
    EXPECT_EQ(model.rowCount(), 24); // layer0's forward kernels
    model.sort(static_cast<int>(ls::KernelField::Name), Qt::AscendingOrder);
    model.clearScope();
    EXPECT_EQ(model.rowCount(), 61);
    EXPECT_EQ(model.rowOf(model.kernelAt(10)), 10);
    model.setTable(nullptr);
    EXPECT_EQ(model.rowCount(), 0);
}

TEST(LayerTreeModel, PassesModelTesterAndMirrorsTheCoreTree) {
    auto loaded = ls::loadTrace(kSample.toStdString());
    ASSERT_TRUE(loaded.ok());
    auto tree = std::make_shared<const ls::LayerTree>(ls::buildLayerTree(*loaded.trace));
    ls::gui::LayerTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setTree(loaded.trace, tree);
    // Every node is reachable and indexOf/nodeOf are inverse.
    size_t visited = 0;
    std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
        for (int r = 0; r < model.rowCount(parent); ++r) {
            const QModelIndex i = model.index(r, 0, parent);
            ++visited;
            EXPECT_EQ(model.indexOf(model.nodeOf(i)), i);
            walk(i);
        }
    };
    walk({});
    EXPECT_EQ(visited + 1, tree->size()); // all but the hidden root
    model.setTree(nullptr, nullptr);
    EXPECT_EQ(model.rowCount(), 0);
}

class MainWindowTest : public ::testing::Test {
  protected:
    void SetUp() override {
        QStandardPaths::setTestModeEnabled(true); // keep QSettings away from the user's
    }
};

TEST_F(MainWindowTest, LoadsSampleInBackgroundAndShowsSummary) {
    ls::gui::MainWindow w;
    w.show();
    QSignalSpy loaded(&w, &ls::gui::MainWindow::traceLoaded);
    w.openFile(kSample);
    ASSERT_TRUE(loaded.wait(30000));
    ASSERT_TRUE(w.trace());
    EXPECT_EQ(w.trace()->kernels.size(), 214u);
    EXPECT_TRUE(w.windowTitle().contains(QStringLiteral("sample_gpt2_2layer_fp16_h200.sqlite")));
    auto* view = w.summaryView();
    ASSERT_NE(view, nullptr);
    const auto rows =
        ls::kernelSummary(*w.trace(), ls::KernelGrouping::Name, ls::KernelNaming::Demangled);
    EXPECT_EQ(view->model()->rowCount(), static_cast<int>(rows.size()));
    // Sorted by total time, descending, on open.
    EXPECT_EQ(
        view->model()->index(0, ls::gui::KernelSummaryModel::Name).data().toString().toStdString(),
        rows.front().name);
}

// The kernel table's sort is done on the loader thread for the header's column: the rows come in
// the order sorting them in the window gives, and the other tabs fill after the table.
TEST_F(MainWindowTest, TheTableOpensSortedOffTheGuiThreadAsTheHeaderAsks) {
    ls::gui::MainWindow w;
    w.show();
    auto* table = w.kernelView()->table();
    for (const auto& [field, order] : {std::pair{ls::KernelField::Duration, Qt::DescendingOrder},
                                       std::pair{ls::KernelField::Name, Qt::AscendingOrder}}) {
        table->horizontalHeader()->setSortIndicator(static_cast<int>(field), order);
        QSignalSpy loaded(&w, &ls::gui::MainWindow::traceLoaded);
        w.openFile(kSample);
        ASSERT_TRUE(loaded.wait(30000));
        ASSERT_TRUE(w.views()->sortedKernels);
        EXPECT_EQ(w.views()->kernelOrder.column, static_cast<int>(field));
        const std::vector<ls::KernelId> opened = w.kernelModel()->rows();
        std::vector<ls::KernelId> expected(opened.size());
        for (uint32_t k = 0; k < expected.size(); ++k) expected[k] = ls::KernelId(k);
        w.views()->kernels->sort(expected, field, order == Qt::DescendingOrder);
        EXPECT_EQ(opened, expected);
        // The Forward/Backward tab filled too, costliest op first.
        auto* forward = w.fwdBwdPanel()->forwardView()->model();
        ASSERT_GT(forward->rowCount(), 1);
        EXPECT_GE(forward->index(0, ls::gui::OpSideModel::GpuTime)
                      .data(ls::gui::OpSideModel::SortRole)
                      .toULongLong(),
                  forward->index(1, ls::gui::OpSideModel::GpuTime)
                      .data(ls::gui::OpSideModel::SortRole)
                      .toULongLong());
    }
}

// A load shows the table, tree and timeline first (windowReady, the other tabs' rows not built
// yet), then fills the other tabs (traceLoaded, the session complete).
TEST_F(MainWindowTest, TheTableTreeAndTimelineComeBeforeTheOtherTabs) {
    ls::gui::MainWindow w;
    w.show();
    bool completeAtReady = true, timelinePaintsAtReady = false;
    int rowsAtReady = -1, forwardAtReady = -1;
    QObject::connect(&w, &ls::gui::MainWindow::windowReady, &w, [&] {
        completeAtReady = w.views()->complete;
        timelinePaintsAtReady = w.findChild<ls::gui::TimelineView*>()
                                    ->updatesEnabled(); // its paint is held only until then
        rowsAtReady = w.kernelModel()->rowCount();
        forwardAtReady = w.fwdBwdPanel()->forwardView()->model()->rowCount();
    });
    QSignalSpy ready(&w, &ls::gui::MainWindow::windowReady),
        loaded(&w, &ls::gui::MainWindow::traceLoaded);
    w.openFile(kSample);
    ASSERT_TRUE(loaded.wait(30000));
    EXPECT_EQ(ready.count(), 1);
    EXPECT_FALSE(completeAtReady);
    EXPECT_TRUE(timelinePaintsAtReady);
    EXPECT_EQ(rowsAtReady, 214);
    EXPECT_EQ(forwardAtReady, 0);
    ASSERT_TRUE(w.views()->complete);
    EXPECT_EQ(w.fwdBwdPanel()->forwardView()->model()->rowCount(),
              static_cast<int>(w.views()->pairs->forward.size()));
    EXPECT_GT(w.summaryView()->model()->rowCount(), 0);
    // The timeline's lanes, built while the load correlated the trace, are the finished trace's.
    const ls::TimelineTracks after = ls::buildTimelineTracks(*w.trace());
    const ls::TimelineData* shown = w.findChild<ls::gui::TimelineView*>()->data();
    ASSERT_TRUE(shown);
    ASSERT_EQ(shown->tracks.lanes.size(), after.lanes.size());
    for (size_t l = 0; l < after.lanes.size(); ++l) {
        EXPECT_EQ(shown->tracks.lanes[l].group, after.lanes[l].group);
        EXPECT_EQ(shown->tracks.lanes[l].events, after.lanes[l].events) << "lane " << l;
    }
}

TEST_F(MainWindowTest, OpensAPyTorchProfilerTrace) {
    ls::gui::MainWindow w;
    w.show();
    QSignalSpy loaded(&w, &ls::gui::MainWindow::traceLoaded);
    w.openFile(QStringLiteral(LAYERSCOPE_SOURCE_DIR
                              "/tests/data/kineto/gpt2_2layer_fp16_h200.kineto.json.gz"));
    ASSERT_TRUE(loaded.wait(30000));
    ASSERT_TRUE(w.trace());
    EXPECT_EQ(w.trace()->kernels.size(), 428u);
    EXPECT_TRUE(w.windowTitle().contains(QStringLiteral("gpt2_2layer_fp16_h200.kineto.json.gz")));
    // The summary tab lists the same kernel names as the core summary.
    const auto rows =
        ls::kernelSummary(*w.trace(), ls::KernelGrouping::Name, ls::KernelNaming::Demangled);
    EXPECT_EQ(w.summaryView()->model()->rowCount(), static_cast<int>(rows.size()));
}

TEST_F(MainWindowTest, ReportsUnreadableFileWithoutLoading) {
    QTemporaryDir dir;
    ls::gui::MainWindow w;
    QSignalSpy failed(&w, &ls::gui::MainWindow::loadFailed);
    w.openFile(dir.path() + QStringLiteral("/missing.sqlite"));
    ASSERT_TRUE(failed.wait(10000));
    EXPECT_EQ(failed.first().first().toString(), QStringLiteral("no such file"));
    EXPECT_FALSE(w.trace());
}

} // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    qputenv("LAYERSCOPE_NO_CACHE",
            "1"); // loads read the files; test_model_cache_gui turns the cache on for itself
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("LayerscopeTests"));
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
