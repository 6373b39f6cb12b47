// The Forward/Backward tab offscreen: models under QAbstractItemModelTester; clicking a forward
// op selects its backward node and lists both sides' kernels (core's kernelsOfOp), and back.
#include "core/load/load.h"
#include "core/pytorch/correlation.h"
#include "tests/widgets/widget_test_support.h"
#include "widgets/panes/fwd_bwd_models.h"
#include "widgets/panes/fwd_bwd_panel.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/window/main_window.h"

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <gtest/gtest.h>
#include <set>

namespace {

using ls::gui::FwdBwdPanel;
using ls::gui::OpSideModel;

std::set<uint32_t> ids(const std::vector<ls::KernelId>& v) {
    std::set<uint32_t> out;
    for (auto k : v) out.insert(k.value);
    return out;
}

std::set<uint32_t> ids(const ls::gui::KernelTableModel& m) { return ids(m.rows()); }

TEST(FwdBwdModels, PassModelTester) {
    auto loaded = ls::loadTrace(ls::gui::test::samplePath().toStdString());
    ASSERT_TRUE(loaded.ok());
    auto pairs = std::make_shared<const ls::FwdBwdPairs>(ls::buildFwdBwdPairs(*loaded.trace));
    for (auto side : {OpSideModel::Side::Forward, OpSideModel::Side::Backward}) {
        OpSideModel model(side);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::Fatal);
        model.setPairs(loaded.trace, pairs);
        EXPECT_EQ(model.rowCount(),
                  static_cast<int>(side == OpSideModel::Side::Forward ? pairs->forward.size()
                                                                      : pairs->backward.size()));
        model.setPairs(nullptr, nullptr);
        EXPECT_EQ(model.rowCount(), 0);
    }
    ls::gui::FwdBwdRatioModel ratios;
    QAbstractItemModelTester tester(&ratios, QAbstractItemModelTester::FailureReportingMode::Fatal);
    ratios.setRows(ls::fwdBwdByLayer(*loaded.trace), QStringLiteral("Layer"));
    EXPECT_GT(ratios.rowCount(), 1);
}

TEST(FwdBwdPanelInWindow, ClickingAForwardOpSelectsItsBackwardNodeAndBothKernelLists) {
    const auto window = ls::gui::test::openInWindow(ls::gui::test::samplePath());
    ASSERT_TRUE(window);
    ls::gui::MainWindow& w = *window;
    FwdBwdPanel* panel = w.fwdBwdPanel();
    const auto& t = *w.trace();
    const auto& pairs = *w.views()->pairs;
    // The first aten::linear of layer0.
    uint32_t row = UINT32_MAX;
    for (uint32_t r = 0; r < pairs.forward.size() && row == UINT32_MAX; ++r) {
        const ls::OpId op = pairs.forward[r].op;
        if (t.str(t.ranges.name[t.ops.range[op.value].value]) == "aten::linear" &&
            t.ops.layer[op.value].valid() && t.str(t.ops.layer[op.value]) == "layer0")
            row = r;
    }
    ASSERT_NE(row, UINT32_MAX);
    ASSERT_EQ(pairs.forward[row].partners.size(), 1u);
    QTableView* forward = panel->forwardView();
    auto* forwardModel =
        static_cast<const OpSideModel*>(forward->model()); // its rows are in sort order
    const QModelIndex index = forwardModel->index(forwardModel->modelRow(row), 0);
    forward->scrollTo(index);
    QTest::mouseClick(forward->viewport(), Qt::LeftButton, {}, forward->visualRect(index).center());

    const QModelIndexList selected = panel->backwardView()->selectionModel()->selectedRows();
    ASSERT_EQ(selected.size(), 1);
    const uint32_t node = static_cast<const OpSideModel*>(panel->backwardView()->model())
                              ->pairRow(selected.front().row());
    EXPECT_EQ(node, pairs.forward[row].partners.front());
    EXPECT_EQ(ids(*panel->forwardKernels()), ids(ls::kernelsOfOp(t, pairs.forward[row].op)));
    EXPECT_EQ(ids(*panel->backwardKernels()), ids(ls::kernelsOfOp(t, pairs.backward[node].op)));
    EXPECT_FALSE(panel->backwardKernels()->rows().empty());

    // And back: selecting a backward node selects its forward op.
    panel->forwardView()->clearSelection();
    ASSERT_TRUE(panel->selectOp(pairs.backward[node].op));
    const QModelIndexList back = panel->forwardView()->selectionModel()->selectedRows();
    ASSERT_EQ(back.size(), 1);
    EXPECT_EQ(forwardModel->pairRow(back.front().row()), row);

    // The ratio table exports like the others: raw numbers under machine names.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("ratios.csv"));
    ASSERT_EQ(w.exportView(*panel->ratioView(), path, false), QString());
    const auto csv = ls::gui::test::parseCsv(QString::fromUtf8(ls::gui::test::readAll(path)));
    ASSERT_GE(csv.size(), 3u);
    EXPECT_EQ(csv[0].mid(0, 4), (QStringList{QStringLiteral("layer"), QStringLiteral("forward_ns"),
                                             QStringLiteral("backward_ns"),
                                             QStringLiteral("backward_forward_ratio")}));
    for (size_t r = 1; r < csv.size(); ++r)
        if (csv[r][0] == QStringLiteral("layer0")) {
            EXPECT_EQ(csv[r][1], QStringLiteral("111968")); // layer_sum: layer0 forward
            EXPECT_EQ(csv[r][2], QStringLiteral("223774")); // layer_sum: layer0 backward
        }
}

TEST(FwdBwdPanelInWindow, LayerFilterKeepsThatLayersOps) {
    QStandardPaths::setTestModeEnabled(true);
    ls::gui::MainWindow w;
    QSignalSpy loaded(&w, &ls::gui::MainWindow::traceLoaded);
    w.openFile(ls::gui::test::samplePath());
    ASSERT_TRUE(loaded.wait(30000));
    FwdBwdPanel* panel = w.fwdBwdPanel();
    panel->showLayer(QStringLiteral("layer1"));
    const auto& t = *w.trace();
    const auto& pairs = *w.views()->pairs;
    int expected = 0;
    for (const auto& f : pairs.forward)
        expected += t.ops.layer[f.op.value].valid() && t.str(t.ops.layer[f.op.value]) == "layer1";
    QAbstractItemModel* model = panel->forwardView()->model();
    EXPECT_EQ(model->rowCount(), expected);
    EXPECT_GT(expected, 5);
    // Sorted again, still that layer's rows only; then every layer's again.
    panel->forwardView()->sortByColumn(OpSideModel::Kernels, Qt::AscendingOrder);
    ASSERT_EQ(model->rowCount(), expected);
    for (int r = 0; r < model->rowCount(); ++r)
        EXPECT_EQ(model->index(r, OpSideModel::Layer).data().toString(), QStringLiteral("layer1"));
    // Pair rows and model rows map both ways in the filtered order (what selection links use);
    // another layer's rows have no model row.
    const auto* side = static_cast<const OpSideModel*>(model);
    for (int r = 0; r < model->rowCount(); ++r) EXPECT_EQ(side->modelRow(side->pairRow(r)), r);
    for (uint32_t p = 0; p < pairs.forward.size(); ++p) {
        const ls::StringId layer = t.ops.layer[pairs.forward[p].op.value];
        if (!layer.valid() || t.str(layer) != "layer1") {
            EXPECT_EQ(side->modelRow(p), -1);
        }
    }
    panel->showLayer(QString());
    EXPECT_EQ(model->rowCount(), static_cast<int>(pairs.forward.size()));
    for (int r = 0; r < model->rowCount(); ++r) EXPECT_EQ(side->modelRow(side->pairRow(r)), r);
}

} // namespace

namespace {

// The op tables sort their numeric columns from the rows themselves (OpSideModel::sort): in every
// numeric column, both directions, the shown order agrees with the values the model gives for
// sorting and CSV (SortRole), unknown values below every number.
TEST(FwdBwdPanelInWindow, NumericColumnsSortAsTheirSortRoleValues) {
    const auto w = ls::gui::test::openInWindow(ls::gui::test::samplePath());
    ASSERT_TRUE(w);
    for (QTableView* view : {w->fwdBwdPanel()->forwardView(), w->fwdBwdPanel()->backwardView()}) {
        auto* proxy = view->model();
        ASSERT_GT(proxy->rowCount(), 10);
        for (int column : {OpSideModel::Kernels, OpSideModel::GpuTime, OpSideModel::Flops,
                           OpSideModel::Tflops, OpSideModel::TcShare})
            for (Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
                view->sortByColumn(column, order);
                auto valueAt = [&](int row) {
                    const QVariant v = proxy->index(row, column).data(OpSideModel::SortRole);
                    return v.isNull() ? -INFINITY : v.toDouble();
                };
                for (int r = 1; r < proxy->rowCount(); ++r) {
                    if (order == Qt::AscendingOrder)
                        EXPECT_LE(valueAt(r - 1), valueAt(r))
                            << "column " << column << " row " << r;
                    else
                        EXPECT_GE(valueAt(r - 1), valueAt(r))
                            << "column " << column << " row " << r;
                }
            }
        // Text columns by their characters, as the cells read.
        for (int column : {OpSideModel::Name, OpSideModel::Layer, OpSideModel::Shapes}) {
            view->sortByColumn(column, Qt::AscendingOrder);
            for (int r = 1; r < proxy->rowCount(); ++r)
                EXPECT_LE(proxy->index(r - 1, column).data().toString(),
                          proxy->index(r, column).data().toString())
                    << "column " << column << " row " << r;
        }
    }
}

} // namespace
