// The platform's calls about the calling thread: its scheduling and its CPU time. Declared in
// platform.h; kept apart from platform.cpp, whose calls are about processes and folders.
#include "core/model/platform.h"

#include <cerrno>
#include <cstdint>
#include <ctime>

#if defined(_WIN32)
#include <windows.h>
#endif
#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace ls::platform {

#if defined(__linux__)
namespace {
// The kernel's struct sched_attr as of its first version (48 bytes; `size` tells the kernel which
// fields follow). Spelled out here: glibc declares it only from 2.41, and its header and the
// kernel's cannot both be included.
struct SchedAttr {
    uint32_t size;
    uint32_t policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period; // runtime: the slice a fair-class thread asks for
};
static_assert(sizeof(SchedAttr) == 48);
constexpr uint32_t kSchedNormal = 0, kSchedBatch = 3;
} // namespace
#endif

void lowerThreadPriority() {
#if defined(_WIN32)
    ::SetThreadPriority(::GetCurrentThread(), THREAD_PRIORITY_BELOW_NORMAL);
#elif defined(__linux__)
    // Linux nice values are per thread (and inherited by the threads it creates).
    errno = 0;
    const int now = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
    if (errno == 0 && now < 5) ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 5);
#endif
}

bool setThreadRole(ThreadRole role) {
#if defined(__linux__)
    // sched_setattr sets the nice value too: the thread's own is kept (raising it back needs a
    // privilege, and a lowered one is a choice made elsewhere).
    errno = 0;
    const int nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
    if (errno != 0) return false;
    SchedAttr attr{};
    attr.size = sizeof(attr);
    attr.policy = role == ThreadRole::Throughput ? kSchedBatch : kSchedNormal;
    attr.nice = nice;
    // The slice a fair-class thread asks for (Linux 6.12 on; earlier kernels ignore it): a short
    // one lets the waking GUI thread take a core from a load's thread at once, rather than at the
    // end of that thread's slice. 0 is the kernel's default slice.
    attr.runtime = role == ThreadRole::Interactive ? 100'000 : 0; // ns: the shortest taken
    return ::syscall(SYS_sched_setattr, 0, &attr, 0u) == 0;
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
