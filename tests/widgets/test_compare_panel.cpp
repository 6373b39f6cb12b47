// The Compare tab, offscreen, as a person uses it: the fp16 batch-4 run (A) compared with the
// bf16 batch-8 run (B) of the same GPT-2. The layer rows are diffRuns' rows, the CSV export is
// what `layerscope-cli diff` prints (a separate process), Enter drills from a layer to its ops
// and Backspace comes back, a selected row outlines its kernels in both timelines, and the two
// timelines move together.
#include "core/compare/run_diff.h"
#include "core/load/load.h"
#include "widget_test_support.h"
#include "widgets/compare/compare_panel.h"
#include "widgets/compare/compare_timelines.h"
#include "widgets/compare/diff_chart.h"
#include "widgets/compare/diff_table_model.h"
#include "widgets/export/csv_export.h"
#include "widgets/window/main_window.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <gtest/gtest.h>

namespace {

using namespace ls::gui::test;
using ls::gui::ComparePanel;
using ls::gui::DiffTableModel;

const QString kShared = QStringLiteral(LAYERSCOPE_SOURCE_DIR "/../shared/traces/");
const QString kA = kShared + QStringLiteral("gpt2_2layer_fp16_h200.sqlite");
const QString kB = kShared + QStringLiteral("gpt2_2layer_bf16_b8_h200.sqlite");

bool waitShown(ComparePanel* panel) {
    QSignalSpy shown(panel, &ComparePanel::resultShown);
    return shown.wait(60000);
}

// The proxy row of the table showing model row `row`.
QModelIndex viewIndex(ComparePanel* panel, int row) {
    const auto* proxy = qobject_cast<const QAbstractProxyModel*>(panel->table()->model());
    return proxy->mapFromSource(panel->model()->index(row, 0));
}

class ComparePanelTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!QFileInfo::exists(kA) || !QFileInfo::exists(kB))
            GTEST_SKIP() << "the GPT-2 fp16/bf16 pair is absent from ../shared/traces";
        window_ = openInWindow(kA);
        ASSERT_TRUE(window_);
        panel_ = window_->comparePanel();
        QSignalSpy opened(panel_, &ComparePanel::opened);
        window_->compareWith(kB);
        ASSERT_TRUE(opened.wait(60000)) << "the comparison did not open";
        // The reference: both files loaded here and compared by core directly.
        const auto a = ls::loadTrace(kA.toStdString()), b = ls::loadTrace(kB.toStdString());
        ASSERT_TRUE(a.ok() && b.ok());
        a_.trace = a.trace;
        b_.trace = b.trace;
    }

    std::unique_ptr<ls::gui::MainWindow> window_;
    ComparePanel* panel_ = nullptr;
    ls::DiffSide a_, b_;
};

TEST_F(ComparePanelTest, LayerRowsAreDiffRunsRowsAndExportAsTheCli) {
    auto* tabs = qobject_cast<QTabWidget*>(window_->centralWidget());
    ASSERT_TRUE(tabs);
    EXPECT_EQ(tabs->currentWidget(), panel_)
        << "the Compare tab is shown once the comparison opens";
    EXPECT_EQ(panel_->options().level, ls::DiffLevel::Layer);
    EXPECT_FALSE(panel_->verdict().isEmpty());

    const DiffTableModel* model = panel_->model();
    QAbstractItemModelTester tester(panel_->model(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester proxyTester(panel_->table()->model(),
                                         QAbstractItemModelTester::FailureReportingMode::Fatal);
    const ls::DiffResult ref = ls::diffRuns(a_, b_, ls::DiffOptions{});
    ASSERT_GT(ref.rows.size(), 4u) << "two layers forward and backward, and kernels outside layers";
    ASSERT_EQ(model->rowCount(), static_cast<int>(ref.rows.size()) + 1)
        << "the rows and the totals row";
    for (size_t i = 0; i < ref.rows.size(); ++i) {
        const int r = static_cast<int>(i);
        const auto& row = ref.rows[i];
        EXPECT_EQ(model->index(r, DiffTableModel::Key)
                      .data(DiffTableModel::SortRole)
                      .toString()
                      .toStdString(),
                  row.key);
        EXPECT_EQ(model->index(r, DiffTableModel::Dir)
                      .data(DiffTableModel::SortRole)
                      .toString()
                      .toStdString(),
                  row.direction);
        EXPECT_DOUBLE_EQ(
            model->index(r, DiffTableModel::ATime).data(DiffTableModel::SortRole).toDouble(),
            row.a.gpuTimeNs)
            << row.key;
        EXPECT_DOUBLE_EQ(
            model->index(r, DiffTableModel::BTime).data(DiffTableModel::SortRole).toDouble(),
            row.b.gpuTimeNs)
            << row.key;
        EXPECT_EQ(
            model->index(r, DiffTableModel::ACount).data(DiffTableModel::SortRole).toULongLong(),
            row.a.count)
            << row.key;
    }
    const int last = model->rowCount() - 1;
    EXPECT_TRUE(model->isTotal(last));
    EXPECT_DOUBLE_EQ(
        model->index(last, DiffTableModel::BTime).data(DiffTableModel::SortRole).toDouble(),
        ref.total.b.gpuTimeNs);
    // Times are shown in µs or ms, never as raw nanoseconds.
    const QString shown = model->index(0, DiffTableModel::ATime).data().toString();
    EXPECT_TRUE(shown.endsWith(QStringLiteral(" ms")) || shown.endsWith(QStringLiteral(" µs")))
        << shown.toStdString();
    EXPECT_FALSE(model->headerData(DiffTableModel::Delta, Qt::Horizontal, Qt::ToolTipRole)
                     .toString()
                     .isEmpty());

    // Sorted either way by any column, the totals row stays last.
    for (const auto order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
        panel_->table()->sortByColumn(DiffTableModel::ATime, order);
        const auto* view = panel_->table()->model();
        EXPECT_TRUE(view->index(view->rowCount() - 1, 0).data(DiffTableModel::TotalRole).toBool());
        const double first =
            view->index(0, DiffTableModel::ATime).data(DiffTableModel::SortRole).toDouble();
        const double second =
            view->index(1, DiffTableModel::ATime).data(DiffTableModel::SortRole).toDouble();
        EXPECT_TRUE(order == Qt::AscendingOrder ? first <= second : first >= second);
    }
    panel_->table()->sortByColumn(-1, Qt::AscendingOrder); // back to the diff's own order

    // The chart: A against B for each row shown.
    EXPECT_EQ(panel_->chart()->barSetCount(), 2);
    EXPECT_EQ(panel_->chart()->shownRows().size(),
              std::min<size_t>(ref.rows.size(), ls::gui::DiffChart::kMaxGroups));

    // Export writes exactly what `layerscope-cli diff A B --by layer` writes.
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("diff.csv"));
    ASSERT_TRUE(window_->exportView(*panel_->table(), csv, false).isEmpty());
    const CliRun cli =
        runCli({QStringLiteral("diff"), kA, kB, QStringLiteral("--by"), QStringLiteral("layer")});
    ASSERT_EQ(cli.exitCode, 0) << cli.err.toStdString();
    EXPECT_EQ(QString::fromUtf8(readAll(csv)), cli.out);
    EXPECT_TRUE(cli.out.startsWith(
        QStringLiteral("key,direction,a_count,b_count,a_gpu_time_ns,b_gpu_time_ns,delta_ns,ratio,"
                       "a_flops,b_flops,a_tflops_s,b_tflops_s,a_tc,b_tc\n")));
}

TEST_F(ComparePanelTest, EnterDrillsFromALayerToItsOpsAndBackspaceComesBack) {
    const DiffTableModel* model = panel_->model();
    QAbstractItemModelTester tester(panel_->model(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    int layerRow = -1;
    for (int r = 0; r + 1 < model->rowCount() && layerRow < 0; ++r)
        if (model->rowAt(r)->key == "layer0" && model->rowAt(r)->direction == "backward")
            layerRow = r;
    ASSERT_GE(layerRow, 0) << "a layer0 backward row";
    const ls::DiffRow layer = *model->rowAt(layerRow);

    QTableView* table = panel_->table();
    table->setFocus();
    table->setCurrentIndex(viewIndex(panel_, layerRow));
    QTest::keyClick(table, Qt::Key_Return);
    ASSERT_TRUE(waitShown(panel_));
    EXPECT_EQ(panel_->options().level, ls::DiffLevel::Op);
    ASSERT_TRUE(panel_->options().scope.layer.has_value());
    EXPECT_EQ(*panel_->options().scope.layer, "layer0");
    EXPECT_EQ(panel_->options().scope.direction, ls::Direction::Backward);
    EXPECT_EQ(panel_->depth(), 1u);
    EXPECT_TRUE(panel_->breadcrumb().contains(QStringLiteral("layer0 backward: ops")))
        << panel_->breadcrumb().toStdString();
    // The ops are the layer's own: what diffRuns gives at the op level in that scope, adding up
    // to the layer row's time.
    ls::DiffOptions opOptions;
    opOptions.level = ls::DiffLevel::Op;
    opOptions.scope = layer.scope;
    const ls::DiffResult ops = ls::diffRuns(a_, b_, opOptions);
    ASSERT_EQ(model->rowCount(), static_cast<int>(ops.rows.size()) + 1);
    EXPECT_GT(ops.rows.size(), 3u);
    EXPECT_EQ(model->columnCount(), DiffTableModel::BShapes + 1) << "the op level shows the shapes";
    double a = 0;
    for (int r = 0; r + 1 < model->rowCount(); ++r) {
        EXPECT_EQ(model->rowAt(r)->direction, "backward");
        a += model->rowAt(r)->a.gpuTimeNs;
    }
    EXPECT_NEAR(a, layer.a.gpuTimeNs, 1e-6 * layer.a.gpuTimeNs);

    // An op drills to its kernels; Backspace goes back up step by step, selecting the row left.
    ASSERT_TRUE(panel_->drillDown(0));
    ASSERT_TRUE(waitShown(panel_));
    EXPECT_EQ(panel_->options().level, ls::DiffLevel::Kernel);
    EXPECT_TRUE(panel_->options().scope.op.has_value());
    EXPECT_FALSE(panel_->drillDown(0)) << "kernels are the bottom";
    table->setFocus();
    QTest::keyClick(table, Qt::Key_Backspace);
    ASSERT_TRUE(waitShown(panel_));
    EXPECT_EQ(panel_->options().level, ls::DiffLevel::Op);
    QTest::keyClick(table, Qt::Key_Backspace);
    ASSERT_TRUE(waitShown(panel_));
    EXPECT_EQ(panel_->options().level, ls::DiffLevel::Layer);
    EXPECT_EQ(panel_->depth(), 0u);
    EXPECT_FALSE(panel_->options().scope.layer.has_value());
    const QModelIndex current = table->currentIndex();
    ASSERT_TRUE(current.isValid());
    EXPECT_EQ(
        current.siblingAtColumn(DiffTableModel::Key).data(DiffTableModel::SortRole).toString(),
        QStringLiteral("layer0"));
}

TEST_F(ComparePanelTest, SelectingARowOutlinesItsKernelsInBothTimelines) {
    const DiffTableModel* model = panel_->model();
    int layerRow = -1;
    for (int r = 0; r + 1 < model->rowCount() && layerRow < 0; ++r)
        if (model->rowAt(r)->key == "layer1" && model->rowAt(r)->direction == "forward")
            layerRow = r;
    ASSERT_GE(layerRow, 0);
    const ls::DiffRow row = *model->rowAt(layerRow);
    panel_->table()->setCurrentIndex(viewIndex(panel_, layerRow));

    auto* viewA = panel_->timelines()->viewA();
    auto* viewB = panel_->timelines()->viewB();
    const auto expectedA = ls::diffRowKernels(a_, panel_->shown()->options, row);
    const auto expectedB = ls::diffRowKernels(b_, panel_->shown()->options, row);
    ASSERT_FALSE(expectedA.empty());
    ASSERT_FALSE(expectedB.empty());
    EXPECT_EQ(viewA->highlighted().size(), expectedA.size());
    EXPECT_EQ(viewB->highlighted().size(), expectedB.size());
    EXPECT_EQ(viewA->highlighted().size(), row.a.count);
    EXPECT_EQ(viewB->highlighted().size(), row.b.count);
    for (ls::KernelId k : viewB->highlighted()) {
        const auto& links = b_.trace->kernelLinks;
        ASSERT_TRUE(links.layer[k.value].valid());
        EXPECT_EQ(b_.trace->str(links.layer[k.value]), "layer1");
        EXPECT_EQ(links.direction[k.value], ls::Direction::Forward);
    }

    // The other timeline follows a zoom or pan, shifted by the difference of the aligned starts.
    const auto* timelines = panel_->timelines();
    EXPECT_NE(timelines->alignA(), timelines->alignB()) << "two captures, two clocks";
    viewA->setWindow(timelines->alignA() + 1e6, timelines->alignA() + 3e6);
    EXPECT_NEAR(viewB->window().startNs, timelines->alignB() + 1e6, 1.0);
    EXPECT_NEAR(viewB->window().endNs(), viewA->window().endNs() + timelines->offsetNs(), 1.0);
    viewB->panBy(100);
    EXPECT_NEAR(viewA->window().startNs, viewB->window().startNs - timelines->offsetNs(), 1.0);
}

TEST_F(ComparePanelTest, FamilyLevelPerSampleAndRowsOfOneRunOnly) {
    const DiffTableModel* model = panel_->model();
    QAbstractItemModelTester tester(panel_->model(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    panel_->setLevel(ls::DiffLevel::Family);
    ASSERT_TRUE(waitShown(panel_));
    EXPECT_EQ(panel_->levelBox()->currentText(), QStringLiteral("Kernel family"));
    EXPECT_EQ(model->headerData(DiffTableModel::Key, Qt::Horizontal, Qt::DisplayRole).toString(),
              QStringLiteral("Kernel family"));
    // A row of one run only says so, and its background sets it apart.
    int marked = 0;
    for (int r = 0; r + 1 < model->rowCount(); ++r) {
        const ls::DiffRow* row = model->rowAt(r);
        const QString key = model->index(r, DiffTableModel::Key).data().toString();
        const bool onlyA = row->b.count == 0, onlyB = row->a.count == 0;
        EXPECT_EQ(key.endsWith(QStringLiteral("[only in A]")), onlyA) << key.toStdString();
        EXPECT_EQ(key.endsWith(QStringLiteral("[only in B]")), onlyB) << key.toStdString();
        EXPECT_EQ(model->index(r, DiffTableModel::BTime).data(Qt::BackgroundRole).isValid(),
                  onlyA || onlyB)
            << key.toStdString();
        marked += onlyA || onlyB;
    }
    EXPECT_GT(marked, 0)
        << "fp16 and bf16 runs have kernels the other lacks (the optimizer's multi-tensor kernel)";

    // Per sample: batch 4 against batch 8 of one model, so the forward GEMMs' FLOPs per sample are
    // equal; the line under the verdict says what the times were divided by.
    panel_->perSampleBox()->setChecked(true);
    ASSERT_TRUE(waitShown(panel_));
    EXPECT_TRUE(panel_->options().perSample);
    EXPECT_EQ(panel_->shown()->diff.batchA, 4);
    EXPECT_EQ(panel_->shown()->diff.batchB, 8);
    const ls::DiffRow* gemm = nullptr;
    for (int r = 0; r + 1 < model->rowCount(); ++r)
        if (model->rowAt(r)->key == "GEMM (cuBLAS/CUTLASS)" &&
            model->rowAt(r)->direction == "forward")
            gemm = model->rowAt(r);
    ASSERT_TRUE(gemm);
    EXPECT_NEAR(gemm->a.flops, gemm->b.flops, 1e-9 * gemm->a.flops);
}

TEST(ComparePanel, AnUnreadableSecondRunIsOneLineInTheStatusBar) {
    const auto w = openInWindow(samplePath());
    ASSERT_TRUE(w);
    QSignalSpy status(w->comparePanel(), &ComparePanel::statusMessage);
    const QString missing = QStringLiteral(LAYERSCOPE_SOURCE_DIR "/no-such-run.sqlite");
    w->compareWith(missing);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return !status.isEmpty() && status.last().at(0).toString().startsWith(QStringLiteral(
                                            "Could not compare with no-such-run.sqlite: "));
        },
        30000));
    EXPECT_FALSE(status.last().at(0).toString().contains(QLatin1Char('\n')));
    EXPECT_FALSE(w->comparePanel()->isOpen());
    auto* tabs = qobject_cast<QTabWidget*>(w->centralWidget());
    EXPECT_LT(tabs->indexOf(w->comparePanel()), 0) << "no Compare tab without a comparison";
    EXPECT_EQ(ComparePanel::lastComparedFile(), missing);
}

} // namespace
