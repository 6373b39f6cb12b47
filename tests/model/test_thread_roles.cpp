// platform::setThreadRole: a throughput thread is a batch thread and the threads it starts are
// too; an interactive thread asks for a short slice where the kernel takes one (Linux 6.12 on);
// a role keeps the thread's nice value. Each case runs on a thread of its own, so the test
// runner's thread keeps its scheduling.
#include "core/model/platform.h"

#include <gtest/gtest.h>
#include <thread>

#if defined(__linux__)
#include <cerrno>
#include <cstdint>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace {

using ls::platform::setThreadRole;
using ls::platform::ThreadRole;

// The kernel's sched_attr, first version: what sched_getattr reads back.
struct Attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};

Attr attrOfThisThread() {
    Attr a{};
    EXPECT_EQ(::syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0u), 0) << errno;
    return a;
}

int niceOfThisThread() { return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid())); }

template <typename F> void onAThreadOfItsOwn(F&& f) { std::thread(std::forward<F>(f)).join(); }

bool kernelTakesCustomSlices() { // 6.12 or later
    utsname u{};
    if (::uname(&u) != 0) return false;
    int major = 0, minor = 0;
    if (std::sscanf(u.release, "%d.%d", &major, &minor) != 2) return false;
    return major > 6 || (major == 6 && minor >= 12);
}

TEST(ThreadRoles, AThroughputThreadAndTheThreadsItStartsAreBatchThreads) {
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
}

TEST(ThreadRoles, AnInteractiveThreadAsksForAShortSliceAndADefaultOneGivesItBack) {
    onAThreadOfItsOwn([] {
        const uint64_t before = attrOfThisThread().runtime;
        ASSERT_TRUE(setThreadRole(ThreadRole::Interactive));
        EXPECT_EQ(::sched_getscheduler(0), SCHED_OTHER);
        if (!kernelTakesCustomSlices()) GTEST_SKIP() << "this kernel has no per-thread slices";
        EXPECT_EQ(attrOfThisThread().runtime, 100'000u);
        EXPECT_LT(attrOfThisThread().runtime, before);
        ASSERT_TRUE(setThreadRole(ThreadRole::Throughput)); // a job's thread, started by it
        EXPECT_EQ(attrOfThisThread().runtime, before);
    });
}

TEST(ThreadRoles, ARoleKeepsALoweredPriority) {
    onAThreadOfItsOwn([] {
        ls::platform::lowerThreadPriority();
        const int lowered = niceOfThisThread();
        ASSERT_GT(lowered, 0);
        for (ThreadRole role : {ThreadRole::Throughput, ThreadRole::Interactive}) {
            ASSERT_TRUE(setThreadRole(role));
            EXPECT_EQ(niceOfThisThread(), lowered);
        }
    });
}

} // namespace
#endif
