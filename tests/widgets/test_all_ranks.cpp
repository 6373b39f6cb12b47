// "All ranks" in the kernel table and the layer tree of a session, offscreen: every rank's
// kernels in one table whose CSV equals `layerscope-cli kernels FILE FILE`, sorts across ranks
// checked against SQL over both files, a layer tree with one row per rank whose counts and GPU
// times are SQL's, and a row of another rank selected on the timeline in that rank's rows.
#include "widget_test_support.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/tables/layer_tree_model.h"
#include "widgets/timeline/timeline_area.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/window/main_window.h"

#include <QAction>
#include <QComboBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QImage>
#include <QKeySequence>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTreeView>
#include <algorithm>
#include <gtest/gtest.h>
#include <sqlite3.h>

namespace {

using namespace ls::gui::test;
using ls::KernelField;
using ls::KernelId;
using ls::gui::MainWindow;

const QString kOurs = QStringLiteral(LAYERSCOPE_SOURCE_DIR "/tests/data/ranks/");
const QString kFsdp0 = kOurs + QStringLiteral("fsdp_nsys_bf16_h100x2_rank0.sqlite");
const QString kFsdp1 = kOurs + QStringLiteral("fsdp_nsys_bf16_h100x2_rank1.sqlite");

int64_t kernelCount(const QString& path) {
    return sqlColumn(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").at(0);
}

class AllRanks : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!QFileInfo::exists(kFsdp0) || !QFileInfo::exists(kFsdp1))
            GTEST_SKIP() << "FSDP traces absent";
        window_ = openSessionInWindow({kFsdp0, kFsdp1});
        ASSERT_NE(window_, nullptr);
        // As a person would: Ctrl+Shift+R (File → All Ranks in Table and Tree).
        auto* action = window_->findChild<QAction*>(QStringLiteral("allRanksAction"));
        ASSERT_NE(action, nullptr);
        EXPECT_EQ(action->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+R")));
        action->trigger();
        ASSERT_TRUE(waitForRank(*window_));
        ASSERT_TRUE(window_->allRanksShown());
    }
    void showAllColumnsInOrder() {
        auto* header = window_->kernelView()->table()->horizontalHeader();
        for (int c = 0; c < header->count(); ++c) {
            header->setSectionHidden(c, false);
            header->moveSection(header->visualIndex(c), c);
        }
    }
    QString cell(int row, KernelField f) const {
        return window_->kernelModel()
            ->index(row, static_cast<int>(f))
            .data(ls::gui::KernelTableModel::ExportRole)
            .toString();
    }
    std::unique_ptr<MainWindow> window_;
};

TEST_F(AllRanks, TheTableHoldsEveryRankAndExportsAsTheCliWritesBothFiles) {
    auto* model = window_->kernelModel();
    const int64_t n0 = kernelCount(kFsdp0), n1 = kernelCount(kFsdp1);
    ASSERT_GT(n0, 100);
    EXPECT_EQ(model->rowCount(), n0 + n1);
    EXPECT_EQ(model->columnCount(),
              static_cast<int>(ls::kKernelFieldCount) + 1); // and the file column
    int rank1 = 0;
    for (int r = 0; r < model->rowCount(); ++r)
        rank1 += cell(r, KernelField::Rank) == QStringLiteral("1");
    EXPECT_EQ(rank1, n1);

    // Id, then file (stable): the CLI's order, one file after the other.
    showAllColumnsInOrder();
    auto* table = window_->kernelView()->table();
    table->sortByColumn(static_cast<int>(KernelField::Id), Qt::AscendingOrder);
    table->sortByColumn(static_cast<int>(ls::kKernelFieldCount), Qt::AscendingOrder);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("all.csv"));
    ASSERT_EQ(window_->exportView(*table, path, false), QString());
    const auto cli = runCli({QStringLiteral("kernels"), kFsdp0, kFsdp1});
    ASSERT_EQ(cli.exitCode, 0) << cli.err.toStdString();
    EXPECT_EQ(readAll(path), cli.out.toUtf8());

    // The rank filter narrows to one rank's kernels.
    window_->kernelView()->applyFilter(QStringLiteral("rank = 1"));
    EXPECT_EQ(model->rowCount(), n1);
}

TEST_F(AllRanks, ColumnsSortAcrossRanksAsSqlOrdersBothFiles) {
    auto* model = window_->kernelModel();
    auto* table = window_->kernelView()->table();
    table->sortByColumn(static_cast<int>(KernelField::Duration), Qt::DescendingOrder);
    const char* byDuration =
        "SELECT end - start FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY end - start DESC";
    std::vector<int64_t> expected = sqlColumn(kFsdp0, byDuration);
    const auto other = sqlColumn(kFsdp1, byDuration);
    expected.insert(expected.end(), other.begin(), other.end());
    std::sort(expected.begin(), expected.end(), std::greater<>());
    ASSERT_EQ(static_cast<size_t>(model->rowCount()), expected.size());
    bool bothRanksOnTop = false;
    for (int r = 0; r < model->rowCount(); ++r) {
        ASSERT_EQ(cell(r, KernelField::Duration).toLongLong(), expected[static_cast<size_t>(r)])
            << "row " << r;
        if (r < 50 && cell(r, KernelField::Rank) != cell(0, KernelField::Rank))
            bothRanksOnTop = true;
    }
    EXPECT_TRUE(bothRanksOnTop); // the two ranks' rows interleave, not one file after the other

    // Texts sort by their bytes across both files; equal names keep the previous (duration) order.
    table->sortByColumn(static_cast<int>(KernelField::ShortName), Qt::AscendingOrder);
    for (int r = 1; r < model->rowCount(); ++r) {
        const QByteArray a = cell(r - 1, KernelField::ShortName).toUtf8(),
                         b = cell(r, KernelField::ShortName).toUtf8();
        ASSERT_LE(a, b) << "row " << r;
        if (a == b) {
            ASSERT_GE(cell(r - 1, KernelField::Duration).toLongLong(),
                      cell(r, KernelField::Duration).toLongLong())
                << "row " << r;
        }
    }
    table->sortByColumn(static_cast<int>(KernelField::NvtxPath), Qt::DescendingOrder);
    for (int r = 1; r < model->rowCount(); ++r)
        ASSERT_GE(cell(r - 1, KernelField::NvtxPath).toUtf8(),
                  cell(r, KernelField::NvtxPath).toUtf8())
            << "row " << r;
}

TEST_F(AllRanks, TheLayerTreeHasARowPerRankWithSqlCountsAndShowsItsKernels) {
    auto* tree = window_->layerModel();
    ASSERT_EQ(tree->rowCount(), 2);
    const QString files[] = {kFsdp0, kFsdp1};
    for (int r = 0; r < 2; ++r) {
        const QModelIndex name = tree->index(r, ls::gui::LayerTreeModel::Name);
        EXPECT_EQ(name.data().toString(),
                  QStringLiteral("Rank %1 · %2").arg(r).arg(QFileInfo(files[r]).fileName()));
        EXPECT_EQ(tree->index(r, ls::gui::LayerTreeModel::Kernels)
                      .data(ls::gui::LayerTreeModel::SortRole)
                      .toLongLong(),
                  kernelCount(files[r]));
        EXPECT_EQ(tree->index(r, ls::gui::LayerTreeModel::GpuTime)
                      .data(ls::gui::LayerTreeModel::SortRole)
                      .toULongLong(),
                  sqlKernelTimeNs(files[r]));
        EXPECT_GT(tree->rowCount(name), 0); // the rank's own tree below it
    }
    // A click on rank 1's row: its kernels, and only its.
    window_->layerView()->setCurrentIndex(tree->index(1, 0));
    auto* model = window_->kernelModel();
    EXPECT_EQ(model->rowCount(), kernelCount(kFsdp1));
    for (int r = 0; r < model->rowCount(); ++r)
        ASSERT_EQ(cell(r, KernelField::Rank), QStringLiteral("1"));
    // The timeline lights every one of them in rank 1's rows, though its panes show rank 0.
    auto* view = window_->findChild<ls::gui::TimelineArea*>()->view();
    ASSERT_EQ(window_->views()->shownTrace, 0u);
    EXPECT_EQ(view->highlightedCount(), static_cast<size_t>(model->rowCount()));
    EXPECT_TRUE(view->highlighted().empty()); // none of them is the shown trace's
    QImage image(view->viewport()->size(), QImage::Format_RGB32);
    view->viewport()->render(&image);
    int outlined = 0; // the highlight's orange outline, drawn over rank 1's kernel rows
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            outlined += image.pixel(x, y) == qRgb(0xff, 0x8c, 0x00);
    EXPECT_GT(outlined, 20);
    // Its first op node below: a subset of rank 1's kernels, as many as the node says.
    QModelIndex node = tree->index(0, 0, tree->index(1, 0));
    while (tree->rowCount(node) > 0) node = tree->index(0, 0, node);
    window_->layerView()->setCurrentIndex(node);
    EXPECT_EQ(model->rowCount(),
              tree->index(node.row(), ls::gui::LayerTreeModel::Kernels, node.parent())
                  .data(ls::gui::LayerTreeModel::SortRole)
                  .toInt());
    for (int r = 0; r < model->rowCount(); ++r)
        ASSERT_EQ(cell(r, KernelField::Rank), QStringLiteral("1"));
}

TEST_F(AllRanks, ARowOfAnotherRankIsSelectedInItsTimelineRowsAndSwitchingBackRestoresOneRank) {
    auto* model = window_->kernelModel();
    const uint32_t shown = window_->views()->shownTrace;
    int other = -1;
    for (int r = 0; r < model->rowCount() && other < 0; ++r)
        if (cell(r, KernelField::Rank) != QString::number(shown)) other = r;
    ASSERT_GE(other, 0);
    window_->kernelView()->table()->setCurrentIndex(model->index(other, 0));
    auto* view = window_->findChild<ls::gui::TimelineArea*>()->view();
    EXPECT_EQ(view->selectedTrace(), 1 - shown);
    EXPECT_EQ(view->selectedKernel().value, cell(other, KernelField::Id).toUInt());
    EXPECT_EQ(window_->views()->shownTrace, shown); // the panes stay on their trace
    EXPECT_TRUE(window_->findChild<QTextBrowser*>(QStringLiteral("kernelDetails"))
                    ->toPlainText()
                    .contains(cell(other, KernelField::Correlation)));

    window_->showRank(static_cast<int>(shown));
    ASSERT_TRUE(waitForRank(*window_));
    EXPECT_FALSE(window_->allRanksShown());
    EXPECT_EQ(model->rowCount(), kernelCount(shown == 0 ? kFsdp0 : kFsdp1));
    EXPECT_EQ(model->columnCount(), static_cast<int>(ls::kKernelFieldCount));
    EXPECT_EQ(
        window_->layerModel()->index(0, 0).data().toString().startsWith(QStringLiteral("Rank")),
        false);
}

} // namespace
