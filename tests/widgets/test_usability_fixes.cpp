// Fixes from the scripted usability test (tools/usability/run_usability.sh, docs/usability.md):
// Ctrl+E exports the kernel table from its filter bar; the count label gives the shown kernels'
// GPU time; the Summary tab's lower charts keep a readable width whatever their labels; the Ranks
// tab's table shows the communication columns first.
#include "tests/widgets/widget_test_support.h"
#include "widgets/panes/ranks_panel.h"
#include "widgets/panes/summary_charts.h"
#include "widgets/tables/kernel_count.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/tables/window_shortcuts.h"
#include "widgets/util/units.h"
#include "widgets/window/main_window.h"

#include <QAction>
#include <QApplication>
#include <QChartView>
#include <QFile>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>
#include <gtest/gtest.h>
#include <memory>

namespace {

using ls::gui::test::openInWindow;
using ls::gui::test::samplePath;

const QString kShared = QStringLiteral(LAYERSCOPE_SOURCE_DIR "/../shared/traces/");

// A window with a text field and a Ctrl+E action, as the main window's filter bar and Export.
struct FieldInWindow {
    QWidget window;
    QLineEdit* edit = new QLineEdit(&window);
    QAction* action = new QAction(&window);
    int triggered = 0;
    FieldInWindow() {
        auto* layout = new QVBoxLayout(&window);
        layout->addWidget(edit);
        action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
        window.addAction(action);
        QObject::connect(action, &QAction::triggered, [this] { ++triggered; });
        window.show();
        QApplication::setActiveWindow(&window);
        edit->setFocus();
        QApplication::processEvents();
    }
};

// The offscreen platform has no emacs key bindings, so a bare QLineEdit does not eat Ctrl+E here
// as it does under X11 (the usability script under Xvfb shows that): this checks that the field
// passes the window's shortcut on and keeps its own editing keys.
TEST(WindowShortcuts, CtrlEInAFilterFieldTriggersTheWindowsAction) {
    FieldInWindow w;
    ls::gui::letWindowShortcutsThrough(w.edit);
    w.edit->setText(QStringLiteral("tc = not used"));
    w.edit->setCursorPosition(0);
    QTest::keyClick(w.edit, Qt::Key_E, Qt::ControlModifier);
    EXPECT_EQ(w.triggered, 1);
    // The field's own editing keys stay the field's.
    QTest::keyClick(w.edit, Qt::Key_A, Qt::ControlModifier);
    EXPECT_EQ(w.edit->selectedText(), w.edit->text());
    QTest::keyClick(w.edit, Qt::Key_E);
    EXPECT_EQ(w.edit->text(), QStringLiteral("e"));
    EXPECT_EQ(w.triggered, 1);
}

TEST(WindowShortcuts, TheKernelFilterBarLetsCtrlEThrough) {
    auto w = openInWindow(samplePath());
    ASSERT_TRUE(w);
    int exports = 0;
    for (QAction* a : w->findChildren<QAction*>())
        if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_E)) {
            a->setEnabled(true);
            // Count instead of opening the modal save dialog.
            a->disconnect(SIGNAL(triggered(bool)));
            QObject::connect(a, &QAction::triggered, [&exports] { ++exports; });
        }
    QLineEdit* filter = w->kernelView()->filterEdit();
    QApplication::setActiveWindow(w.get());
    filter->setFocus();
    filter->setText(QStringLiteral("tc = not used"));
    QTest::keyClick(filter, Qt::Key_E, Qt::ControlModifier);
    EXPECT_EQ(exports, 1);
}

// Ctrl+E exports "the table you last worked in": typing in the kernel filter bar is working in
// the kernel table, even after a click in the layer tree (the usability test exported the tree).
TEST(ExportTarget, TheFilterBarMakesTheKernelTableTheOneExported) {
    auto w = openInWindow(samplePath());
    ASSERT_TRUE(w);
    QApplication::setActiveWindow(w.get());
    w->layerView()->setFocus();
    QApplication::processEvents();
    w->kernelView()->filterEdit()->setFocus();
    w->kernelView()->filterEdit()->setText(QStringLiteral("tc = not used"));
    QApplication::processEvents();
    QAction* exportAll = nullptr;
    for (QAction* a : w->findChildren<QAction*>())
        if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_E)) exportAll = a;
    ASSERT_TRUE(exportAll);
    QString suggested;
    QTimer::singleShot(200, [&suggested] {
        if (auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget())) {
            suggested = dialog->selectedFiles().value(0);
            dialog->reject();
        }
    });
    exportAll->trigger();
    EXPECT_TRUE(suggested.endsWith(QStringLiteral("-kernels.csv"))) << suggested.toStdString();
}

TEST(KernelCount, GivesTheShownKernelsGpuTime) {
    auto w = openInWindow(samplePath());
    ASSERT_TRUE(w);
    const auto* model = w->kernelModel();
    const double all = ls::gui::shownGpuTimeNs(*model->tables(), model->rows());
    EXPECT_EQ(static_cast<qulonglong>(all), ls::gui::test::sqlKernelTimeNs(samplePath()));
    const auto labels = w->kernelView()->findChildren<QLabel*>();
    const auto count = std::find_if(labels.begin(), labels.end(), [](const QLabel* l) {
        return l->text().contains(QStringLiteral(" kernels"));
    });
    ASSERT_NE(count, labels.end());
    EXPECT_EQ((*count)->text(),
              QStringLiteral("214 of 214 kernels · %1 GPU time").arg(ls::gui::formatDuration(all)));

    w->kernelView()->filterEdit()->setText(QStringLiteral("op = aten::mm"));
    QTest::keyClick(w->kernelView()->filterEdit(), Qt::Key_Return);
    ASSERT_GT(model->rowCount(), 0);
    double mm = 0;
    for (int r = 0; r < model->rowCount(); ++r)
        mm += model
                  ->data(model->index(r, static_cast<int>(ls::KernelField::Duration)),
                         ls::gui::KernelTableModel::SortRole)
                  .toDouble();
    EXPECT_EQ((*count)->text(), QStringLiteral("%1 of 214 kernels · %2 GPU time")
                                    .arg(model->rowCount())
                                    .arg(ls::gui::formatDuration(
                                        ls::gui::shownGpuTimeNs(*model->tables(), model->rows()))));
    EXPECT_DOUBLE_EQ(ls::gui::shownGpuTimeNs(*model->tables(), model->rows()),
                     mm); // the Duration column sorts by ns
    EXPECT_EQ(ls::gui::kernelCountText(model->tables(), {}), QStringLiteral("0 of 214 kernels"));
}

TEST(SummaryCharts, LowerChartsKeepAReadableWidthWithLongLayerLabels) {
    if (!QFile::exists(kShared + QStringLiteral("pair_gpt1layer_fp16_h200.nsys.sqlite")))
        GTEST_SKIP() << "pair_gpt1layer trace absent from ../shared";
    auto w = openInWindow(
        kShared + QStringLiteral(
                      "pair_gpt1layer_fp16_h200.nsys.sqlite")); // its per-layer chart has "(outside
                                                                // layers) · optimizer" labels
    ASSERT_TRUE(w);
    auto* tabs = w->findChild<QTabWidget*>();
    ASSERT_TRUE(tabs);
    for (int i = 0; i < tabs->count(); ++i)
        if (tabs->widget(i)->isAncestorOf(w->charts()) || tabs->widget(i) == w->charts())
            tabs->setCurrentIndex(i);
    QApplication::processEvents();
    ASSERT_TRUE(w->charts()->isVisible());
    std::vector<QChartView*> views;
    for (QChartView* v : w->charts()->findChildren<QChartView*>(Qt::FindDirectChildrenOnly))
        views.push_back(v);
    ASSERT_EQ(views.size(), 4u);
    std::sort(views.begin(), views.end(), [](auto* a, auto* b) {
        return std::pair(a->y(), a->x()) < std::pair(b->y(), b->x());
    });
    const int width = w->charts()->width();
    ASSERT_GT(width, 500);
    EXPECT_GE(views[1]->width(), width * 4 / 10) << "per layer";
    EXPECT_GE(views[2]->width(), width * 2 / 10) << "by direction";
    EXPECT_GE(views[3]->width(), width * 2 / 10) << "by Tensor Core use";
}

TEST(RanksTab, CommunicationColumnsComeBeforeHostPidDeviceAndKernels) {
    const QString r0 = kShared + QStringLiteral("ddp_bf16_h200x2_rank0.sqlite");
    const QString r1 = kShared + QStringLiteral("ddp_bf16_h200x2_rank1.sqlite");
    if (!QFile::exists(r0) || !QFile::exists(r1)) GTEST_SKIP() << "DDP traces absent";
    QStandardPaths::setTestModeEnabled(true);
    auto w = std::make_unique<ls::gui::MainWindow>();
    w->resize(1400, 900);
    w->show();
    QSignalSpy loaded(w.get(), &ls::gui::MainWindow::traceLoaded);
    w->openFiles({r0, r1});
    ASSERT_TRUE(loaded.wait(60000));
    const QTableView* table = w->ranksPanel()->rankTable();
    const QHeaderView* header = table->horizontalHeader();
    const QAbstractItemModel* model = table->model();
    QStringList shown;
    for (int v = 0; v < header->count(); ++v)
        shown << model->headerData(header->logicalIndex(v), Qt::Horizontal).toString();
    EXPECT_EQ(shown, (QStringList{QStringLiteral("Rank"), QStringLiteral("Span (ms)"),
                                  QStringLiteral("Busy (ms)"), QStringLiteral("Compute (ms)"),
                                  QStringLiteral("Comm (ms)"), QStringLiteral("Overlap (ms)"),
                                  QStringLiteral("Exposed comm (ms)"), QStringLiteral("Idle (ms)"),
                                  QStringLiteral("Host"), QStringLiteral("PID"),
                                  QStringLiteral("Device"), QStringLiteral("Kernels")}));
    // The model keeps rank_sum's order (the ranks test compares it with the CLI column by column).
    EXPECT_EQ(model->headerData(8, Qt::Horizontal).toString(), QStringLiteral("Comm (ms)"));
}

} // namespace
