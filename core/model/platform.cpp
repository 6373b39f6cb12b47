#include "core/model/platform.h"

#if defined(__GNUC__) || defined(__clang__)
#include <cxxabi.h>
#endif
#include <cstdlib>

#if defined(_WIN32)
#include <windows.h>
#include <psapi.h>
#else
#include <sys/resource.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ls::platform {

uint64_t peakRssBytes() {
#if defined(_WIN32)
    PROCESS_MEMORY_COUNTERS pmc;
    if (GetProcessMemoryInfo(GetCurrentProcess(), &pmc, sizeof pmc)) return pmc.PeakWorkingSetSize;
    return 0;
#else
    rusage u{};
    if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
#if defined(__APPLE__)
    return static_cast<uint64_t>(u.ru_maxrss); // bytes on macOS
#else
    return static_cast<uint64_t>(u.ru_maxrss) * 1024; // kilobytes on Linux
#endif
#endif
}

void preferMappedLargeAllocations() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

std::string demangle(const std::string& name) {
#if defined(__GNUC__) || defined(__clang__)
    if (name.rfind("_Z", 0) != 0) return name;
    int status = 0;
    char* out = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    if (status != 0 || !out) return name;
    std::string result(out);
    std::free(out);
    return result;
#else
    return name;
#endif
}

} // namespace ls::platform
