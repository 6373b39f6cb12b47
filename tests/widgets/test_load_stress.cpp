// The main window under stress (issue 14), offscreen: a second file opened while the first loads,
// Cancel at every point of a load, the window closed or destroyed mid-load, folders and non-trace
// files dropped on it, a trace without kernels, the same file twice. After each scenario the
// title, the status bar and every pane show the last file opened (checked against an independent
// ls::loadTrace of that file), never a stale mix, and no loader thread is left running.
#include "core/load/load.h"
#include "core/reports/summary.h"
#include "core/views/fwd_bwd.h"
#include "core/views/layer_tree.h"
#include "tests/widgets/widget_test_support.h"
#include "widgets/window/main_window.h"
#include "widgets/panes/fwd_bwd_panel.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/tables/layer_tree_model.h"
#include "widgets/timeline/timeline_area.h"
#include "widgets/session/trace_loader.h"
#include "widgets/util/units.h"

#include <QCoreApplication>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QThreadPool>
#include <QTimer>
#include <QTreeView>
#include <QUrl>

#include <gtest/gtest.h>

#include <sqlite3.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <thread>

namespace {

using ls::gui::MainWindow;
using ls::gui::TraceLoader;
using namespace ls::gui::test;

constexpr int kLoadTimeoutMs = 60000;

// Threads of this process, from the kernel's view: a loader thread (or one of its readers) that
// was never joined, or still runs, shows up here.
int threadCount() { return static_cast<int>(QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size()); }

// Waits (processing events) until at most `baseline` threads are left; true when they are.
bool waitForThreads(int baseline, int timeoutMs = 30000) {
    QElapsedTimer timer;
    timer.start();
    while (threadCount() > baseline && timer.elapsed() < timeoutMs) QTest::qWait(10);
    QCoreApplication::processEvents();
    return threadCount() <= baseline;
}

// What an independent load of a file gives: the numbers every pane must show for it.
struct Expected {
    QString path;
    size_t kernels = 0, apiCalls = 0, ranges = 0;
    int layerRows = 0;       // top-level rows of the layer tree
    int summaryRows = 0;     // kernel summary by name
    size_t forwardRows = 0;  // Forward/Backward pane, forward side
    double gpuTimeNs = 0;    // every kernel's duration, summed here
};

Expected expectedFor(const QString& path) {
    Expected e;
    e.path = path;
    const auto r = ls::loadTrace(path.toStdString());
    EXPECT_TRUE(r.ok()) << path.toStdString() << ": " << (r.error ? r.error->reason : "");
    if (!r.ok()) return e;
    const ls::Trace& t = *r.trace;
    e.kernels = t.kernels.size();
    e.apiCalls = t.apiCalls.size();
    e.ranges = t.ranges.size();
    const ls::LayerTree tree = ls::buildLayerTree(t);
    e.layerRows = static_cast<int>(ls::layerTreeChildren(tree, 0).size());
    e.summaryRows = static_cast<int>(ls::kernelSummary(t, ls::KernelGrouping::Name, ls::KernelNaming::Demangled).size());
    e.forwardRows = ls::buildFwdBwdPairs(t).forward.size();
    for (size_t k = 0; k < t.kernels.size(); ++k) e.gpuTimeNs += static_cast<double>(t.kernels.duration(k));
    return e;
}

QLabel* statusLabel(const MainWindow& w) { return w.statusBar()->findChild<QLabel*>(); }
QPushButton* cancelButton(const MainWindow& w) { return w.statusBar()->findChild<QPushButton*>(); }
QProgressBar* progressBar(const MainWindow& w) { return w.statusBar()->findChild<QProgressBar*>(); }
TraceLoader* loaderOf(const MainWindow& w) { return w.findChild<TraceLoader*>(); }
QString statusText(const MainWindow& w) { return statusLabel(w)->text(); }
QTextBrowser* reportView(const MainWindow& w) {
    auto* tabs = qobject_cast<QTabWidget*>(w.centralWidget());
    return tabs ? qobject_cast<QTextBrowser*>(tabs->widget(3)) : nullptr;
}
const ls::TimelineData* timelineData(const MainWindow& w) {
    auto* area = w.findChild<ls::gui::TimelineArea*>();
    return area ? area->view()->data() : nullptr;
}

// Every pane shows e's file and nothing else. The status bar is checked separately: after a
// failed or cancelled open it says so while the panes keep the trace.
void expectPanesShow(const MainWindow& w, const Expected& e) {
    SCOPED_TRACE("showing " + e.path.toStdString());
    ASSERT_TRUE(w.trace());
    ASSERT_TRUE(w.session());
    const ls::Trace& t = *w.trace();
    EXPECT_EQ(QString::fromStdString(t.path), e.path);
    EXPECT_EQ(t.kernels.size(), e.kernels);
    EXPECT_EQ(t.apiCalls.size(), e.apiCalls);
    EXPECT_EQ(t.ranges.size(), e.ranges);
    EXPECT_EQ(w.windowTitle(), QStringLiteral("%1 — Layerscope").arg(QFileInfo(e.path).fileName()));
    EXPECT_EQ(w.windowFilePath(), QFileInfo(e.path).absoluteFilePath());
    // Kernel table: every kernel of this trace (no filter or scope is set in these tests).
    EXPECT_EQ(w.kernelView()->filterEdit()->text(), QString());
    ASSERT_NE(w.kernelModel()->table(), nullptr);
    EXPECT_EQ(&w.kernelModel()->table()->trace(), &t);
    EXPECT_EQ(static_cast<size_t>(w.kernelModel()->rowCount()), e.kernels);
    // Layer tree: its top rows, whose kernel counts add up to all kernels.
    EXPECT_EQ(w.layerModel()->rowCount(), e.layerRows);
    uint64_t treeKernels = 0;
    for (int r = 0; r < w.layerModel()->rowCount(); ++r)
        treeKernels += w.layerModel()->index(r, ls::gui::LayerTreeModel::Kernels).data(ls::gui::LayerTreeModel::SortRole).toULongLong();
    EXPECT_EQ(treeKernels, e.kernels);
    // Summary tab, Forward/Backward tab, timeline and Load report tab.
    EXPECT_EQ(w.summaryView()->model()->rowCount(), e.summaryRows);
    EXPECT_EQ(static_cast<size_t>(w.fwdBwdPanel()->forwardView()->model()->rowCount()), e.forwardRows);
    ASSERT_NE(timelineData(w), nullptr);
    EXPECT_EQ(timelineData(w)->trace.get(), &t) << "the timeline shows another trace";
    // Its paint, held while the table and tree paint first, is on again whatever came in between.
    EXPECT_TRUE(w.findChild<ls::gui::TimelineArea*>()->updatesEnabled()) << "the timeline no longer repaints";
    ASSERT_NE(reportView(w), nullptr);
    EXPECT_TRUE(reportView(w)->toPlainText().contains(e.path)) << reportView(w)->toPlainText().left(200).toStdString();
    // Not loading any more.
    EXPECT_TRUE(progressBar(w)->isHidden());
    EXPECT_TRUE(cancelButton(w)->isHidden());
}

// Panes and status bar show e's file, as after a successful open.
void expectShows(const MainWindow& w, const Expected& e) {
    expectPanesShow(w, e);
    const QString status = statusText(w);
    EXPECT_TRUE(status.startsWith(QStringLiteral("Span "))) << status.toStdString();
    EXPECT_TRUE(status.contains(QStringLiteral("  ·  %1 kernels  ·  ").arg(QLocale().toString(static_cast<qulonglong>(e.kernels)))))
        << status.toStdString() << " (expected " << e.kernels << " kernels)";
    EXPECT_TRUE(status.contains(QStringLiteral("  ·  GPU time %1  ·  ").arg(ls::gui::formatDuration(e.gpuTimeNs))))
        << status.toStdString() << " (expected GPU time " << ls::gui::formatDuration(e.gpuTimeNs).toStdString() << ")";
}

void expectEmpty(const MainWindow& w) {
    EXPECT_FALSE(w.trace());
    EXPECT_EQ(w.windowTitle(), QStringLiteral("Layerscope"));
    EXPECT_EQ(w.kernelModel()->rowCount(), 0);
    EXPECT_EQ(w.layerModel()->rowCount(), 0);
    EXPECT_EQ(w.summaryView()->model()->rowCount(), 0);
    EXPECT_EQ(timelineData(w), nullptr);
    EXPECT_TRUE(progressBar(w)->isHidden());
    EXPECT_TRUE(cancelButton(w)->isHidden());
}

bool execSql(const QString& file, const char* sql) {
    sqlite3* db = nullptr;
    bool ok = sqlite3_open(file.toUtf8().constData(), &db) == SQLITE_OK;
    char* err = nullptr;
    if (ok && sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
        ADD_FAILURE() << "SQL failed on " << file.toStdString() << ": " << (err ? err : "?");
        ok = false;
    }
    sqlite3_free(err);
    sqlite3_close(db);
    return ok;
}

// Traces made at test time from the bundled sample, in a fresh folder.
class LoadStress : public ::testing::Test {
protected:
    void SetUp() override {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        ASSERT_TRUE(dir_.isValid());
        sample_ = copyOfSample(QStringLiteral("sample.sqlite"));
    }

    QString copyOfSample(const QString& name) {
        const QString path = dir_.filePath(name);
        QFile::remove(path);
        EXPECT_TRUE(QFile::copy(samplePath(), path));
        QFile(path).setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        return path;
    }
    // The sample with every other kernel removed: a second trace whose counts differ.
    QString fewerKernels() {
        const QString path = copyOfSample(QStringLiteral("fewer.sqlite"));
        execSql(path, "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid % 2 = 0; VACUUM;");
        return path;
    }
    QString noKernels() {
        const QString path = copyOfSample(QStringLiteral("no-kernels.sqlite"));
        execSql(path, "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL; VACUUM;");
        return path;
    }
    // The sample with its event tables doubled four times (16x the rows): a load that takes long
    // enough to be cancelled in each of its phases.
    QString bigTrace() {
        const QString path = copyOfSample(QStringLiteral("big.sqlite"));
        for (int i = 0; i < 4; ++i)
            execSql(path, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL;"
                          "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME;"
                          "INSERT INTO NVTX_EVENTS SELECT * FROM NVTX_EVENTS;");
        return path;
    }

    std::unique_ptr<MainWindow> newWindow() {
        auto w = std::make_unique<MainWindow>();
        w->resize(1400, 900);
        w->show();
        QCoreApplication::processEvents();
        return w;
    }

    // Opens path and waits until that load is shown.
    static bool openAndWait(MainWindow& w, const QString& path) {
        QSignalSpy loaded(&w, &MainWindow::traceLoaded);
        w.openFile(path);
        return loaded.wait(kLoadTimeoutMs);
    }

    QTemporaryDir dir_;
    QString sample_;
};

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
    for (const Case& c : {Case{"big, then sample at once", big, sample, false}, Case{"big, then fewer after progress", big, few, true},
                          Case{"sample, then fewer at once", sample_, few, false}, Case{"fewer, then sample at once", fewer, sample, false},
                          Case{"big, then sample after progress", big, sample, true}}) {
        SCOPED_TRACE(c.what);
        QSignalSpy loaded(w.get(), &MainWindow::traceLoaded), failed(w.get(), &MainWindow::loadFailed);
        QSignalSpy progress(loaderOf(*w), &TraceLoader::progress), cancelled(loaderOf(*w), &TraceLoader::cancelled);
        w->openFile(c.first);
        if (c.afterProgress) {
            ASSERT_TRUE(progress.count() > 0 || progress.wait(kLoadTimeoutMs));
        }
        w->openFile(c.second.path);
        ASSERT_TRUE(loaded.wait(kLoadTimeoutMs));
        // Let the superseded load end and anything it posted arrive.
        EXPECT_TRUE(waitForThreads(baseline)) << threadCount() << " threads, " << baseline << " before";
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
        QSignalSpy cancelled(loader, &TraceLoader::cancelled), loaded(w.get(), &MainWindow::traceLoaded);
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
    const auto cancelledRun = [&](const std::string& what, const std::function<void()>& arm, bool mustCancel) {
        SCOPED_TRACE(what);
        QSignalSpy cancelled(loader, &TraceLoader::cancelled), loaded(w.get(), &MainWindow::traceLoaded),
            failed(w.get(), &MainWindow::loadFailed);
        w->openFile(big);
        arm();
        QElapsedTimer timer;
        timer.start();
        while (cancelled.isEmpty() && loaded.isEmpty() && failed.isEmpty() && timer.elapsed() < kLoadTimeoutMs) QTest::qWait(5);
        cancelTimer.stop();
        ASSERT_EQ(cancelled.count() + loaded.count(), 1) << "one end per load; failed " << failed.count();
        EXPECT_TRUE(waitForThreads(baseline)) << threadCount() << " threads, " << baseline << " before";
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

    cancelledRun("at once", [&] { cancelButton(*w)->click(); }, true);
    // Right after the n-th progress report, until a load ends before reporting n times.
    int reports = 0;
    for (int n = 1; n <= 64; ++n) {
        bool reached = false;
        cancelledRun("after progress report " + std::to_string(n),
                     [&] {
                         auto count = std::make_shared<int>(0);
                         auto conn = std::make_shared<QMetaObject::Connection>();
                         *conn = QObject::connect(loader, &TraceLoader::progress, w.get(), [&, count, conn, n] {
                             if (++*count != n) return;
                             reached = true;
                             EXPECT_FALSE(cancelButton(*w)->isHidden());
                             EXPECT_TRUE(statusText(*w).startsWith(QStringLiteral("Reading "))) << statusText(*w).toStdString();
                             cancelButton(*w)->click();
                             QObject::disconnect(*conn);
                         });
                         QObject::connect(loader, &TraceLoader::cancelled, w.get(), [conn] { QObject::disconnect(*conn); });
                         QObject::connect(w.get(), &MainWindow::traceLoaded, w.get(), [conn] { QObject::disconnect(*conn); });
                     },
                     false);
        if (!reached) break;
        reports = n;
    }
    EXPECT_GE(reports, 1) << "the load reports progress";
    // After fixed delays: the later ones land after the read, in the build and table phases.
    for (int ms : {0, 1, 2, 5, 10, 20, 40, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920}) {
        cancelledRun("after " + std::to_string(ms) + " ms",
                     [&] { cancelTimer.start(ms); }, false);
        if (outcomes["loaded anyway"] >= 2) break; // past the end of the load twice: later delays add nothing
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
                      QSignalSpy cancelled(loaderOf(w), &TraceLoader::cancelled), loaded(&w, &MainWindow::traceLoaded);
                      EXPECT_TRUE(w.close());
                      QElapsedTimer t;
                      t.start();
                      while (cancelled.isEmpty() && loaded.isEmpty() && t.elapsed() < kLoadTimeoutMs) QTest::qWait(5);
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
                      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
                      while (threadCount() > baseline && std::chrono::steady_clock::now() < deadline)
                          std::this_thread::sleep_for(std::chrono::milliseconds(5)); // no events processed
                      EXPECT_TRUE(loaderOf(w)->busy()) << "the result was delivered although no events ran";
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
            EXPECT_LE(threadCount(), baseline) << "threads still running right after the window was destroyed";
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

void dragAndDrop(MainWindow& w, const QMimeData& mime, bool expectAccepted) {
    QDragEnterEvent enter(QPoint(700, 450), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    enter.setAccepted(false);
    QCoreApplication::sendEvent(&w, &enter);
    EXPECT_EQ(enter.isAccepted(), expectAccepted) << "drag enter";
    QDropEvent drop(QPointF(700, 450), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&w, &drop);
}
void dropUrls(MainWindow& w, const QList<QUrl>& urls) {
    QMimeData mime;
    mime.setUrls(urls);
    dragAndDrop(w, mime, true);
}

// (d) Dropping a folder or a file that is not a trace: a one-line error in the status bar (the
// dialog is skipped offscreen), and the trace shown before stays shown, whole.
TEST_F(LoadStress, DroppingAFolderOrANonTraceKeepsTheCurrentTrace) {
    const Expected sample = expectedFor(sample_);
    const QString fewer = fewerKernels();
    const Expected few = expectedFor(fewer);
    auto w = newWindow();
    const int baseline = threadCount();
    {
        // A trace dropped on the window opens: the drop path works.
        QSignalSpy loaded(w.get(), &MainWindow::traceLoaded);
        dropUrls(*w, {QUrl::fromLocalFile(sample_)});
        ASSERT_TRUE(loaded.wait(kLoadTimeoutMs));
        expectShows(*w, sample);
    }
    const QString folder = dir_.filePath(QStringLiteral("a folder.sqlite"));
    ASSERT_TRUE(QDir().mkpath(folder));
    const QString text = dir_.filePath(QStringLiteral("notes.txt"));
    {
        QFile f(text);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("not a trace\n");
    }
    const QString nsysRep = dir_.filePath(QStringLiteral("report.nsys-rep"));
    {
        QFile f(nsysRep);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(8192, '\x7f'));
    }
    struct Bad {
        QString path;
        QString reasonHas;
    };
    // A dropped folder opens the traces in it as one session: this one holds none.
    for (const Bad& b : {Bad{folder, QStringLiteral("holds no trace files")}, Bad{text, QStringLiteral("not an SQLite database")},
                         Bad{nsysRep, QStringLiteral("not an Nsight Systems report")}}) {
        SCOPED_TRACE(b.path.toStdString());
        QSignalSpy failed(w.get(), &MainWindow::loadFailed), loaded(w.get(), &MainWindow::traceLoaded);
        dropUrls(*w, {QUrl::fromLocalFile(b.path)});
        ASSERT_TRUE(failed.wait(kLoadTimeoutMs));
        const QString reason = failed.first().first().toString();
        EXPECT_TRUE(reason.contains(b.reasonHas)) << reason.toStdString();
        EXPECT_FALSE(reason.contains(QLatin1Char('\n')));
        EXPECT_EQ(statusText(*w), QStringLiteral("Could not open %1: %2").arg(QFileInfo(b.path).fileName(), reason));
        EXPECT_EQ(loaded.count(), 0);
        expectPanesShow(*w, sample);
    }
    {
        // Not a local file, or no URLs at all: refused or ignored, nothing starts.
        const QString before = statusText(*w);
        QSignalSpy failed(w.get(), &MainWindow::loadFailed), loaded(w.get(), &MainWindow::traceLoaded);
        dropUrls(*w, {QUrl(QStringLiteral("https://example.com/trace.sqlite"))});
        QMimeData plain;
        plain.setText(sample_);
        dragAndDrop(*w, plain, false);
        QTest::qWait(200);
        EXPECT_EQ(failed.count() + loaded.count(), 0);
        EXPECT_EQ(statusText(*w), before);
        EXPECT_FALSE(loaderOf(*w)->busy());
        expectPanesShow(*w, sample);
    }
    {
        // A folder dropped while another trace loads: the load is dropped, the error shown, the
        // earlier trace kept.
        QSignalSpy failed(w.get(), &MainWindow::loadFailed), loaded(w.get(), &MainWindow::traceLoaded);
        w->openFile(fewer);
        dropUrls(*w, {QUrl::fromLocalFile(folder)});
        ASSERT_TRUE(failed.wait(kLoadTimeoutMs));
        EXPECT_TRUE(waitForThreads(baseline));
        QTest::qWait(50);
        EXPECT_EQ(loaded.count(), 0);
        EXPECT_EQ(failed.count(), 1);
        expectPanesShow(*w, sample);
        EXPECT_TRUE(statusText(*w).startsWith(QStringLiteral("Could not open a folder.sqlite: "))) << statusText(*w).toStdString();
    }
    {
        // And the other way round: the folder's error never arrives once a trace was opened after it.
        QSignalSpy failed(w.get(), &MainWindow::loadFailed), loaded(w.get(), &MainWindow::traceLoaded);
        dropUrls(*w, {QUrl::fromLocalFile(folder)});
        w->openFile(fewer);
        ASSERT_TRUE(loaded.wait(kLoadTimeoutMs));
        EXPECT_TRUE(waitForThreads(baseline));
        QTest::qWait(50);
        EXPECT_EQ(failed.count(), 0);
        EXPECT_EQ(loaded.count(), 1);
        expectShows(*w, few);
    }
    {
        // Several files dropped at once are one session: the trace opens, the text file is
        // reported in the status bar and the Load report tab, without a modal dialog.
        QSignalSpy loaded(w.get(), &MainWindow::traceLoaded);
        dropUrls(*w, {QUrl::fromLocalFile(sample_), QUrl::fromLocalFile(text)});
        ASSERT_TRUE(loaded.wait(kLoadTimeoutMs));
        EXPECT_TRUE(waitForThreads(baseline));
        QTest::qWait(50);
        expectPanesShow(*w, sample);
        EXPECT_TRUE(reportView(*w)->toPlainText().contains(QStringLiteral("Not opened:")));
        EXPECT_TRUE(statusText(*w).startsWith(QStringLiteral("1 file(s) could not be opened"))) << statusText(*w).toStdString();
        EXPECT_TRUE(statusText(*w).contains(QStringLiteral("notes.txt"))) << statusText(*w).toStdString();
    }
}

// (e) A trace without kernels loads, and every pane is empty: nothing is left over from the
// trace shown before it. Working the empty panes does not crash.
TEST_F(LoadStress, TraceWithoutKernelsShowsEmptyPanes) {
    const QString empty = noKernels();
    const Expected none = expectedFor(empty), sample = expectedFor(sample_);
    ASSERT_EQ(none.kernels, 0u);
    ASSERT_GT(none.apiCalls, 0u) << "the API calls stay: it is a trace, only without kernels";
    EXPECT_EQ(none.layerRows, 0);
    EXPECT_EQ(none.summaryRows, 0);
    auto w = newWindow();
    ASSERT_TRUE(openAndWait(*w, sample_));
    expectShows(*w, sample);
    ASSERT_GT(w->kernelModel()->rowCount(), 0);

    ASSERT_TRUE(openAndWait(*w, empty));
    expectShows(*w, none);
    EXPECT_TRUE(statusText(*w).contains(QStringLiteral("  ·  0 kernels  ·  "))) << statusText(*w).toStdString();
    EXPECT_EQ(w->fwdBwdPanel()->forwardKernels()->rowCount(), 0);
    EXPECT_EQ(w->fwdBwdPanel()->backwardKernels()->rowCount(), 0);
    EXPECT_TRUE(timelineData(*w)->kernelLane.empty());
    EXPECT_FALSE(w->detailsView()->toPlainText().isEmpty());

    // Work the empty panes.
    w->kernelModel()->sort(static_cast<int>(ls::KernelField::Duration), Qt::DescendingOrder);
    w->kernelView()->applyFilter(QStringLiteral("duration > 1us"));
    w->kernelView()->applyFilter(QString());
    w->showLayerNode(0);
    w->showLayerNode(12345);
    w->layerView()->expandAll();
    for (int tab = 0; tab < 4; ++tab) {
        qobject_cast<QTabWidget*>(w->centralWidget())->setCurrentIndex(tab);
        QCoreApplication::processEvents();
    }
    w->repaint();
    EXPECT_EQ(w->kernelModel()->rowCount(), 0);
    EXPECT_EQ(w->layerModel()->rowCount(), 0);

    // And back to a trace with kernels.
    ASSERT_TRUE(openAndWait(*w, sample_));
    expectShows(*w, sample);
}

// (f) The same file twice: at once (the first load superseded) and one after the other. It is
// shown once, not doubled, and listed once in Open Recent.
TEST_F(LoadStress, SameFileTwiceIsShownOnce) {
    const Expected sample = expectedFor(sample_);
    auto w = newWindow();
    const int baseline = threadCount();
    {
        QSignalSpy loaded(w.get(), &MainWindow::traceLoaded), cancelled(loaderOf(*w), &TraceLoader::cancelled);
        w->openFile(sample_);
        w->openFile(sample_);
        ASSERT_TRUE(loaded.wait(kLoadTimeoutMs));
        EXPECT_TRUE(waitForThreads(baseline));
        QTest::qWait(50);
        EXPECT_EQ(loaded.count(), 1);
        EXPECT_EQ(cancelled.count(), 0) << "the superseded first load is dropped silently";
        expectShows(*w, sample);
    }
    const auto* first = w->trace().get();
    ASSERT_TRUE(openAndWait(*w, sample_));
    EXPECT_TRUE(waitForThreads(baseline));
    expectShows(*w, sample);
    EXPECT_NE(w->trace().get(), first) << "reopening reads the file again";
    const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    EXPECT_EQ(recent.count(QFileInfo(sample_).absoluteFilePath()), 1) << recent.join(QLatin1Char(' ')).toStdString();
    EXPECT_EQ(recent.value(0), QFileInfo(sample_).absoluteFilePath());
}

} // namespace
