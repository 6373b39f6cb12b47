#pragma once
// The main window under stress, offscreen (test_load_stress.cpp, test_load_stress_drops.cpp):
// what both files share: traces made at test time from the bundled sample, the window's state
// checked against an independent ls::loadTrace of the file it should show, and thread counts.
#include "core/load/load.h"
#include "core/reports/summary.h"
#include "core/views/fwd_bwd.h"
#include "core/views/layer_tree.h"
#include "tests/widgets/widget_test_support.h"
#include "widgets/panes/fwd_bwd_panel.h"
#include "widgets/session/trace_loader.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/tables/layer_tree_model.h"
#include "widgets/timeline/timeline_area.h"
#include "widgets/util/units.h"
#include "widgets/window/main_window.h"

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
#include <chrono>
#include <functional>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <sqlite3.h>
#include <thread>

namespace ls::gui::test::stress {

using ls::gui::MainWindow;
using ls::gui::TraceLoader;
using namespace ls::gui::test;

inline constexpr int kLoadTimeoutMs = 60000;

// Threads of this process, from the kernel's view: a loader thread (or one of its readers) that
// was never joined, or still runs, shows up here.
inline int threadCount() {
    return static_cast<int>(QDir(QStringLiteral("/proc/self/task"))
                                .entryList(QDir::Dirs | QDir::NoDotAndDotDot)
                                .size());
}

// Waits (processing events) until at most `baseline` threads are left; true when they are.
inline bool waitForThreads(int baseline, int timeoutMs = 30000) {
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
    int layerRows = 0;      // top-level rows of the layer tree
    int summaryRows = 0;    // kernel summary by name
    size_t forwardRows = 0; // Forward/Backward pane, forward side
    double gpuTimeNs = 0;   // every kernel's duration, summed here
};

inline Expected expectedFor(const QString& path) {
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
    e.summaryRows = static_cast<int>(
        ls::kernelSummary(t, ls::KernelGrouping::Name, ls::KernelNaming::Demangled).size());
    e.forwardRows = ls::buildFwdBwdPairs(t).forward.size();
    for (size_t k = 0; k < t.kernels.size(); ++k)
        e.gpuTimeNs += static_cast<double>(t.kernels.duration(k));
    return e;
}

inline QLabel* statusLabel(const MainWindow& w) { return w.statusBar()->findChild<QLabel*>(); }
inline QPushButton* cancelButton(const MainWindow& w) {
    return w.statusBar()->findChild<QPushButton*>();
}
inline QProgressBar* progressBar(const MainWindow& w) {
    return w.statusBar()->findChild<QProgressBar*>();
}
inline TraceLoader* loaderOf(const MainWindow& w) { return w.findChild<TraceLoader*>(); }
inline QString statusText(const MainWindow& w) { return statusLabel(w)->text(); }
inline QTextBrowser* reportView(const MainWindow& w) {
    auto* tabs = qobject_cast<QTabWidget*>(w.centralWidget());
    return tabs ? qobject_cast<QTextBrowser*>(tabs->widget(3)) : nullptr;
}
inline const ls::TimelineData* timelineData(const MainWindow& w) {
    auto* area = w.findChild<ls::gui::TimelineArea*>();
    return area ? area->view()->data() : nullptr;
}

// Every pane shows e's file and nothing else. The status bar is checked separately: after a
// failed or cancelled open it says so while the panes keep the trace.
inline void expectPanesShow(const MainWindow& w, const Expected& e) {
    SCOPED_TRACE("showing " + e.path.toStdString());
    ASSERT_TRUE(w.trace());
    ASSERT_TRUE(w.views());
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
        treeKernels += w.layerModel()
                           ->index(r, ls::gui::LayerTreeModel::Kernels)
                           .data(ls::gui::LayerTreeModel::SortRole)
                           .toULongLong();
    EXPECT_EQ(treeKernels, e.kernels);
    // Summary tab, Forward/Backward tab, timeline and Load report tab.
    EXPECT_EQ(w.summaryView()->model()->rowCount(), e.summaryRows);
    EXPECT_EQ(static_cast<size_t>(w.fwdBwdPanel()->forwardView()->model()->rowCount()),
              e.forwardRows);
    ASSERT_NE(timelineData(w), nullptr);
    EXPECT_EQ(timelineData(w)->trace.get(), &t) << "the timeline shows another trace";
    // Its paint, held while the table and tree paint first, is on again whatever came in between.
    EXPECT_TRUE(w.findChild<ls::gui::TimelineArea*>()->updatesEnabled())
        << "the timeline no longer repaints";
    ASSERT_NE(reportView(w), nullptr);
    EXPECT_TRUE(reportView(w)->toPlainText().contains(e.path))
        << reportView(w)->toPlainText().left(200).toStdString();
    // Not loading any more.
    EXPECT_TRUE(progressBar(w)->isHidden());
    EXPECT_TRUE(cancelButton(w)->isHidden());
}

// Panes and status bar show e's file, as after a successful open.
inline void expectShows(const MainWindow& w, const Expected& e) {
    expectPanesShow(w, e);
    const QString status = statusText(w);
    EXPECT_TRUE(status.startsWith(QStringLiteral("Span "))) << status.toStdString();
    EXPECT_TRUE(status.contains(QStringLiteral("  ·  %1 kernels  ·  ")
                                    .arg(QLocale().toString(static_cast<qulonglong>(e.kernels)))))
        << status.toStdString() << " (expected " << e.kernels << " kernels)";
    EXPECT_TRUE(status.contains(
        QStringLiteral("  ·  GPU time %1  ·  ").arg(ls::gui::formatDuration(e.gpuTimeNs))))
        << status.toStdString() << " (expected GPU time "
        << ls::gui::formatDuration(e.gpuTimeNs).toStdString() << ")";
}

inline void expectEmpty(const MainWindow& w) {
    EXPECT_FALSE(w.trace());
    EXPECT_EQ(w.windowTitle(), QStringLiteral("Layerscope"));
    EXPECT_EQ(w.kernelModel()->rowCount(), 0);
    EXPECT_EQ(w.layerModel()->rowCount(), 0);
    EXPECT_EQ(w.summaryView()->model()->rowCount(), 0);
    EXPECT_EQ(timelineData(w), nullptr);
    EXPECT_TRUE(progressBar(w)->isHidden());
    EXPECT_TRUE(cancelButton(w)->isHidden());
}

inline bool execSql(const QString& file, const char* sql) {
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
            execSql(
                path,
                "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL;"
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

} // namespace ls::gui::test::stress
