// Big tables reach their views in steps (widgets/util/revealed_table_model.h): a reset shows one
// step of rows more than the views had, later turns of the event loop append the rest, and every
// path that needs a row not shown yet (a selection, a sort, an export) reveals it first. The step
// is made small here so that the bundled sample's couple of hundred kernels take several.
#include "core/load/load.h"
#include "core/pytorch/correlation.h"
#include "tests/widgets/widget_test_support.h"
#include "widgets/export/csv_export.h"
#include "widgets/panes/fwd_bwd_models.h"
#include "widgets/tables/kernel_table_model.h"

#include <QAbstractItemModelTester>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <gtest/gtest.h>

namespace {

using ls::gui::KernelTableModel;
using ls::gui::OpSideModel;
using ls::gui::RevealedTableModel;

// Turns of the event loop until every row is shown (at most two seconds).
void revealByEventLoop(RevealedTableModel& model) {
    QElapsedTimer clock;
    clock.start();
    while (!model.allRevealed() && clock.elapsed() < 2000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
}

std::shared_ptr<const ls::Trace> sampleTrace() {
    auto loaded = ls::loadTrace(ls::gui::test::samplePath().toStdString());
    return loaded.ok() ? loaded.trace : nullptr;
}

constexpr int kStep = 16;

TEST(RevealedRows, KernelTableShowsOneStepThenTheRestOnLaterTurns) {
    const auto trace = sampleTrace();
    ASSERT_TRUE(trace);
    const int total = static_cast<int>(trace->kernels.size());
    ASSERT_GT(total, 4 * kStep);
    KernelTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setRevealStep(kStep);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    model.setTable(std::make_shared<const ls::KernelTable>(trace));
    EXPECT_EQ(model.rowCount(), kStep);
    EXPECT_EQ(static_cast<int>(model.rows().size()), total); // the model has them all
    EXPECT_FALSE(model.allRevealed());
    revealByEventLoop(model);
    EXPECT_TRUE(model.allRevealed());
    EXPECT_EQ(model.rowCount(), total);
    EXPECT_EQ(inserted.count(), (total - kStep + kStep - 1) / kStep); // one step a turn

    // A reset to as many rows keeps them shown: the views already hold that many.
    model.setFilter(QString());
    EXPECT_EQ(model.rowCount(), total);
    // A filter to fewer rows shows them all at once.
    ASSERT_TRUE(model.setFilter(QStringLiteral("gemm")).isEmpty());
    EXPECT_EQ(model.rowCount(), static_cast<int>(model.rows().size()));
    EXPECT_TRUE(model.allRevealed());
}

TEST(RevealedRows, SelectionSortAndExportRevealWhatTheyNeed) {
    const auto trace = sampleTrace();
    ASSERT_TRUE(trace);
    const int total = static_cast<int>(trace->kernels.size());
    auto table = std::make_shared<const ls::KernelTable>(trace);

    KernelTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setRevealStep(kStep);
    model.setTable(table);
    ASSERT_EQ(model.rowCount(), kStep);
    // A kernel in the rows to come: its row exists, and revealing through it makes it an index.
    const ls::KernelId late = model.rows()[static_cast<size_t>(total - 3)];
    const int row = model.rowOf(late);
    EXPECT_EQ(row, total - 3);
    EXPECT_FALSE(model.index(row, 0).isValid());
    model.revealThrough(row);
    EXPECT_GE(model.rowCount(), row + 1);
    EXPECT_EQ(model.kernelAt(model.index(row, 0).row()), late);

    // A sort shows every row, so that the selection can follow its kernels anywhere.
    model.setTable(nullptr);
    model.setTable(table);
    ASSERT_EQ(model.rowCount(), kStep);
    model.sort(static_cast<int>(ls::KernelField::Duration), Qt::DescendingOrder);
    EXPECT_EQ(model.rowCount(), total);

    // An export of the whole table writes every row, however many are shown.
    model.setTable(nullptr);
    model.setTable(table);
    QTableView view;
    view.setModel(&model);
    ASSERT_EQ(model.rowCount(), kStep);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("kernels.csv"));
    const auto result = ls::gui::exportViewCsv(view, path, false);
    ASSERT_TRUE(result.ok) << result.error.toStdString();
    EXPECT_EQ(result.rows, total);
    QFile csv(path);
    ASSERT_TRUE(csv.open(QIODevice::ReadOnly));
    EXPECT_EQ(csv.readAll().count('\n'), total + 1); // the header and every kernel
}

TEST(RevealedRows, ForwardAndBackwardSidesRevealInStepsToo) {
    const auto trace = sampleTrace();
    ASSERT_TRUE(trace);
    auto pairs = std::make_shared<const ls::FwdBwdPairs>(ls::buildFwdBwdPairs(*trace));
    for (auto side : {OpSideModel::Side::Forward, OpSideModel::Side::Backward}) {
        const int total = static_cast<int>(
            side == OpSideModel::Side::Forward ? pairs->forward.size() : pairs->backward.size());
        ASSERT_GT(total, 8);
        OpSideModel model(side);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::Fatal);
        model.setRevealStep(4);
        model.setPairs(trace, pairs);
        EXPECT_EQ(model.rowCount(), 4);
        revealByEventLoop(model);
        EXPECT_EQ(model.rowCount(), total);
        // A selection of a row to come (its partner picked on the other side) reveals it.
        model.setPairs(nullptr, nullptr);
        model.setPairs(trace, pairs);
        ASSERT_EQ(model.rowCount(), 4);
        const uint32_t lastPair = model.pairRow(total - 1);
        EXPECT_EQ(model.modelRow(lastPair), total - 1);
        EXPECT_FALSE(model.index(total - 1, 0).isValid());
        model.revealThrough(model.modelRow(lastPair));
        EXPECT_TRUE(model.index(total - 1, 0).isValid());
    }
}

} // namespace
