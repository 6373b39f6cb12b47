// File → Import Nsight Compute CSV, offscreen: metric columns join the kernels they measured,
// the details pane groups them by section, a malformed file leaves the table as it was.
#include "core/import/ncu/ncu_metrics.h"
#include "tests/widgets/widget_test_support.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/window/main_window.h"

#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <gtest/gtest.h>

namespace {

const QString kTrace =
    QStringLiteral(LAYERSCOPE_SOURCE_DIR "/../shared/traces/pair_gpt1layer_fp16_h200.nsys.sqlite");
const QString kCsv =
    QStringLiteral(LAYERSCOPE_SOURCE_DIR "/../shared/traces/pair_gpt1layer_fp16_h200.ncu.csv");

TEST(NcuImportGui, MetricsJoinTheFirst60KernelsAndMalformedFilesChangeNothing) {
    if (!QFile::exists(kTrace) || !QFile::exists(kCsv))
        GTEST_SKIP() << "pair_gpt1layer traces absent from ../shared";
    QStandardPaths::setTestModeEnabled(true);
    ls::gui::MainWindow w;
    QSignalSpy loaded(&w, &ls::gui::MainWindow::traceLoaded);
    w.openFile(kTrace);
    ASSERT_TRUE(loaded.wait(30000));
    auto* model = w.kernelModel();
    const int before = model->columnCount();
    EXPECT_EQ(before, static_cast<int>(ls::kKernelFieldCount));

    // A malformed CSV: an error line, nothing changes.
    QTemporaryDir dir;
    QFile bad(dir.filePath(QStringLiteral("bad.csv")));
    ASSERT_TRUE(bad.open(QIODevice::WriteOnly));
    bad.write("\"ID\",\"Kernel Name\"\n\"0\",\"trunc");
    bad.close();
    EXPECT_FALSE(w.importNcu(bad.fileName()).isEmpty());
    EXPECT_EQ(model->columnCount(), before);

    ASSERT_EQ(w.importNcu(kCsv), QString());
    ASSERT_NE(model->ncu(), nullptr);
    EXPECT_EQ(model->ncu()->match().matched, 60u);
    EXPECT_GT(model->columnCount(), before);
    // Rows in id order: the first 60 kernels carry ncu's duration, the others none.
    model->sort(static_cast<int>(ls::KernelField::Id), Qt::AscendingOrder);
    const auto duration = model->ncu()->csv().known(ls::NcuKnownMetric::Duration);
    ASSERT_TRUE(duration.has_value());
    const int column = static_cast<int>(ls::kKernelFieldCount + *duration);
    for (int r = 0; r < model->rowCount(); ++r) {
        const QString cell =
            model->index(r, column).data(ls::gui::KernelTableModel::ExportRole).toString();
        EXPECT_EQ(cell.isEmpty(), r >= 60) << r;
        if (r < 60) {
            EXPECT_EQ(cell.toStdString(),
                      model->ncu()->text(ls::KernelId(static_cast<uint32_t>(r)), *duration));
        }
    }
    // The details pane shows the measured kernel's sections.
    ASSERT_TRUE(w.kernelView()->selectKernel(ls::KernelId(3)));
    EXPECT_TRUE(w.detailsView()->toPlainText().contains(QStringLiteral("Nsight Compute")));
    // Sorting by an ncu column puts measured kernels first.
    model->sort(column, Qt::DescendingOrder);
    EXPECT_FALSE(
        model->index(0, column).data(ls::gui::KernelTableModel::ExportRole).toString().isEmpty());
    EXPECT_TRUE(model->index(model->rowCount() - 1, column)
                    .data(ls::gui::KernelTableModel::ExportRole)
                    .toString()
                    .isEmpty());
}

} // namespace
