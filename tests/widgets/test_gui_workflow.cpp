// The main window used as a person would: open the sample, click a layer in the tree, read the
// kernel table, filter, sort, select, copy, export; checked against layerscope-cli (a separate
// process) and core queries.
#include "core/pytorch/correlation.h"
#include "core/views/time_breakdown.h"
#include "tests/widgets/widget_test_support.h"
#include "widgets/panes/summary_charts.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/tables/layer_tree_model.h"
#include "widgets/window/main_window.h"

#include <QAbstractBarSeries>
#include <QApplication>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>
#include <gtest/gtest.h>
#include <set>

namespace {

using ls::KernelField;
using ls::KernelId;
using ls::gui::KernelTableModel;
using ls::gui::LayerTreeModel;
using ls::gui::MainWindow;
using namespace ls::gui::test;

class GuiWorkflow : public ::testing::Test {
  protected:
    void SetUp() override {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        window_ = std::make_unique<MainWindow>();
        window_->resize(1400, 900);
        window_->show();
        QSignalSpy loaded(window_.get(), &MainWindow::traceLoaded);
        window_->openFile(samplePath());
        ASSERT_TRUE(loaded.wait(30000));
    }
    void TearDown() override { window_.reset(); }

    // The tree index of a node found by its path of names under the root.
    QModelIndex findNode(const QStringList& path) const {
        auto* model = window_->layerModel();
        QModelIndex parent;
        for (const QString& name : path) {
            QModelIndex found;
            for (int r = 0; r < model->rowCount(parent); ++r)
                if (model->index(r, 0, parent).data().toString() == name)
                    found = model->index(r, 0, parent);
            if (!found.isValid()) return {};
            parent = found;
        }
        return parent;
    }

    void clickTreeRow(const QModelIndex& index) {
        QTreeView* tree = window_->layerView();
        tree->expand(index.parent());
        tree->scrollTo(index);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualRect(index).center());
    }

    // Shows every column in catalog order, so an export has the CLI's columns.
    void showAllColumnsInOrder() {
        auto* header = window_->kernelView()->table()->horizontalHeader();
        for (int c = 0; c < header->count(); ++c) {
            header->setSectionHidden(c, false);
            header->moveSection(header->visualIndex(c), c);
        }
    }

    std::set<uint32_t> shownKernels() const {
        std::set<uint32_t> out;
        for (KernelId k : window_->kernelModel()->rows()) out.insert(k.value);
        return out;
    }

    std::unique_ptr<MainWindow> window_;
};

TEST_F(GuiWorkflow, ClickingALayerShowsItsKernelsInBothDirections) {
    const QModelIndex layer0 = findNode(
        {QStringLiteral("iteration 2"), QStringLiteral("forward"), QStringLiteral("layer0")});
    ASSERT_TRUE(layer0.isValid());
    clickTreeRow(layer0);
    const auto cli = runCli({QStringLiteral("kernels"), samplePath(), QStringLiteral("--layer"),
                             QStringLiteral("layer0")});
    ASSERT_EQ(cli.exitCode, 0) << cli.err.toStdString();
    const auto rows = parseCsv(cli.out);
    ASSERT_GT(rows.size(), 1u);
    std::set<uint32_t> expected;
    for (size_t r = 1; r < rows.size(); ++r) expected.insert(rows[r][0].toUInt());
    EXPECT_EQ(shownKernels(), expected);
    // Forward and backward are both there, as the sample's layer_sum says: 24 + 42 kernels.
    const auto& t = *window_->trace();
    int forward = 0, backward = 0;
    for (KernelId k : window_->kernelModel()->rows()) {
        forward += t.kernelLinks.direction[k.value] == ls::Direction::Forward;
        backward += t.kernelLinks.direction[k.value] == ls::Direction::Backward;
    }
    EXPECT_EQ(forward, 24);
    EXPECT_EQ(backward, 42);
    EXPECT_TRUE(window_->kernelModel()->scopeLabel().contains(QStringLiteral("layer0")));
}

TEST_F(GuiWorkflow, TreeRowNumbersAddUpAndMatchTheCli) {
    auto* model = window_->layerModel();
    const QModelIndex iteration = findNode({QStringLiteral("iteration 2")});
    ASSERT_TRUE(iteration.isValid());
    // The iteration holds every kernel of the sample: 214, and its GPU time is the SQL sum.
    EXPECT_EQ(model->index(iteration.row(), LayerTreeModel::Kernels, iteration.parent())
                  .data(LayerTreeModel::SortRole)
                  .toULongLong(),
              214u);
    const qulonglong gpu =
        model->index(iteration.row(), LayerTreeModel::GpuTime, iteration.parent())
            .data(LayerTreeModel::SortRole)
            .toULongLong();
    EXPECT_EQ(gpu, sqlKernelTimeNs(samplePath()));
    qulonglong sum = 0;
    for (int r = 0; r < model->rowCount(iteration); ++r)
        sum += model->index(r, LayerTreeModel::GpuTime, iteration)
                   .data(LayerTreeModel::SortRole)
                   .toULongLong();
    EXPECT_EQ(sum, gpu);
    // layer0 under forward = layer_sum's (layer0, forward) row.
    const QModelIndex layer0 = findNode(
        {QStringLiteral("iteration 2"), QStringLiteral("forward"), QStringLiteral("layer0")});
    const auto layerSum = parseCsv(runCli({QStringLiteral("summary"), samplePath(),
                                           QStringLiteral("--report"), QStringLiteral("layer_sum")})
                                       .out);
    bool seen = false;
    for (const auto& row : layerSum)
        if (row[0] == QStringLiteral("layer0") && row[1] == QStringLiteral("forward")) {
            seen = true;
            EXPECT_EQ(model->index(layer0.row(), LayerTreeModel::Kernels, layer0.parent())
                          .data(LayerTreeModel::SortRole)
                          .toString(),
                      row[2]);
            EXPECT_EQ(model->index(layer0.row(), LayerTreeModel::GpuTime, layer0.parent())
                          .data(LayerTreeModel::SortRole)
                          .toString(),
                      row[3]);
        }
    EXPECT_TRUE(seen);
}

TEST_F(GuiWorkflow, ExportedCsvEqualsCliForTheSameFilterAndSort) {
    showAllColumnsInOrder();
    const QString filter = QStringLiteral("duration > 10us and direction = backward");
    window_->kernelView()->applyFilter(filter);
    window_->kernelView()->table()->sortByColumn(static_cast<int>(KernelField::Duration),
                                                 Qt::DescendingOrder);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("kernels.csv"));
    ASSERT_EQ(window_->exportView(*window_->kernelView()->table(), path, false), QString());
    const auto cli =
        runCli({QStringLiteral("kernels"), samplePath(), QStringLiteral("--filter"), filter,
                QStringLiteral("--sort"), QStringLiteral("duration_ns"), QStringLiteral("--desc")});
    ASSERT_EQ(cli.exitCode, 0) << cli.err.toStdString();
    const QByteArray exported = readAll(path);
    EXPECT_GT(exported.count('\n'), 5);
    EXPECT_EQ(exported, cli.out.toUtf8());
}

TEST_F(GuiWorkflow, ExportOfALayerEqualsCliLayerOption) {
    showAllColumnsInOrder();
    clickTreeRow(findNode(
        {QStringLiteral("iteration 2"), QStringLiteral("forward"), QStringLiteral("layer1")}));
    window_->kernelView()->table()->sortByColumn(static_cast<int>(KernelField::Id),
                                                 Qt::AscendingOrder);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("layer1.csv"));
    ASSERT_EQ(window_->exportView(*window_->kernelView()->table(), path, false), QString());
    const auto cli = runCli({QStringLiteral("kernels"), samplePath(), QStringLiteral("--layer"),
                             QStringLiteral("layer1")});
    EXPECT_EQ(readAll(path), cli.out.toUtf8());
}

TEST_F(GuiWorkflow, ExportsOnlySelectedRowsInViewOrderWithVisibleColumns) {
    auto* view = window_->kernelView()->table();
    auto* header = view->horizontalHeader();
    for (int c = 0; c < header->count(); ++c) header->setSectionHidden(c, true);
    header->setSectionHidden(static_cast<int>(KernelField::Name), false);
    header->setSectionHidden(static_cast<int>(KernelField::Duration), false);
    header->moveSection(header->visualIndex(static_cast<int>(KernelField::Name)),
                        0); // name first, then duration
    view->sortByColumn(static_cast<int>(KernelField::Duration), Qt::DescendingOrder);
    view->selectionModel()->select(
        QItemSelection(view->model()->index(1, 0), view->model()->index(3, 0)),
        QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("selected.csv"));
    ASSERT_EQ(window_->exportView(*view, path, true), QString());
    const auto rows = parseCsv(QString::fromUtf8(readAll(path)));
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0], (QStringList{QStringLiteral("name"), QStringLiteral("duration_ns")}));
    // The 2nd..4th longest kernels, longest first, with raw ns.
    const auto& t = *window_->trace();
    std::vector<int64_t> durations;
    for (size_t k = 0; k < t.kernels.size(); ++k) durations.push_back(t.kernels.duration(k));
    std::sort(durations.rbegin(), durations.rend());
    for (int r = 1; r <= 3; ++r)
        EXPECT_EQ(rows[static_cast<size_t>(r)][1].toLongLong(), durations[static_cast<size_t>(r)]);
    // Ctrl+C copies the same rows as TSV.
    view->setFocus();
    QTest::keyClick(view, Qt::Key_C, Qt::ControlModifier);
    const QStringList lines =
        QApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    ASSERT_EQ(lines.size(), 4);
    EXPECT_EQ(lines[0], QStringLiteral("name\tduration_ns"));
    EXPECT_TRUE(lines[1].endsWith(QString::number(durations[1])));
}

TEST_F(GuiWorkflow, LayerTreeExportsEveryNodeDepthFirstWithRawNumbers) {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("layers.csv"));
    ASSERT_EQ(window_->exportView(*window_->layerView(), path, false), QString());
    const auto rows = parseCsv(QString::fromUtf8(readAll(path)));
    const auto& tree = *window_->views()->layers;
    ASSERT_EQ(rows.size(), tree.size()); // header + every node but the hidden root
    EXPECT_EQ(rows[0].mid(0, 4),
              (QStringList{QStringLiteral("depth"), QStringLiteral("name"),
                           QStringLiteral("kernels"), QStringLiteral("gpu_time_ns")}));
    EXPECT_EQ(rows[1][1], QStringLiteral("iteration 2"));
    EXPECT_EQ(rows[1][0], QStringLiteral("0"));
    EXPECT_EQ(rows[1][2], QStringLiteral("214"));
    EXPECT_EQ(rows[1][3].toULongLong(), sqlKernelTimeNs(samplePath()));
    EXPECT_EQ(rows[2][1], QStringLiteral("forward"));
    EXPECT_EQ(rows[2][0], QStringLiteral("1"));
}

TEST_F(GuiWorkflow, SortingIsMonotonicOnTheSortRole) {
    auto* view = window_->kernelView()->table();
    for (KernelField f :
         {KernelField::Flops, KernelField::Name, KernelField::Start, KernelField::TflopsS}) {
        view->sortByColumn(static_cast<int>(f), Qt::AscendingOrder);
        auto* m = view->model();
        QVariant previous;
        for (int r = 0; r < m->rowCount(); ++r) {
            const QVariant v = m->index(r, static_cast<int>(f)).data(KernelTableModel::SortRole);
            if (!v.isValid()) {
                // Unknown cells come last: everything after is unknown too.
                for (int s = r; s < m->rowCount(); ++s)
                    EXPECT_FALSE(m->index(s, static_cast<int>(f))
                                     .data(KernelTableModel::SortRole)
                                     .isValid());
                break;
            }
            if (previous.isValid()) {
                if (v.typeId() == QMetaType::QString)
                    EXPECT_LE(previous.toString().toUtf8(), v.toString().toUtf8()) << r;
                else
                    EXPECT_LE(previous.toDouble(), v.toDouble()) << r;
            }
            previous = v;
        }
    }
}

TEST_F(GuiWorkflow, BadFilterShowsErrorAndKeepsRows) {
    const int before = window_->kernelModel()->rowCount();
    auto* edit = window_->kernelView()->filterEdit();
    edit->setFocus();
    QTest::keyClicks(edit, QStringLiteral("durtion > 5us"));
    QTest::keyClick(edit, Qt::Key_Return);
    EXPECT_EQ(window_->kernelModel()->rowCount(), before);
    auto labels = window_->kernelView()->findChildren<QLabel*>();
    bool shown = false;
    for (QLabel* l : labels) shown |= l->text().contains(QStringLiteral("unknown column"));
    EXPECT_TRUE(shown);
    edit->clear();
    QTest::keyClicks(edit, QStringLiteral("gemm"));
    QTest::keyClick(edit, Qt::Key_Return);
    EXPECT_GT(window_->kernelModel()->rowCount(), 0);
    EXPECT_LT(window_->kernelModel()->rowCount(), before);
}

TEST_F(GuiWorkflow, SelectingAKernelShowsDetailsAndFollowsInTheTree) {
    const auto& t = *window_->trace();
    // A backward GEMM kernel: its op is paired with a forward op.
    KernelId chosen;
    for (uint32_t k = 0; k < t.kernels.size() && !chosen.valid(); ++k) {
        const ls::OpId op = t.kernelLinks.opInstance[k];
        if (op.valid() && t.ops.direction[op.value] == ls::Direction::Backward &&
            t.ops.paired[op.value].valid() && t.kernelLinks.layer[k].valid() &&
            t.str(t.kernelLinks.layer[k]) == "layer1")
            chosen = KernelId(k);
    }
    ASSERT_TRUE(chosen.valid());
    ASSERT_TRUE(window_->kernelView()->selectKernel(chosen));
    const QString html =
        window_->detailsView()->toPlainText().remove(QChar(0x200B)); // the break opportunities
    EXPECT_TRUE(html.contains(
        QString::fromStdString(std::string(t.str(t.kernels.name[chosen.value])).substr(0, 30))));
    EXPECT_TRUE(html.contains(QStringLiteral("Forward op")));
    EXPECT_TRUE(html.contains(QStringLiteral("Tensor Cores")));
    EXPECT_TRUE(html.contains(QStringLiteral("Grid")));
    // The tree follows: its current node is the kernel's leaf, under backward → layer1.
    const QModelIndex current = window_->layerView()->currentIndex();
    ASSERT_TRUE(current.isValid());
    EXPECT_EQ(window_->layerModel()->nodeOf(current),
              window_->views()->layers->kernelNode[chosen.value]);
    EXPECT_EQ(current.parent().data().toString(), QStringLiteral("layer1"));
    EXPECT_EQ(current.parent().parent().data().toString(), QStringLiteral("backward"));
    // ...without narrowing the table to that node.
    EXPECT_FALSE(window_->kernelModel()->hasScope());
}

TEST_F(GuiWorkflow, CounterpartShowsThePairedOpsKernels) {
    const auto& t = *window_->trace();
    KernelId forward;
    for (uint32_t k = 0; k < t.kernels.size() && !forward.valid(); ++k) {
        const ls::OpId op = t.kernelLinks.opInstance[k];
        if (op.valid() && t.ops.direction[op.value] == ls::Direction::Forward &&
            t.ops.paired[op.value].valid() &&
            t.str(t.ranges.name[t.ops.range[op.value].value]) == "aten::linear")
            forward = KernelId(k);
    }
    ASSERT_TRUE(forward.valid());
    emit window_->kernelView()->showCounterpart(forward);
    const ls::OpId backward = t.ops.paired[t.kernelLinks.opInstance[forward.value].value];
    std::set<uint32_t> expected;
    for (KernelId k : ls::kernelsOfOp(t, backward)) expected.insert(k.value);
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(shownKernels(), expected);
}

TEST_F(GuiWorkflow, ChartBarClickFiltersTheTable) {
    std::vector<QBarSet*> sets;
    for (QChartView* view : window_->charts()->findChildren<QChartView*>())
        for (QAbstractSeries* series : view->chart()->series())
            if (auto* bars = qobject_cast<QAbstractBarSeries*>(series))
                sets.push_back(bars->barSets().first());
    ASSERT_EQ(sets.size(), 4u);
    // The direction chart (second row, first column) lists directions bottom to top.
    const auto shares = ls::gpuTimeByDirection(*window_->trace());
    QBarSet* directions = sets[2];
    ASSERT_EQ(directions->count(), static_cast<int>(shares.size()));
    emit directions->clicked(0); // the bottom bar: the last share
    EXPECT_EQ(window_->kernelView()->filterEdit()->text().toStdString(), shares.back().filter);
    EXPECT_EQ(static_cast<uint64_t>(window_->kernelModel()->rowCount()), shares.back().kernels);
    const QString text = window_->kernelView()->filterEdit()->text();
    ASSERT_FALSE(text.isEmpty());
    const auto cli =
        runCli({QStringLiteral("kernels"), samplePath(), QStringLiteral("--filter"), text});
    EXPECT_EQ(static_cast<int>(parseCsv(cli.out).size()) - 1, window_->kernelModel()->rowCount())
        << text.toStdString();
}

TEST(GuiSettings, ColumnsAndDockLayoutPersist) {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    {
        MainWindow w;
        w.show();
        w.kernelView()->table()->horizontalHeader()->setSectionHidden(
            static_cast<int>(KernelField::Tid), false);
        w.findChild<QDockWidget*>(QStringLiteral("detailsDock"))->hide();
        w.close();
    }
    MainWindow again;
    again.show();
    EXPECT_FALSE(again.kernelView()->table()->horizontalHeader()->isSectionHidden(
        static_cast<int>(KernelField::Tid)));
    EXPECT_FALSE(again.findChild<QDockWidget*>(QStringLiteral("detailsDock"))->isVisible());
}

TEST(GuiLoading, CancelledLoadKeepsTheWindowEmpty) {
    QStandardPaths::setTestModeEnabled(true);
    MainWindow w;
    w.show();
    QSignalSpy loaded(&w, &MainWindow::traceLoaded);
    w.openFile(samplePath());
    // The status bar's Cancel (the start page has buttons of its own, Open File… first).
    auto* cancel = w.statusBar()->findChild<QPushButton*>();
    ASSERT_NE(cancel, nullptr);
    ASSERT_EQ(cancel->text(), QStringLiteral("Cancel"));
    QTest::mouseClick(cancel, Qt::LeftButton);
    QTest::qWait(1500);
    EXPECT_EQ(loaded.count(), 0);
    EXPECT_FALSE(w.trace());
    EXPECT_EQ(w.kernelModel()->rowCount(), 0);
}

TEST(GuiLoading, NotATraceGivesOneLineError) {
    QStandardPaths::setTestModeEnabled(true);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("notes.sqlite"));
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("this is not a database\n");
    f.close();
    MainWindow w;
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    w.openFile(path);
    ASSERT_TRUE(failed.wait(10000));
    const QString reason = failed.first().first().toString();
    EXPECT_FALSE(reason.isEmpty());
    EXPECT_FALSE(reason.contains(QLatin1Char('\n')));
    EXPECT_FALSE(w.trace());
    EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files),
              QStringList{QStringLiteral("notes.sqlite")}); // nothing written beside it
}

} // namespace
