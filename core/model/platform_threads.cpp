// The platform's calls about the calling thread: its scheduling and its CPU time. Declared in
// platform.h; kept apart from platform.cpp, whose calls are about processes and folders.
#include "core/model/platform.h"

#include <cerrno>
#include <ctime>

#if defined(_WIN32)
#include <windows.h>
#endif
#if defined(__linux__)
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace ls::platform {

namespace {

#if defined(__linux__)
// Nice values: the window's jobs, and below them the work nobody waits for (a cache's write, the
// other tabs' rows). With autogroups (Debian's default) or CPU cgroups, Linux weighs a nice value
// only against the threads of the same group (the terminal session or desktop launch the process
// came from), so these rank the process's own threads under its GUI thread and leave its share
// against programs of other sessions as it was.
constexpr int kThroughputNice = 5;
constexpr int kBackgroundNice = 10;

// Raises the calling thread's nice value to at least `floor` (never lowers it: that needs a
// privilege). Linux nice values are per thread, and inherited by the threads it creates.
void niceAtLeast(int floor) {
    errno = 0;
    const int now = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
    if (errno == 0 && now < floor)
        ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), floor);
}
#endif

} // namespace

void lowerThreadPriority() {
#if defined(_WIN32)
    ::SetThreadPriority(::GetCurrentThread(), THREAD_PRIORITY_BELOW_NORMAL);
#elif defined(__linux__)
    niceAtLeast(kBackgroundNice);
#endif
}

bool setThreadRole(ThreadRole role) {
#if defined(__linux__)
    // For the normal and batch policies this keeps the thread's nice value.
    const sched_param none{};
    const bool taken =
        ::sched_setscheduler(0, role == ThreadRole::Throughput ? SCHED_BATCH : SCHED_OTHER,
                             &none) == 0;
    if (taken && role == ThreadRole::Throughput) niceAtLeast(kThroughputNice);
    return taken;
#else
    (void)role;
    return false;
#endif
}

double threadCpuMs() {
#if defined(CLOCK_THREAD_CPUTIME_ID)
    timespec now{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) == 0)
        return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
#endif
    return 0;
}

} // namespace ls::platform
