// BackgroundJob: the work runs off the GUI thread, its result on it; a run that a later run or
// cancel() superseded never reaches the GUI, even when it finishes last; a throw is reported.
#include "widgets/session/background_job.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QSignalSpy>
#include <QThread>
#include <atomic>
#include <future>
#include <gtest/gtest.h>
#include <memory>
#include <stdexcept>

namespace {

using ls::gui::BackgroundJob;

// Processes events until `done` or two seconds have passed.
template <typename F> bool spinUntil(F&& done) {
    QDeadlineTimer deadline(2000);
    while (!done() && !deadline.hasExpired())
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    return done();
}

TEST(BackgroundJob, WorksOffTheGuiThreadAndHandsItsResultBackOnIt) {
    BackgroundJob job;
    QSignalSpy finished(&job, &BackgroundJob::finished);
    QThread* workThread = nullptr;
    QThread* resultThread = nullptr;
    job.run([&]() -> BackgroundJob::Done {
        workThread = QThread::currentThread();
        return [&] { resultThread = QThread::currentThread(); };
    });
    EXPECT_TRUE(job.busy());
    ASSERT_TRUE(spinUntil([&] { return finished.count() == 1; }));
    EXPECT_FALSE(job.busy());
    EXPECT_NE(workThread, QCoreApplication::instance()->thread());
    EXPECT_EQ(resultThread, QCoreApplication::instance()->thread());
}

TEST(BackgroundJob, ASupersededRunThatFinishesLastIsDropped) {
    int applied = 0;
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    std::atomic<int> returned{0}; // held runs past their work, about to post their results
    {
        BackgroundJob job;
        QSignalSpy finished(&job, &BackgroundJob::finished);
        job.run([&, released]() -> BackgroundJob::Done {
            released.wait(); // held until the second run's result is on screen
            ++returned;
            return [&] { applied = 1; };
        });
        job.run([&]() -> BackgroundJob::Done { return [&] { applied = 2; }; });
        ASSERT_TRUE(spinUntil([&] { return finished.count() == 1; }));
        EXPECT_EQ(applied, 2);
        EXPECT_FALSE(job.busy());
        job.run([&, released]() -> BackgroundJob::Done {
            released.wait();
            ++returned;
            return [&] { applied = 3; };
        });
        job.cancel();
        EXPECT_FALSE(job.busy());
        release.set_value();
        // Both held runs end now and post their results; neither may apply.
        ASSERT_TRUE(spinUntil([&] { return returned == 2; }));
        QThread::msleep(50);
        for (int i = 0; i < 20; ++i) QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        EXPECT_EQ(applied, 2);
        EXPECT_EQ(finished.count(), 1);
    } // the destructor joins the threads
    EXPECT_EQ(applied, 2);
}

TEST(BackgroundJob, AThrowIsReportedAndNotApplied) {
    BackgroundJob job;
    QSignalSpy failed(&job, &BackgroundJob::failed);
    QSignalSpy finished(&job, &BackgroundJob::finished);
    job.run([]() -> BackgroundJob::Done { throw std::runtime_error("no memory for the table"); });
    ASSERT_TRUE(spinUntil([&] { return failed.count() == 1; }));
    EXPECT_EQ(failed.at(0).at(0).toString(), QStringLiteral("no memory for the table"));
    EXPECT_EQ(finished.count(), 0);
    EXPECT_FALSE(job.busy());
}

} // namespace
