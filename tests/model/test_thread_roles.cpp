// platform::setThreadRole: a throughput thread is a batch thread below the normal priority, and so
// are the threads it starts; Default gives the normal policy back; a role never raises the
// thread's priority again; lowerThreadPriority goes below a throughput thread. Each case runs on a
// thread of its own, so the test runner's thread keeps its scheduling.
#include "core/model/platform.h"

#include <gtest/gtest.h>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

namespace {

using ls::platform::setThreadRole;
using ls::platform::ThreadRole;

int niceOfThisThread() { return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid())); }

template <typename F> void onAThreadOfItsOwn(F&& f) { std::thread(std::forward<F>(f)).join(); }

// Some sandboxes refuse scheduling calls; there the roles are not in effect and not tested.
bool batchThreadsAllowed() {
    bool allowed = false;
    onAThreadOfItsOwn([&] { allowed = setThreadRole(ThreadRole::Throughput); });
    return allowed;
}

TEST(ThreadRoles, AThroughputThreadAndTheThreadsItStartsAreBatchThreads) {
    if (!batchThreadsAllowed()) GTEST_SKIP() << "this system refuses SCHED_BATCH";
    onAThreadOfItsOwn([] {
        ASSERT_EQ(::sched_getscheduler(0), SCHED_OTHER);
        ASSERT_TRUE(setThreadRole(ThreadRole::Throughput));
        EXPECT_EQ(::sched_getscheduler(0), SCHED_BATCH);
        int child = -1;
        std::thread([&child] { child = ::sched_getscheduler(0); }).join();
        EXPECT_EQ(child, SCHED_BATCH);
        ASSERT_TRUE(setThreadRole(ThreadRole::Default));
        EXPECT_EQ(::sched_getscheduler(0), SCHED_OTHER);
    });
    EXPECT_EQ(::sched_getscheduler(0), SCHED_OTHER); // only the thread that asked
}

TEST(ThreadRoles, AThroughputThreadRunsBelowTheThreadThatStartedIt) {
    if (!batchThreadsAllowed()) GTEST_SKIP() << "this system refuses SCHED_BATCH";
    const int window = niceOfThisThread();
    if (window >= 5) GTEST_SKIP() << "this test runs at nice " << window << " already";
    onAThreadOfItsOwn([window] {
        ASSERT_TRUE(setThreadRole(ThreadRole::Throughput));
        const int throughput = niceOfThisThread();
        EXPECT_GT(throughput, window);
        int child = -1;
        std::thread([&child] { child = niceOfThisThread(); }).join();
        EXPECT_EQ(child, throughput);
        ls::platform::lowerThreadPriority(); // what nobody waits for goes lower still
        EXPECT_GT(niceOfThisThread(), throughput);
    });
    EXPECT_EQ(niceOfThisThread(), window); // only the thread that asked
}

TEST(ThreadRoles, ARoleKeepsALoweredPriority) {
    if (!batchThreadsAllowed()) GTEST_SKIP() << "this system refuses SCHED_BATCH";
    onAThreadOfItsOwn([] {
        ls::platform::lowerThreadPriority();
        const int lowered = niceOfThisThread();
        ASSERT_GT(lowered, 0);
        for (ThreadRole role : {ThreadRole::Throughput, ThreadRole::Default}) {
            ASSERT_TRUE(setThreadRole(role));
            EXPECT_EQ(niceOfThisThread(), lowered);
        }
    });
}

} // namespace
#endif
