// The window while a file loads: a load held half way (a kernels hook that blocks the reading
// thread) shows the loading page with the kernels read so far drawn per stream and the rows read,
// the table, tree, details and tabs disabled; released, the whole model arrives and everything is
// usable again. Cancel from the loading page puts back what the window showed before.
#include "widgets/session/trace_loader.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/timeline/load_overview_view.h"
#include "widgets/window/loading_page.h"
#include "widgets/window/main_window.h"

#include <QDockWidget>
#include <QImage>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <atomic>
#include <condition_variable>
#include <gtest/gtest.h>
#include <mutex>
#include <sqlite3.h>

namespace {

using ls::gui::LoadingPage;
using ls::gui::MainWindow;
using ls::gui::TraceLoader;

constexpr int kKernels = 40000;     // five batches of 8192 rows and a rest
constexpr uint64_t kHoldAt = 24576; // the preview and one batch read: held there

// An Nsight Systems-shaped export of kKernels kernels, 1 µs apart, alternating streams 7 and 8.
QString writeFixture(const QTemporaryDir& dir) {
    const QString path = dir.filePath(QStringLiteral("progressive.sqlite"));
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
    const std::string sql =
        "CREATE TABLE StringIds(id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO StringIds VALUES (1, 'ampere_sgemm_128x64_nn'), (2, 'ampere_sgemm');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER "
        "DEFAULT 0, contextId INTEGER DEFAULT 1, streamId INTEGER, correlationId INTEGER, "
        "globalPid INTEGER DEFAULT 1677721600, demangledName INTEGER, shortName INTEGER, "
        "mangledName INTEGER, registersPerThread INTEGER DEFAULT 32, gridX INTEGER DEFAULT 1, "
        "gridY INTEGER DEFAULT 1, gridZ INTEGER DEFAULT 1, blockX INTEGER DEFAULT 128, blockY "
        "INTEGER DEFAULT 1, blockZ INTEGER DEFAULT 1, staticSharedMemory INTEGER DEFAULT 0, "
        "dynamicSharedMemory INTEGER DEFAULT 0);"
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < " +
        std::to_string(kKernels - 1) +
        ") INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, streamId, correlationId, "
        "demangledName, shortName) SELECT 1000000 + i * 1000, 1000000 + i * 1000 + 600, "
        "7 + i % 2, i + 1, 1, 2 FROM n;";
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
        << (error ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
    return path;
}

// Holds the load's reading thread once kHoldAt kernels are in the overview, until release();
// released on destruction too, so that a failed check never leaves the thread blocked (declared
// after the window: it goes first, and the window's tracker can join the load).
class Hold {
  public:
    void install(TraceLoader& loader) {
        loader.setKernelsHook([this](uint64_t kernels) {
            if (kernels < kHoldAt) return;
            std::unique_lock lock(mutex_);
            if (held_) return; // once
            held_ = true;
            reached_ = true;
            released_.wait(lock, [this] { return free_; });
        });
    }
    bool reached() const { return reached_; }
    void release() {
        {
            std::lock_guard lock(mutex_);
            free_ = true;
        }
        released_.notify_all();
    }
    ~Hold() { release(); }

  private:
    std::mutex mutex_;
    std::condition_variable released_;
    bool held_ = false, free_ = false;
    std::atomic<bool> reached_{false};
};

bool anyBarPixel(const QImage& image) {
    for (int y = 0; y < image.height(); ++y)
        for (int x = image.width() / 4; x < image.width(); ++x)
            if (image.pixelColor(x, y) == QColor(0x4a, 0x90, 0xd9)) return true;
    return false;
}

void expectDocksEnabled(MainWindow& w, bool enabled) {
    EXPECT_EQ(w.kernelView()->isEnabled(), enabled);
    EXPECT_EQ(w.layerView()->isEnabled(), enabled);
    for (auto* dock : w.findChildren<QDockWidget*>()) {
        if (!QStringList{QStringLiteral("layersDock"), QStringLiteral("kernelsDock"),
                         QStringLiteral("detailsDock")}
                 .contains(dock->objectName()))
            continue;
        EXPECT_EQ(dock->windowTitle().endsWith(QStringLiteral("loading…")), !enabled)
            << dock->windowTitle().toStdString();
    }
}

TEST(ProgressiveOpen, HeldHalfWayShowsTheKernelsSoFarAndDisablesTheRest) {
    QTemporaryDir dir;
    const QString path = writeFixture(dir);
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    Hold hold;
    auto* loader = w.findChild<TraceLoader*>();
    ASSERT_NE(loader, nullptr);
    hold.install(*loader);
    QSignalSpy framed(&w, &MainWindow::loadingFirstFrame);
    QSignalSpy ready(&w, &MainWindow::windowReady);
    w.openFile(path);

    LoadingPage* page = w.loadingPage();
    ASSERT_TRUE(QTest::qWaitFor([&] { return hold.reached(); }, 30000));
    // The page polls the overview a few times a second: wait for it to hold the kernels so far.
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return page->overview()->snapshot().kernels >= kHoldAt && framed.count() > 0; },
        5000));
    EXPECT_EQ(w.centralWidget(), page);
    const auto& shot = page->overview()->snapshot();
    EXPECT_LT(shot.kernels, static_cast<uint64_t>(kKernels)); // half way: not all of them
    ASSERT_EQ(shot.lanes.size(), 2u);
    EXPECT_EQ(shot.lanes[0].stream, 7u);
    EXPECT_EQ(shot.lanes[1].stream, 8u);
    EXPECT_EQ(shot.lanes[0].kernels + shot.lanes[1].kernels, shot.kernels);
    EXPECT_EQ(shot.fromNs, 1000000);
    EXPECT_TRUE(anyBarPixel(page->overview()->grab().toImage()));
    EXPECT_TRUE(
        page->progressText().contains(QRegularExpression(QStringLiteral("of 40[,.]?000 rows"))))
        << page->progressText().toStdString();
    EXPECT_TRUE(page->cancelButton()->isVisible());
    // Nothing of the model yet: the table, tree, details and tabs take no input.
    EXPECT_EQ(w.trace(), nullptr);
    EXPECT_EQ(ready.count(), 0);
    expectDocksEnabled(w, false);
    EXPECT_FALSE(w.findChild<QTabWidget*>()->isEnabled());

    hold.release();
    ASSERT_TRUE(ready.count() > 0 || ready.wait(60000));
    ASSERT_NE(w.trace(), nullptr);
    EXPECT_EQ(w.trace()->kernels.size(), static_cast<size_t>(kKernels));
    EXPECT_NE(w.centralWidget(), page);
    EXPECT_FALSE(page->isVisible());
    expectDocksEnabled(w, true);
    EXPECT_TRUE(w.findChild<QTabWidget*>()->isEnabled());
    EXPECT_EQ(w.kernelModel()->rowCount(), kKernels);
}

TEST(ProgressiveOpen, CancelWhileHeldPutsBackWhatWasShown) {
    QTemporaryDir dir;
    const QString path = writeFixture(dir);
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    w.showStartPage();
    QWidget* before = w.centralWidget();
    Hold hold;
    hold.install(*w.findChild<TraceLoader*>());
    QSignalSpy cancelled(w.findChild<TraceLoader*>(), &TraceLoader::cancelled);
    w.openFile(path);
    ASSERT_TRUE(QTest::qWaitFor([&] { return hold.reached(); }, 30000));
    EXPECT_EQ(w.centralWidget(), w.loadingPage());
    QTest::mouseClick(w.loadingPage()->cancelButton(), Qt::LeftButton);
    hold.release(); // the held thread sees the cancel at its next batch
    ASSERT_TRUE(cancelled.count() > 0 || cancelled.wait(30000));
    EXPECT_EQ(w.centralWidget(), before);
    EXPECT_EQ(w.trace(), nullptr);
    EXPECT_EQ(w.statusText(), QStringLiteral("Loading cancelled"));
    expectDocksEnabled(w, true);
}

} // namespace
