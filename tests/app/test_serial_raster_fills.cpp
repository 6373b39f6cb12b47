// The window's executables keep Qt's raster fills on the painting thread (app/gui/
// serial_raster_fills.h). In a process linked as they are, a fill of 2000 rows (translucent, a
// gradient, a long line: what Qt 6.4 hands to its thread pool) starts no thread; without the link
// Qt starts its pool's threads for it. And the environment switch of newer Qt versions is set,
// unless the user set it.
#include "app/gui/serial_raster_fills.h"

#include <QGuiApplication>
#include <QImage>
#include <QLinearGradient>
#include <QPainter>
#include <QtGlobal>
#include <filesystem>
#include <gtest/gtest.h>

namespace {

int threadsOfThisProcess() {
    int n = 0;
    for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task"))
        ++n;
    return n;
}

TEST(SerialRasterFills, AFillOfManyRowsStartsNoThread) {
    if (!std::filesystem::exists("/proc/self/task")) GTEST_SKIP() << "no /proc/self/task here";
    const int before = threadsOfThisProcess();
    QImage image(2000, 2000, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    {
        QPainter p(&image);
        p.fillRect(image.rect(), QColor(10, 20, 30, 128));
        QLinearGradient gradient(0, 0, 2000, 2000);
        gradient.setColorAt(0, Qt::red);
        gradient.setColorAt(1, Qt::blue);
        p.fillRect(image.rect(), gradient);
        p.drawLine(0, 0, 1999, 1999);
    }
    EXPECT_EQ(threadsOfThisProcess(), before);
    // The fills were made: off the line, the gradient's ends are its colours.
    EXPECT_GT(qRed(image.pixel(10, 1)), 200);
    EXPECT_GT(qBlue(image.pixel(1990, 1998)), 200);
}

TEST(SerialRasterFills, NewerQtIsToldByItsEnvironmentSwitchUnlessTheUserSetIt) {
    qunsetenv("QT_NO_GUI_THREADPOOL");
    ls::app::keepRasterFillsOnThePaintingThread();
    EXPECT_EQ(qgetenv("QT_NO_GUI_THREADPOOL"), QByteArray("1"));
    qputenv("QT_NO_GUI_THREADPOOL", "yes");
    ls::app::keepRasterFillsOnThePaintingThread();
    EXPECT_EQ(qgetenv("QT_NO_GUI_THREADPOOL"), QByteArray("yes"));
}

} // namespace

int main(int argc, char** argv) {
    ls::app::keepRasterFillsOnThePaintingThread();
    QGuiApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
