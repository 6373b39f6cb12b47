#include "core/import/nsys_rep/export_cache.h"

#include "core/import/file_probe.h"
#include "core/model/platform.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <system_error>
#include <vector>

namespace ls {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kCacheFormat = "nsys-rep export 1";
constexpr std::string_view kPartialMark = ".partial-";

uint64_t fnv1a(std::string_view s, uint64_t h = 0xcbf29ce484222325ull) {
    for (const unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

std::string hex16(uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

// The report's file stem, kept readable in the cache folder: letters, digits, '.', '_' and '-'.
std::string safeStem(const std::string& absolutePath) {
    std::string stem = fs::path(absolutePath).stem().string(), out;
    for (const char c : stem) {
        if (out.size() >= 48) break;
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        out += ok ? c : '_';
    }
    return out.empty() ? std::string("report") : out;
}

std::string pathKey(const std::string& absolutePath) {
    return safeStem(absolutePath) + "-" + hex16(fnv1a(absolutePath)) + "-";
}

} // namespace

std::vector<std::string> exportCacheDirs() {
    std::vector<std::string> dirs;
    if (const std::string user = platform::userCacheDir(); !user.empty())
        dirs.push_back((fs::path(user) / "layerscope" / "exports").string());
    std::error_code ec;
    if (const fs::path tmp = fs::temp_directory_path(ec); !ec)
        dirs.push_back((tmp / "layerscope" / "exports").string());
    return dirs;
}

std::optional<std::string> createExportCacheDir(std::string& error) {
    const std::vector<std::string> candidates = exportCacheDirs();
    for (const std::string& dir : candidates) {
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (!ec && fs::is_directory(dir, ec)) return dir;
        error = "cannot create the cache folder " + dir + " (" + ec.message() + ")";
    }
    if (candidates.empty()) error = "no cache folder (neither HOME nor a temporary folder is set)";
    return std::nullopt;
}

std::string exportFileName(const FileIdentity& report) {
    const std::string identity = std::string(kCacheFormat) + "|" + std::to_string(report.size) +
                                 "|" + std::to_string(report.mtimeNs);
    return pathKey(report.absolutePath) + hex16(fnv1a(identity, fnv1a(report.absolutePath))) +
           ".sqlite";
}

std::string partialExportPath(const std::string& finalPath) {
    static std::atomic<unsigned> counter{0};
    std::random_device random;
    const auto stamp =
        static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    const uint64_t unique = fnv1a(std::to_string(stamp) + "|" + std::to_string(random()) + "|" +
                                  std::to_string(counter++));
    // Keeps .sqlite last: nsys adds the extension to an output name without one.
    return finalPath + std::string(kPartialMark) + hex16(unique) + ".sqlite";
}

bool isCompleteExport(const std::string& path) {
    FileHead head;
    if (readFileHead(path, head)) return false;
    return head.isSqlite() && !checkSqliteHeader(head);
}

void pruneExportCache(const std::string& dir, const std::string& keepPath) {
    const std::string keepName = fs::path(keepPath).filename().string();
    const std::string samePath =
        keepName.substr(0, keepName.size() - std::string_view("0123456789abcdef.sqlite").size());
    const auto now = fs::file_time_type::clock::now();
    std::error_code ec;
    std::vector<fs::path> remove;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name == keepName) continue;
        std::error_code fe;
        if (name.find(kPartialMark) != std::string::npos) {
            const auto t = it->last_write_time(fe);
            if (!fe && now - t > std::chrono::hours(24)) remove.push_back(it->path());
        } else if (name.starts_with(samePath) && name.ends_with(".sqlite")) {
            remove.push_back(it->path());
        }
    }
    for (const fs::path& p : remove) fs::remove(p, ec);
}

} // namespace ls
