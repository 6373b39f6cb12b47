// The main window under stress, offscreen: folders and non-trace files dropped on it, a trace
// without kernels, the same file twice. After each scenario the title, the status bar and every
// pane show the last file opened, never a stale mix (load_stress_support.h has the checks).
#include "tests/widgets/load_stress_support.h"

#include <gtest/gtest.h>

namespace {

using namespace ls::gui::test::stress;
using ls::gui::MainWindow;
using namespace ls::gui::test;

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
    for (const Bad& b : {Bad{folder, QStringLiteral("holds no trace files")},
                         Bad{text, QStringLiteral("not an SQLite database")},
                         Bad{nsysRep, QStringLiteral("not an Nsight Systems report")}}) {
        SCOPED_TRACE(b.path.toStdString());
        QSignalSpy failed(w.get(), &MainWindow::loadFailed),
            loaded(w.get(), &MainWindow::traceLoaded);
        dropUrls(*w, {QUrl::fromLocalFile(b.path)});
        ASSERT_TRUE(failed.wait(kLoadTimeoutMs));
        const QString reason = failed.first().first().toString();
        EXPECT_TRUE(reason.contains(b.reasonHas)) << reason.toStdString();
        EXPECT_FALSE(reason.contains(QLatin1Char('\n')));
        EXPECT_EQ(
            statusText(*w),
            QStringLiteral("Could not open %1: %2").arg(QFileInfo(b.path).fileName(), reason));
        EXPECT_EQ(loaded.count(), 0);
        expectPanesShow(*w, sample);
    }
    {
        // Not a local file, or no URLs at all: refused or ignored, nothing starts.
        const QString before = statusText(*w);
        QSignalSpy failed(w.get(), &MainWindow::loadFailed),
            loaded(w.get(), &MainWindow::traceLoaded);
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
        QSignalSpy failed(w.get(), &MainWindow::loadFailed),
            loaded(w.get(), &MainWindow::traceLoaded);
        w->openFile(fewer);
        dropUrls(*w, {QUrl::fromLocalFile(folder)});
        ASSERT_TRUE(failed.wait(kLoadTimeoutMs));
        EXPECT_TRUE(waitForThreads(baseline));
        QTest::qWait(50);
        EXPECT_EQ(loaded.count(), 0);
        EXPECT_EQ(failed.count(), 1);
        expectPanesShow(*w, sample);
        EXPECT_TRUE(statusText(*w).startsWith(QStringLiteral("Could not open a folder.sqlite: ")))
            << statusText(*w).toStdString();
    }
    {
        // And the other way round: the folder's error never arrives once a trace was opened after
        // it.
        QSignalSpy failed(w.get(), &MainWindow::loadFailed),
            loaded(w.get(), &MainWindow::traceLoaded);
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
        EXPECT_TRUE(statusText(*w).startsWith(QStringLiteral("1 file(s) could not be opened")))
            << statusText(*w).toStdString();
        EXPECT_TRUE(statusText(*w).contains(QStringLiteral("notes.txt")))
            << statusText(*w).toStdString();
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
    EXPECT_TRUE(statusText(*w).contains(QStringLiteral("  ·  0 kernels  ·  ")))
        << statusText(*w).toStdString();
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
        QSignalSpy loaded(w.get(), &MainWindow::traceLoaded),
            cancelled(loaderOf(*w), &TraceLoader::cancelled);
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
    EXPECT_EQ(recent.count(QFileInfo(sample_).absoluteFilePath()), 1)
        << recent.join(QLatin1Char(' ')).toStdString();
    EXPECT_EQ(recent.value(0), QFileInfo(sample_).absoluteFilePath());
}

} // namespace
