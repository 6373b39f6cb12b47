// The Summary tables tab offscreen, on the PaddlePaddle fixture: each of the five tables shows
// core's rows (the Operator table as a tree: op -> inner phase -> kernel), the model passes
// QAbstractItemModelTester, a click on an op or a kernel row puts exactly its kernels in the
// kernel table and lights them on the timeline, and File → Export writes the tree as CSV.
#include "core/load/load.h"
#include "core/reports/gpu_memory.h"
#include "core/reports/summary_tables/summary_table.h"
#include "tests/widgets/widget_test_support.h"
#include "widgets/export/csv_export.h"
#include "widgets/summary_tables/memory_table_model.h"
#include "widgets/summary_tables/summary_table_model.h"
#include "widgets/summary_tables/summary_tables_page.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/window/main_window.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeView>
#include <gtest/gtest.h>

namespace {

using ls::gui::SummaryTableModel;
using ls::gui::SummaryTablesPage;

const QString kPaddle =
    QStringLiteral(LAYERSCOPE_SOURCE_DIR "/tests/data/paddle/paddle_gpt_2steps.paddle_trace.json");

bool showAndWait(SummaryTablesPage& page, const QString& report) {
    QSignalSpy shown(&page, &SummaryTablesPage::tableShown);
    page.showTable(report);
    return shown.count() > 0 || shown.wait(60000);
}

// The row whose name is `name` among the view's top-level rows.
QModelIndex topRow(const QTreeView& view, const QString& name) {
    const QAbstractItemModel* m = view.model();
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, 0).data().toString().trimmed() == name) return m->index(r, 0);
    return {};
}

TEST(SummaryTablesPage, ShowsCoreTablesAndSelectsARowsKernels) {
    auto w = ls::gui::test::openInWindow(kPaddle);
    ASSERT_TRUE(w);
    SummaryTablesPage& page = *w->summaryTablesPage();
    const auto loaded = ls::loadTrace(kPaddle.toStdString(), {});
    ASSERT_TRUE(loaded.ok());
    const ls::Trace& t = *loaded.trace;
    QAbstractItemModelTester tester(page.model(),
                                    QAbstractItemModelTester::FailureReportingMode::Warning);

    // Flat tables: one view row per table row (the Overview's GPU heading is not a row).
    for (const char* report : {"overview", "model", "distribution", "kernel_table"}) {
        ASSERT_TRUE(showAndWait(page, QString::fromLatin1(report))) << report;
        const ls::SummaryTable core = ls::summaryTable(t, report, ls::SummarySort::GpuTotal);
        size_t rows = 0;
        for (const auto& r : core.rows) rows += r.kind != ls::SummaryRowKind::GpuSection;
        EXPECT_EQ(page.view()->model()->rowCount(), static_cast<int>(rows)) << report;
    }
    ASSERT_TRUE(showAndWait(page, QStringLiteral("model")));
    const QModelIndex forward = topRow(*page.view(), QStringLiteral("Forward"));
    ASSERT_TRUE(forward.isValid());
    // 849,250 ns of forward kernels over two steps (make_fixtures.py's Model table).
    EXPECT_EQ(forward.siblingAtColumn(SummaryTableModel::GpuTotal).data().toString(),
              QStringLiteral("0.85"));
    // Others has no calls: an empty cell, and nothing a view could draw as a check box.
    const QModelIndex othersCalls =
        topRow(*page.view(), QStringLiteral("Others")).siblingAtColumn(SummaryTableModel::Calls);
    EXPECT_EQ(othersCalls.data().toString(), QString());
    EXPECT_FALSE(othersCalls.data(Qt::CheckStateRole).isValid());

    // The Operator table is a tree: op -> inner phase -> kernel.
    page.sortBox()->setCurrentText(QStringLiteral("cpu_total"));
    ASSERT_TRUE(showAndWait(page, QStringLiteral("operator")));
    const QModelIndex matmul = topRow(*page.view(), QStringLiteral("matmul dygraph"));
    ASSERT_TRUE(matmul.isValid());
    const QAbstractItemModel* m = page.view()->model();
    ASSERT_EQ(m->rowCount(matmul), 3); // compute, infer_meta, node_creation
    const QModelIndex compute = m->index(0, 0, matmul);
    EXPECT_EQ(compute.data().toString(), QStringLiteral("matmul compute"));
    ASSERT_EQ(m->rowCount(compute), 1);
    EXPECT_EQ(m->index(0, 0, compute).data().toString(),
              QStringLiteral("volta_h884gemm_128x64_nn"));

    // A click on the op selects its four kernels (two instances a step, two steps).
    page.pickRow(matmul);
    EXPECT_EQ(w->kernelModel()->rows().size(), 4u);
    EXPECT_TRUE(w->kernelModel()->scopeLabel().contains(QStringLiteral("matmul dygraph")));
    EXPECT_GT(w->findChild<ls::gui::TimelineView*>()->highlightedCount(), 0u);
    const QModelIndex add = topRow(*page.view(), QStringLiteral("add dygraph"));
    ASSERT_TRUE(add.isValid());
    page.pickRow(add); // its phase's kernel and the one it launched itself
    EXPECT_EQ(w->kernelModel()->rows().size(), 4u);

    // The view exports as every table does.
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("operator.csv"));
    const auto result = ls::gui::exportViewCsv(*page.view(), csv, false);
    ASSERT_TRUE(result.ok) << result.error.toStdString();
    QFile f(csv);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    EXPECT_TRUE(text.startsWith(QStringLiteral("depth,name,calls,cpu_total_ns")))
        << text.left(80).toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("volta_h884gemm_128x64_nn")));
}

} // namespace

// GPU memory (a PyTorch profiler trace recorded with profile_memory): the Memory table shows
// core's rows per op and per layer under each device's peak, and the timeline has a memory lane
// of that device after its streams.
TEST(SummaryTablesPage, MemoryTableShowsCoreRowsAndThePeak) {
    const QString file =
        QStringLiteral(LAYERSCOPE_SOURCE_DIR "/tests/data/memory/memory_gpt2.kineto.json.gz");
    auto w = ls::gui::test::openInWindow(file);
    ASSERT_TRUE(w);
    SummaryTablesPage& page = *w->summaryTablesPage();
    const auto loaded = ls::loadTrace(file.toStdString(), {});
    ASSERT_TRUE(loaded.ok());
    const ls::Trace& t = *loaded.trace;
    const auto ops = ls::opsOfMemoryEvents(t);
    for (const char* report : {"memory", "memory_layers"}) {
        SCOPED_TRACE(report);
        ASSERT_TRUE(showAndWait(page, QString::fromLatin1(report)));
        const auto expected = ls::opMemoryRows(
            t, ops,
            std::string(report) == "memory" ? ls::MemoryGrouping::Op : ls::MemoryGrouping::Layer);
        const QAbstractItemModel* m = page.view()->model();
        QAbstractItemModelTester tester(const_cast<QAbstractItemModel*>(m),
                                        QAbstractItemModelTester::FailureReportingMode::Warning);
        ASSERT_EQ(m->rowCount(), static_cast<int>(expected.size()));
        for (int r = 0; r < m->rowCount(); ++r) {
            const auto& e = expected[static_cast<size_t>(r)];
            EXPECT_EQ(m->index(r, 0).data().toString().toStdString(), e.name);
            EXPECT_EQ(m->index(r, 2).data().toULongLong(), e.allocations);
            EXPECT_EQ(m->index(r, 3).data().toULongLong(), e.frees);
            EXPECT_EQ(m->index(r, 7).data(ls::gui::MemoryTableModel::kSortRole).toDouble(),
                      static_cast<double>(e.peakTotal));
        }
        // 592,788,480 bytes: torch.cuda.max_memory_allocated() as the recording printed it.
        EXPECT_NE(page.header()->text().indexOf(QStringLiteral("565.33 MB allocated")), -1);
        EXPECT_FALSE(page.sortBox()->isEnabled());
    }
    ASSERT_TRUE(showAndWait(page, QStringLiteral("kernel_table")));
    EXPECT_EQ(page.view()->model()->columnCount(), SummaryTableModel::ColumnCount);
}
