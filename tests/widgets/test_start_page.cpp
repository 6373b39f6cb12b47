// First start: the window takes 90% of the screen, centred; a start without a trace shows the
// start page (open, recent files, the sample, the nsys commands, the inputs understood), and
// opening a recent file from it brings back the tabs and docks.
#include "tests/widgets/widget_test_support.h"
#include "widgets/start/start_page.h"
#include "widgets/window/main_window.h"

#include <QDockWidget>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <gtest/gtest.h>

namespace {

using ls::gui::MainWindow;
using ls::gui::StartPage;

TEST(FirstStart, WindowTakes90PercentOfTheScreenCentred) {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    MainWindow w;
    const QRect available = w.screen()->availableGeometry();
    EXPECT_EQ(w.width(), static_cast<int>(available.width() * 0.9));
    EXPECT_EQ(w.height(), static_cast<int>(available.height() * 0.9));
    EXPECT_LE(std::abs(w.geometry().center().x() - available.center().x()), 1);
    EXPECT_LE(std::abs(w.geometry().center().y() - available.center().y()), 1);
}

TEST(StartPage, ShowsWithoutATraceAndOpensARecentFile) {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    const QString sample = ls::gui::test::samplePath();
    QSettings().setValue(QStringLiteral("recentFiles"),
                         QStringList{sample, QStringLiteral("/nonexistent/gone.sqlite")});
    MainWindow w;
    w.show();
    w.showStartPage();
    auto* page = qobject_cast<StartPage*>(w.centralWidget());
    ASSERT_TRUE(page);
    for (auto* dock : w.findChildren<QDockWidget*>())
        EXPECT_FALSE(dock->isVisible()) << dock->objectName().toStdString();

    QString text;
    for (auto* label : page->findChildren<QLabel*>()) text += label->text();
    for (const char* needle :
         {"nsys profile -t cuda,nvtx,osrt --capture-range=cudaProfilerApi -o run python train.py",
          "nsys export --type sqlite run.nsys-rep",
          "torch.autograd.profiler.emit_nvtx(record_shapes=True)", ".nsys-rep", ".sql", ".nvvp",
          ".json.gz", "Nsight Compute CSV"})
        EXPECT_TRUE(text.contains(QString::fromUtf8(needle))) << needle;
    EXPECT_TRUE(page->openButton()->isEnabled());
    EXPECT_TRUE(page->sampleButton()->isEnabled());
    ASSERT_EQ(page->recentList()->count(), 2);
    EXPECT_EQ(page->recentList()->item(0)->data(Qt::UserRole).toString(), sample);

    QSignalSpy loaded(&w, &MainWindow::traceLoaded);
    emit page->recentList()->itemClicked(page->recentList()->item(0));
    ASSERT_TRUE(loaded.wait(30000));
    EXPECT_TRUE(qobject_cast<QTabWidget*>(w.centralWidget()));
    EXPECT_FALSE(page->isVisible());
    for (auto* dock : w.findChildren<QDockWidget*>())
        EXPECT_TRUE(dock->isVisible()) << dock->objectName().toStdString();
}

} // namespace
