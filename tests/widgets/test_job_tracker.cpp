// JobTracker: a job's work runs off the GUI thread and its result on it; a job of a kind
// supersedes (and cancels) the one before, whose result never arrives; cancel() reaches the work
// through its token; progress arrives on the GUI thread in the order reported; a throw becomes
// failed() with one line; the destructor cancels and joins what still runs. Then the window's
// Nsight Compute import, which parses its CSV as a job: the window keeps handling events.
#include "core/import/ncu/ncu_metrics.h"
#include "core/model/platform.h"
#include "tests/widgets/widget_test_support.h"
#include "widgets/session/job_tracker.h"
#include "widgets/session/jobs_indicator.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/window/main_window.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <gtest/gtest.h>
#include <memory>
#include <stdexcept>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace {

using ls::gui::JobContext;
using ls::gui::JobTracker;

// Processes events until `done` or `ms` have passed.
template <typename F> bool spinUntil(F&& done, int ms = 5000) {
    QDeadlineTimer deadline(ms);
    while (!done() && !deadline.hasExpired())
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    return done();
}

void spinFor(int ms) {
    QDeadlineTimer deadline(ms);
    while (!deadline.hasExpired()) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
}

TEST(JobTracker, WorksOffTheGuiThreadAndHandsItsResultBackOnIt) {
    JobTracker tracker;
    QSignalSpy started(&tracker, &JobTracker::started), finished(&tracker, &JobTracker::finished);
    QThread* workThread = nullptr;
    QThread* resultThread = nullptr;
    const quint64 id = tracker.submit(QStringLiteral("k"), QStringLiteral("Work"),
                                      [&](const JobContext&) -> JobTracker::Result {
                                          workThread = QThread::currentThread();
                                          return [&] { resultThread = QThread::currentThread(); };
                                      });
    ASSERT_EQ(started.count(), 1);
    EXPECT_EQ(started.at(0).at(0).toULongLong(), id);
    EXPECT_EQ(started.at(0).at(1).toString(), QStringLiteral("k"));
    EXPECT_EQ(started.at(0).at(2).toString(), QStringLiteral("Work"));
    EXPECT_TRUE(tracker.busy(QStringLiteral("k")));
    ASSERT_EQ(tracker.running().size(), 1u);
    EXPECT_EQ(tracker.running().front().title, QStringLiteral("Work"));
    ASSERT_TRUE(spinUntil([&] { return finished.count() == 1; }));
    EXPECT_EQ(finished.at(0).at(0).toULongLong(), id);
    EXPECT_FALSE(tracker.busy(QStringLiteral("k")));
    EXPECT_TRUE(tracker.running().empty());
    EXPECT_NE(workThread, QCoreApplication::instance()->thread());
    EXPECT_EQ(resultThread, QCoreApplication::instance()->thread());
}

#if defined(__linux__)
// A job's work is throughput work (a batch thread); the GUI thread stays as it was.
TEST(JobTracker, AJobRunsAsABatchThreadAndTheGuiThreadStaysANormalOne) {
    bool allowed = false; // some sandboxes refuse scheduling calls: no roles there
    std::thread([&] {
        allowed = ls::platform::setThreadRole(ls::platform::ThreadRole::Throughput);
    }).join();
    if (!allowed) GTEST_SKIP() << "this system refuses SCHED_BATCH";
    ASSERT_EQ(::sched_getscheduler(0), SCHED_OTHER);
    JobTracker tracker;
    QSignalSpy finished(&tracker, &JobTracker::finished);
    std::atomic<int> policy{-1};
    tracker.submit(QStringLiteral("k"), QStringLiteral("Work"),
                   [&](const JobContext&) -> JobTracker::Result {
                       policy = ::sched_getscheduler(0);
                       return {};
                   });
    ASSERT_TRUE(spinUntil([&] { return finished.count() == 1; }));
    EXPECT_EQ(policy.load(), SCHED_BATCH);
    EXPECT_EQ(::sched_getscheduler(0), SCHED_OTHER);
}
#endif

TEST(JobTracker, ANewJobOfAKindSupersedesTheOldOneWhoseResultIsDropped) {
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    std::atomic<bool> sawCancel{false}, returned{false};
    int applied = 0;
    JobTracker tracker;
    QSignalSpy finished(&tracker, &JobTracker::finished),
        cancelled(&tracker, &JobTracker::cancelled);
    const quint64 first =
        tracker.submit(QStringLiteral("load"), QStringLiteral("first"),
                       [&, released](const JobContext& ctx) -> JobTracker::Result {
                           released.wait(); // until the second is on screen
                           sawCancel = ctx.cancelled();
                           ctx.post([&] { applied = 10; }); // stale too
                           returned = true;
                           return [&] { applied = 1; };
                       });
    // Another kind runs beside it.
    const quint64 other =
        tracker.submit(QStringLiteral("other"), QStringLiteral("other"),
                       [](const JobContext&) -> JobTracker::Result { return {}; });
    const quint64 second = tracker.submit(
        QStringLiteral("load"), QStringLiteral("second"),
        [&](const JobContext&) -> JobTracker::Result { return [&] { applied = 2; }; });
    EXPECT_FALSE(tracker.current(first));
    EXPECT_EQ(tracker.running().size(), 2u) << "the superseded job left the list at once";
    ASSERT_TRUE(spinUntil([&] { return finished.count() == 2; }));
    EXPECT_EQ(applied, 2);
    EXPECT_FALSE(tracker.current(second));
    EXPECT_EQ(cancelled.count(), 0) << "said once the superseded work has returned";
    release.set_value();
    ASSERT_TRUE(spinUntil([&] { return cancelled.count() == 1; }));
    EXPECT_EQ(cancelled.at(0).at(0).toULongLong(), first);
    EXPECT_TRUE(returned);
    spinFor(100);
    EXPECT_TRUE(sawCancel) << "the superseded job's token is set";
    EXPECT_EQ(applied, 2) << "the superseded job's result and posts never arrive";
    EXPECT_EQ(finished.count(), 2);
    std::vector<quint64> ids;
    for (const auto& args : finished) ids.push_back(args.at(0).toULongLong());
    EXPECT_NE(std::find(ids.begin(), ids.end(), other), ids.end());
    EXPECT_NE(std::find(ids.begin(), ids.end(), second), ids.end());
    // Ended threads are joined as later jobs come and go.
    tracker.submit(QStringLiteral("x"), QString(),
                   [](const JobContext&) -> JobTracker::Result { return {}; });
    ASSERT_TRUE(spinUntil([&] { return finished.count() == 3; }));
    spinFor(20);
    tracker.submit(QStringLiteral("x"), QString(),
                   [](const JobContext&) -> JobTracker::Result { return {}; });
    EXPECT_LE(tracker.threads(), 2u);
}

TEST(JobTracker, CancelReachesTheWorkAndDropsItsResult) {
    JobTracker tracker;
    QSignalSpy finished(&tracker, &JobTracker::finished),
        cancelled(&tracker, &JobTracker::cancelled), ended(&tracker, &JobTracker::ended);
    std::atomic<bool> running{false}, stopped{false};
    bool applied = false;
    const quint64 id = tracker.submit(
        QStringLiteral("k"), QStringLiteral("long"),
        [&](const JobContext& ctx) -> JobTracker::Result {
            running = true;
            const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
            while (!ctx.cancelFlag()->load() && std::chrono::steady_clock::now() < end)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            stopped = ctx.cancelled();
            return [&] { applied = true; };
        });
    ASSERT_TRUE(spinUntil([&] { return running.load(); }));
    tracker.cancel(id);
    EXPECT_FALSE(tracker.busy(QStringLiteral("k")));
    EXPECT_TRUE(tracker.running().empty());
    ASSERT_TRUE(spinUntil([&] { return cancelled.count() == 1; }, 2000))
        << "the work saw the token and returned";
    EXPECT_TRUE(stopped);
    EXPECT_EQ(ended.count(), 1);
    spinFor(50);
    EXPECT_FALSE(applied);
    EXPECT_EQ(finished.count(), 0);
    EXPECT_EQ(ended.count(), 1);
}

TEST(JobTracker, ProgressArrivesOnTheGuiThreadInOrder) {
    JobTracker tracker;
    std::vector<qint64> seen;
    bool onGui = true;
    QString lastText;
    QObject::connect(&tracker, &JobTracker::progress, &tracker,
                     [&](quint64, const QString& text, qint64 done, qint64 total) {
                         onGui = onGui && QThread::currentThread() == qApp->thread();
                         EXPECT_EQ(total, 500);
                         seen.push_back(done);
                         lastText = text;
                     });
    QSignalSpy finished(&tracker, &JobTracker::finished);
    const quint64 id =
        tracker.submit(QStringLiteral("k"), QStringLiteral("count"),
                       [](const JobContext& ctx) -> JobTracker::Result {
                           for (qint64 i = 1; i <= 500; ++i)
                               ctx.progress(QStringLiteral("step %1").arg(i), i, 500);
                           return {};
                       });
    ASSERT_TRUE(spinUntil([&] { return finished.count() == 1; }));
    ASSERT_EQ(seen.size(), 500u) << "every report arrives before the result";
    for (qint64 i = 0; i < 500; ++i) ASSERT_EQ(seen[static_cast<size_t>(i)], i + 1);
    EXPECT_TRUE(onGui);
    EXPECT_EQ(lastText, QStringLiteral("step 500"));
    (void)id;
}

TEST(JobTracker, AThrowBecomesFailedWithOneLine) {
    JobTracker tracker;
    QSignalSpy failed(&tracker, &JobTracker::failed), finished(&tracker, &JobTracker::finished),
        ended(&tracker, &JobTracker::ended);
    const quint64 id = tracker.submit(
        QStringLiteral("k"), QStringLiteral("bad"), [](const JobContext&) -> JobTracker::Result {
            throw std::runtime_error("no memory for the table\nat row 12");
        });
    ASSERT_TRUE(spinUntil([&] { return failed.count() == 1; }));
    EXPECT_EQ(failed.at(0).at(0).toULongLong(), id);
    EXPECT_EQ(failed.at(0).at(1).toString(), QStringLiteral("no memory for the table"));
    EXPECT_EQ(finished.count(), 0);
    EXPECT_EQ(ended.count(), 1);
    // A result that throws on the GUI thread fails the same way.
    tracker.submit(QStringLiteral("k"), QStringLiteral("bad result"),
                   [](const JobContext&) -> JobTracker::Result {
                       return [] { throw std::runtime_error("the trace changed"); };
                   });
    ASSERT_TRUE(spinUntil([&] { return failed.count() == 2; }));
    EXPECT_EQ(failed.at(1).at(1).toString(), QStringLiteral("the trace changed"));
    EXPECT_FALSE(tracker.busy(QStringLiteral("k")));
}

TEST(JobTracker, DestructionCancelsAndJoinsRunningJobs) {
    std::atomic<int> left{0};
    std::atomic<bool> sawCancel{true};
    bool applied = false;
    {
        auto tracker = std::make_unique<JobTracker>();
        std::atomic<int> running{0};
        for (int i = 0; i < 3; ++i)
            tracker->submit(QStringLiteral("k%1").arg(i), QStringLiteral("job"),
                            [&](const JobContext& ctx) -> JobTracker::Result {
                                ++running;
                                while (!ctx.cancelled())
                                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                std::this_thread::sleep_for(std::chrono::milliseconds(30));
                                sawCancel = sawCancel && ctx.cancelled();
                                ++left;
                                return [&] { applied = true; };
                            });
        ASSERT_TRUE(spinUntil([&] { return running == 3; }));
        EXPECT_EQ(tracker->running().size(), 3u);
        tracker.reset();
        EXPECT_EQ(left.load(), 3) << "the destructor returned before its jobs' threads";
    }
    EXPECT_TRUE(sawCancel);
    spinFor(20);
    EXPECT_FALSE(applied);
}

TEST(JobTracker, NearestFindsTheAncestorsTrackerAndTheIndicatorListsJobs) {
    QObject window;
    auto* tracker = new JobTracker(&window);
    QObject middle(&window);
    QObject leaf(&middle);
    EXPECT_EQ(JobTracker::nearest(&leaf), tracker);
    QObject alone;
    JobTracker* own = JobTracker::nearest(&alone);
    EXPECT_NE(own, tracker);
    EXPECT_EQ(own->parent(), &alone);

    ls::gui::JobsIndicator indicator(tracker);
    EXPECT_TRUE(indicator.isHidden());
    std::promise<void> release;
    auto released = release.get_future().share();
    QSignalSpy progress(tracker, &JobTracker::progress), ended(tracker, &JobTracker::ended);
    tracker->submit(QStringLiteral("model-cache"), QStringLiteral("Saving model cache…"),
                    [released](const JobContext& ctx) -> JobTracker::Result {
                        ctx.progress(QStringLiteral("writing"), 1, 4);
                        released.wait();
                        return {};
                    });
    ASSERT_TRUE(spinUntil([&] { return progress.count() == 1; }));
    EXPECT_FALSE(indicator.isHidden());
    EXPECT_EQ(indicator.text(), QStringLiteral("Saving model cache…: writing 25 %"));
    release.set_value();
    ASSERT_TRUE(spinUntil([&] { return ended.count() == 1; }));
    EXPECT_TRUE(indicator.isHidden());
}

// The Nsight Compute import parses its CSV off the GUI thread: importNcuInBackground returns at
// once, a timer keeps firing while a big CSV is parsed, and the table gets the metrics after.
TEST(JobTrackerNcu, TheImportDoesNotBlockTheGuiThread) {
    const QString trace = QStringLiteral(LAYERSCOPE_SOURCE_DIR
                                         "/../shared/traces/pair_gpt1layer_fp16_h200.nsys.sqlite");
    const QString csv =
        QStringLiteral(LAYERSCOPE_SOURCE_DIR "/../shared/traces/pair_gpt1layer_fp16_h200.ncu.csv");
    if (!QFile::exists(trace) || !QFile::exists(csv))
        GTEST_SKIP() << "pair_gpt1layer traces absent from ../shared";
    QStandardPaths::setTestModeEnabled(true);
    auto w = ls::gui::test::openInWindow(trace);
    ASSERT_TRUE(w);
    // A big CSV: the pair's rows, then the same kernels measured again and again (each ID anew).
    QTemporaryDir dir;
    const QString big = dir.filePath(QStringLiteral("big.ncu.csv"));
    {
        QFile in(csv);
        ASSERT_TRUE(in.open(QIODevice::ReadOnly));
        const QByteArray all = in.readAll();
        QFile out(big);
        ASSERT_TRUE(out.open(QIODevice::WriteOnly));
        const qsizetype header = all.indexOf("\"ID\",");
        ASSERT_GE(header, 0);
        const qsizetype firstRow = all.indexOf('\n', header) + 1;
        out.write(all.left(firstRow));
        const QList<QByteArray> rows = all.mid(firstRow).split('\n');
        for (int copy = 0; copy < 10; ++copy)
            for (const QByteArray& row : rows) {
                if (row.isEmpty()) continue;
                const qsizetype idEnd = row.indexOf("\",");
                bool number = false;
                const qint64 id = idEnd > 1 ? row.mid(1, idEnd - 1).toLongLong(&number) : 0;
                out.write(number ? "\"" + QByteArray::number(id + copy * 1000000) + row.mid(idEnd)
                                 : row);
                out.write("\n");
            }
    }
    JobTracker* jobs = w->findChild<JobTracker*>();
    ASSERT_NE(jobs, nullptr);
    int ticks = 0;
    QTimer timer;
    timer.setInterval(5);
    QObject::connect(&timer, &QTimer::timeout, [&] { ++ticks; });
    timer.start();
    QString error = QStringLiteral("not ended");
    bool ended = false;
    QElapsedTimer clock;
    clock.start();
    w->importNcuInBackground(big, [&](const QString& e) {
        error = e;
        ended = true;
    });
    EXPECT_FALSE(ended) << "the call returned before the parse finished";
    EXPECT_TRUE(jobs->busy(QStringLiteral("ncu")));
    EXPECT_EQ(w->kernelModel()->ncu(), nullptr);
    ASSERT_TRUE(spinUntil([&] { return ended; }, 120000));
    const qint64 ms = clock.elapsed();
    EXPECT_EQ(error, QString());
    ASSERT_NE(w->kernelModel()->ncu(), nullptr);
    // Every copy's kernels were read (the copies make them ambiguous: none matched for sure).
    EXPECT_GE(w->kernelModel()->ncu()->match().kernelOfNcu.size(), 10u * 60u);
    // A blocked GUI thread would have fired the timer about once.
    EXPECT_GE(ticks, std::min<qint64>(ms / 20, 5)) << ticks << " ticks in " << ms << " ms";
    // The synchronous form waits in an event loop and reports errors the same way.
    EXPECT_FALSE(w->importNcu(dir.filePath(QStringLiteral("missing.csv"))).isEmpty());
}

} // namespace
