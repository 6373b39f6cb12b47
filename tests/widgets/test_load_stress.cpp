// The main window under stress (issue 14), offscreen: a second file opened while the first loads,
// Cancel at every point of a load, the window closed or destroyed mid-load, folders and non-trace
// files dropped on it, a trace without kernels, the same file twice. After each scenario the
// title, the status bar and every pane show the last file opened (checked against an independent
// ls::loadTrace of that file), never a stale mix, and no loader thread is left running.
#include "tests/widgets/load_stress_support.h"

#include <gtest/gtest.h>

namespace {

using namespace ls::gui::test::stress;
using ls::gui::MainWindow;
using namespace ls::gui::test;

// (a) The first load is superseded: whichever finishes first, the window shows the second file
// and the first result never reaches it, not even late.
TEST_F(LoadStress, SecondOpenWhileTheFirstLoadsShowsTheSecond) {
    const QString fewer = fewerKernels(), big = bigTrace();
    const Expected sample = expectedFor(sample_), few = expectedFor(fewer);
    ASSERT_NE(sample.kernels, few.kernels);
    auto w = newWindow();
    const int baseline = threadCount();
    struct Case {
        const char* what;
        QString first;
        const Expected& second;
        bool afterProgress; // open the second once the first reports progress
    };
    for (const Case& c : {Case{"big, then sample at once", big, sample, false},
                          Case{"big, then fewer after progress", big, few, true},
                          Case{"sample, then fewer at once", sample_, few, false},
                          Case{"fewer, then sample at once", fewer, sample, false},
                          Case{"big, then sample after progress", big, sample, true}}) {
        SCOPED_TRACE(c.what);
        QSignalSpy loaded(w.get(), &MainWindow::traceLoaded),
            failed(w.get(), &MainWindow::loadFailed);
        QSignalSpy progress(loaderOf(*w), &TraceLoader::progress),
            cancelled(loaderOf(*w), &TraceLoader::cancelled);
        w->openFile(c.first);
        if (c.afterProgress) {
            ASSERT_TRUE(progress.count() > 0 || progress.wait(kLoadTimeoutMs));
        }
        w->openFile(c.second.path);
        ASSERT_TRUE(loaded.wait(kLoadTimeoutMs));
        // Let the superseded load end and anything it posted arrive.
        EXPECT_TRUE(waitForThreads(baseline))
            << threadCount() << " threads, " << baseline << " before";
        QTest::qWait(50);
        EXPECT_EQ(loaded.count(), 1) << "the first load's result was shown too";
        EXPECT_EQ(failed.count(), 0);
        EXPECT_EQ(cancelled.count(), 0) << "a superseded load is dropped silently";
        EXPECT_FALSE(loaderOf(*w)->busy());
        expectShows(*w, c.second);
    }
}

// (b) Cancel at every point: before the first progress report, right after each one in turn,
// and at delays that land in the read, build, correlation and table-building phases. The window
// keeps what it showed (a previous trace, or nothing), or shows the new trace whole when Cancel
// came too late; a later open works.
TEST_F(LoadStress, CancelInEveryPhaseKeepsAConsistentWindow) {
    const QString big = bigTrace(), fewer = fewerKernels();
    const Expected bigE = expectedFor(big), few = expectedFor(fewer), sample = expectedFor(sample_);
    auto w = newWindow();
    const int baseline = threadCount();
    TraceLoader* loader = loaderOf(*w);

    // Empty window, Cancel at once: stays empty.
    {
        QSignalSpy cancelled(loader, &TraceLoader::cancelled),
            loaded(w.get(), &MainWindow::traceLoaded);
        w->openFile(big);
        ASSERT_FALSE(cancelButton(*w)->isHidden()) << "Cancel is offered while loading";
        cancelButton(*w)->click();
        ASSERT_TRUE(cancelled.wait(kLoadTimeoutMs));
        EXPECT_TRUE(waitForThreads(baseline));
        EXPECT_EQ(loaded.count(), 0);
        expectEmpty(*w);
        EXPECT_EQ(statusText(*w), QStringLiteral("Loading cancelled"));
    }
    ASSERT_TRUE(openAndWait(*w, fewer));
    expectShows(*w, few);

    // Runs one load of big, cancelled by `arm`, and checks the window afterwards.
    std::map<std::string, int> outcomes;
    // A timed Cancel that did not fire before its load ended must not hit a later load.
    QTimer cancelTimer;
    cancelTimer.setSingleShot(true);
    QObject::connect(&cancelTimer, &QTimer::timeout, cancelButton(*w), &QPushButton::click);
    const auto cancelledRun = [&](const std::string& what, const std::function<void()>& arm,
                                  bool mustCancel) {
        SCOPED_TRACE(what);
        QSignalSpy cancelled(loader, &TraceLoader::cancelled),
            loaded(w.get(), &MainWindow::traceLoaded), failed(w.get(), &MainWindow::loadFailed);
        w->openFile(big);
        arm();
        QElapsedTimer timer;
        timer.start();
        while (cancelled.isEmpty() && loaded.isEmpty() && failed.isEmpty() &&
               timer.elapsed() < kLoadTimeoutMs)
            QTest::qWait(5);
        cancelTimer.stop();
        ASSERT_EQ(cancelled.count() + loaded.count(), 1)
            << "one end per load; failed " << failed.count();
        EXPECT_TRUE(waitForThreads(baseline))
            << threadCount() << " threads, " << baseline << " before";
        QTest::qWait(20);
        EXPECT_EQ(cancelled.count() + loaded.count(), 1);
        EXPECT_EQ(failed.count(), 0);
        EXPECT_FALSE(loader->busy());
        if (cancelled.count()) {
            ++outcomes["cancelled"];
            expectPanesShow(*w, few);
            EXPECT_EQ(statusText(*w), QStringLiteral("Loading cancelled"));
        } else {
            EXPECT_FALSE(mustCancel) << "Cancel came before the load could end";
            ++outcomes["loaded anyway"];
            expectShows(*w, bigE);
            ASSERT_TRUE(openAndWait(*w, fewer)); // back to the previous trace for the next round
            expectShows(*w, few);
        }
    };

    cancelledRun(
        "at once", [&] { cancelButton(*w)->click(); }, true);
    // Right after the n-th progress report, until a load ends before reporting n times.
    int reports = 0;
    for (int n = 1; n <= 64; ++n) {
        bool reached = false;
        cancelledRun(
            "after progress report " + std::to_string(n),
            [&] {
                auto count = std::make_shared<int>(0);
                auto conn = std::make_shared<QMetaObject::Connection>();
                *conn =
                    QObject::connect(loader, &TraceLoader::progress, w.get(), [&, count, conn, n] {
                        if (++*count != n) return;
                        reached = true;
                        EXPECT_FALSE(cancelButton(*w)->isHidden());
                        EXPECT_TRUE(statusText(*w).startsWith(QStringLiteral("Reading ")))
                            << statusText(*w).toStdString();
                        cancelButton(*w)->click();
                        QObject::disconnect(*conn);
                    });
                QObject::connect(loader, &TraceLoader::cancelled, w.get(),
                                 [conn] { QObject::disconnect(*conn); });
                QObject::connect(w.get(), &MainWindow::traceLoaded, w.get(),
                                 [conn] { QObject::disconnect(*conn); });
            },
            false);
        if (!reached) break;
        reports = n;
    }
    EXPECT_GE(reports, 1) << "the load reports progress";
    // After fixed delays: the later ones land after the read, in the build and table phases.
    for (int ms : {0, 1, 2, 5, 10, 20, 40, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920}) {
        cancelledRun(
            "after " + std::to_string(ms) + " ms", [&] { cancelTimer.start(ms); }, false);
        if (outcomes["loaded anyway"] >= 2)
            break; // past the end of the load twice: later delays add nothing
    }
    std::cout << "[ cancel ] " << reports << " progress reports per load; outcomes:";
    for (const auto& [outcome, count] : outcomes) std::cout << " " << outcome << " " << count;
    std::cout << std::endl;
    // At once always cancels; so do the cancels during the read, but for a GUI thread slower than
    // the rest of the load.
    EXPECT_GE(outcomes["cancelled"], 2);

    // A later open works.
    ASSERT_TRUE(openAndWait(*w, sample_));
    expectShows(*w, sample);
    EXPECT_TRUE(waitForThreads(baseline));
}

// (c) Closing or destroying the window while it loads: no crash, and every loader thread (and
// its readers) is joined by the time the window is gone.
TEST_F(LoadStress, ClosingOrDestroyingTheWindowMidLoadLeavesNoThread) {
    const QString big = bigTrace();
    const int baseline = threadCount();
    EXPECT_EQ(QThreadPool::globalInstance()->activeThreadCount(), 0);
    struct Case {
        const char* what;
        std::function<void(MainWindow&)> during; // after openFile, before the window goes
    };
    const auto waitProgress = [](MainWindow& w) {
        QSignalSpy progress(loaderOf(w), &TraceLoader::progress);
        EXPECT_TRUE(progress.wait(kLoadTimeoutMs));
    };
    for (const Case& c : {
             Case{"destroyed at once", [](MainWindow&) {}},
             Case{"destroyed after the first progress report", waitProgress},
             Case{"closed after the first progress report, then destroyed",
                  [&](MainWindow& w) {
                      waitProgress(w);
                      QSignalSpy cancelled(loaderOf(w), &TraceLoader::cancelled),
                          loaded(&w, &MainWindow::traceLoaded);
                      EXPECT_TRUE(w.close());
                      QElapsedTimer t;
                      t.start();
                      while (cancelled.isEmpty() && loaded.isEmpty() &&
                             t.elapsed() < kLoadTimeoutMs)
                          QTest::qWait(5);
                      EXPECT_EQ(cancelled.count() + loaded.count(), 1);
                      EXPECT_FALSE(loaderOf(w)->busy());
                  }},
             Case{"three loads superseding each other, destroyed at once",
                  [&](MainWindow& w) {
                      w.openFile(sample_);
                      w.openFile(big);
                  }},
             // The result is queued for the window but not yet delivered when it goes.
             Case{"destroyed with the finished result still queued",
                  [&](MainWindow& w) {
                      w.openFile(sample_);
                      const auto deadline =
                          std::chrono::steady_clock::now() + std::chrono::seconds(30);
                      while (threadCount() > baseline &&
                             std::chrono::steady_clock::now() < deadline)
                          std::this_thread::sleep_for(
                              std::chrono::milliseconds(5)); // no events processed
                      EXPECT_TRUE(loaderOf(w)->busy())
                          << "the result was delivered although no events ran";
                  }},
         }) {
        SCOPED_TRACE(c.what);
        {
            auto w = newWindow();
            w->openFile(big);
            c.during(*w);
            QElapsedTimer timer;
            timer.start();
            w.reset();
            EXPECT_LT(timer.elapsed(), 10000) << "destroying the window waited long for its loader";
            // The destructor joined the loader: nothing may be left, without waiting.
            EXPECT_LE(threadCount(), baseline)
                << "threads still running right after the window was destroyed";
        }
        QTest::qWait(50); // anything the loads posted arrives now, to nobody
        EXPECT_TRUE(waitForThreads(baseline));
        EXPECT_EQ(QThreadPool::globalInstance()->activeThreadCount(), 0);
    }
    // A new window still loads.
    auto w = newWindow();
    ASSERT_TRUE(openAndWait(*w, sample_));
    expectShows(*w, expectedFor(sample_));
}

} // namespace
