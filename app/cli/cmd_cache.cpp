// layerscope-cli cache info|clear: what the model cache holds, and emptying it.
#include "app/cli/commands.h"
#include "core/cache/trace_cache.h"
#include "core/model/platform.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <ostream>

namespace ls::cli {
namespace {

std::string megabytes(uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / 1e6);
    return buf;
}

std::string localTime(int64_t ns) {
    // File times count from the file clock's epoch; to the system clock through now on both.
    using namespace std::chrono;
    const auto fileNow =
        duration_cast<nanoseconds>(std::filesystem::file_time_type::clock::now().time_since_epoch())
            .count();
    const auto sysNow = duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count();
    const std::time_t t = static_cast<std::time_t>((ns - fileNow + sysNow) / 1000000000);
    char buf[32];
    const std::tm tm = platform::localTime(t);
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
    return buf;
}

} // namespace

int commandCache(const Options& o, Context& c) {
    const std::string action = o.positional.front();
    if (o.positional.size() != 1 || (action != "info" && action != "clear")) {
        c.err << "error: cache takes one action: info or clear\n";
        return kUsage;
    }
    const std::string dir = defaultTraceCacheDir();
    if (dir.empty()) {
        c.err << "error: no cache folder: neither XDG_CACHE_HOME nor HOME is set\n";
        return kUnreadable;
    }
    if (action == "clear") {
        const size_t removed = clearTraceCache(dir);
        c.out << "removed " << removed << " cache file" << (removed == 1 ? "" : "s") << " from "
              << dir << "\n";
        return kOk;
    }
    const CacheInfo info = traceCacheInfo(dir);
    c.out << "folder: " << dir << "\n"
          << "files: " << info.entries.size() << ", " << megabytes(info.bytes) << " (cap "
          << megabytes(kDefaultTraceCacheCap) << "; least recently used go first)\n";
    for (const auto& e : info.entries)
        c.out << "  " << localTime(e.lastUsedNs) << "  " << megabytes(e.bytes) << "  "
              << (e.source.empty() ? e.file : e.source) << "\n";
    return kOk;
}

} // namespace ls::cli
