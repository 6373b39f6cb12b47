#include "core/cache/trace_cache.h"

#include "core/cache/trace_file.h"
#include "core/model/file_identity.h"
#include "core/model/platform.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

namespace ls {
namespace fs = std::filesystem;
namespace {

constexpr const char* kSuffix = ".lstrace";
constexpr size_t kEdgeBytes = 64 * 1024;

uint64_t fnv(std::string_view s, uint64_t h = 0xcbf29ce484222325ull) {
    for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
    return h;
}

std::string hex(uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

// The cache file's name depends on the path only, so a changed trace file replaces its old
// cache file instead of leaving it behind; the identity inside says which state it holds.
std::string cacheStem(const std::string& identity) {
    return hex(fnv(identity.substr(0, identity.find('\n'))));
}

// "<16 hex digits>.ls…": a model cache file, a companion or a temporary of either.
bool cacheName(const std::string& name) {
    return name.size() > 19 && name.compare(16, 3, ".ls") == 0 &&
           std::all_of(name.begin(), name.begin() + 16,
                       [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}
bool temporaryName(const std::string& name) { return name.find(".tmp") != std::string::npos; }

int64_t lastWriteNs(const fs::directory_entry& e) {
    std::error_code ec;
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               e.last_write_time(ec).time_since_epoch())
        .count();
}

int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               fs::file_time_type::clock::now().time_since_epoch())
        .count();
}

// "path\n" then the stamp: the identity's first line is the source path (shown by cache info).
std::string sourceOf(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    char header[16];
    if (!in.read(header, sizeof header)) return {};
    uint32_t identityBytes = 0;
    std::memcpy(&identityBytes, header + 12, 4);
    std::string identity(std::min<uint32_t>(identityBytes, 1 << 16), '\0');
    in.read(identity.data(), static_cast<std::streamsize>(identity.size()));
    return identity.substr(0, identity.find('\n'));
}

std::mutex writesMutex;
std::vector<std::thread> writes;

// The least recently used files (with their companions) go beyond cap, except keep.
void keepWithin(const std::string& dir, uint64_t cap, const std::string& keep) {
    CacheInfo info = traceCacheInfo(dir);
    for (auto it = info.entries.rbegin(); it != info.entries.rend() && info.bytes > cap; ++it) {
        if (it->file == keep) continue;
        std::error_code ec;
        for (const auto& c : it->companions) fs::remove(c, ec);
        if (fs::remove(it->file, ec)) info.bytes -= it->bytes;
    }
}

// A temporary name beside `file` that no other writer, in this process or another, uses.
std::string temporaryCacheFile(const std::string& file) {
    static std::atomic<uint64_t> serial{0};
    return file + ".tmp" + std::to_string(platform::processId()) + "-" + std::to_string(serial++);
}

} // namespace

std::string traceCacheFile(const std::string& dir, const std::string& identity) {
    return (fs::path(dir) / (cacheStem(identity) + kSuffix)).string();
}

std::string companionCacheFile(const std::string& dir, const std::string& identity,
                               const std::string& suffix) {
    return (fs::path(dir) / (cacheStem(identity) + suffix)).string();
}

std::string defaultTraceCacheDir() {
    const std::string user = platform::userCacheDir();
    return user.empty() ? std::string() : (fs::path(user) / "layerscope" / "traces").string();
}

std::string traceFileIdentity(const std::string& path) {
    const std::optional<FileIdentity> id = fileIdentity(path);
    if (!id) return {};
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    std::string edges(std::min<uint64_t>(id->size, kEdgeBytes), '\0');
    in.read(edges.data(), static_cast<std::streamsize>(edges.size()));
    const uint64_t head = fnv(edges);
    // The last bytes (a file under 64 KiB: the same bytes again, read from its start).
    in.seekg(static_cast<std::streamoff>(id->size > kEdgeBytes ? id->size - kEdgeBytes : 0));
    in.read(edges.data(), static_cast<std::streamsize>(edges.size()));
    if (!in) return {};
    return id->absolutePath + "\nsize " + std::to_string(id->size) + " mtime " +
           std::to_string(id->mtimeNs) + " dev " + std::to_string(id->device) + " inode " +
           std::to_string(id->inode) + " head " + hex(head) + " tail " + hex(fnv(edges)) +
           " format " + std::to_string(kTraceCacheVersion);
}

CacheLookup lookupTraceCache(const std::string& dir, const std::string& path, uint32_t parts) {
    const std::string identity = traceFileIdentity(path);
    if (identity.empty()) return {nullptr, "the trace file cannot be examined"};
    const std::string file = traceCacheFile(dir, identity);
    TraceFileRead r;
    try {
        r = readTraceFile(file, identity, parts);
    } catch (const std::exception& e) {
        // out of memory or mappings: a miss, the file is loaded instead
        return {nullptr, std::string("cannot read the cache file: ") + e.what()};
    }
    if (!r.trace) return {nullptr, r.reason};
    std::error_code ec;
    fs::last_write_time(file, fs::file_time_type::clock::now(),
                        ec); // least recently used goes first
    return {std::move(r.trace), {}};
}

std::string storeCacheFile(const std::string& dir, const std::string& file, const std::string& keep,
                           uint64_t cap,
                           const std::function<std::string(const std::string& temp)>& write) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return "cannot create " + dir + ": " + ec.message();
    const std::string temp = temporaryCacheFile(file);
    std::string e = write(temp);
    if (e.empty()) {
        fs::rename(temp, file, ec);
        if (ec) e = "cannot rename the cache file into place";
    }
    if (!e.empty()) {
        fs::remove(temp, ec);
        return e;
    }
    keepWithin(dir, cap, keep);
    return {};
}

std::string storeTraceCache(const std::string& dir, const Trace& trace, const std::string& identity,
                            uint64_t cap) {
    const std::string file = traceCacheFile(dir, identity);
    return storeCacheFile(dir, file, file, cap, [&](const std::string& temp) {
        return writeTraceFile(trace, identity, temp);
    });
}

CacheInfo traceCacheInfo(const std::string& dir) {
    CacheInfo info;
    info.dir = dir;
    std::error_code ec;
    struct Companion {
        std::string file;
        uint64_t bytes;
        int64_t writtenNs;
    };
    std::vector<Companion> companions;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path p = it->path();
        const std::string name = p.filename().string();
        if (!cacheName(name) || temporaryName(name) || !it->is_regular_file(ec)) continue;
        const uint64_t bytes = it->file_size(ec);
        if (ec) continue; // gone meanwhile
        if (p.extension() != kSuffix) {
            companions.push_back({p.string(), bytes, lastWriteNs(*it)});
            continue;
        }
        CacheEntry e;
        e.file = p.string();
        e.bytes = bytes;
        e.lastUsedNs = lastWriteNs(*it);
        e.source = sourceOf(e.file);
        info.bytes += e.bytes;
        info.entries.push_back(std::move(e));
    }
    // A companion counts with its model cache file; one without (left by a removed file) counts
    // on its own, so that it is evicted and cleared too.
    for (const auto& [file, bytes, writtenNs] : companions) {
        const std::string stem = fs::path(file).stem().string();
        auto owner =
            std::find_if(info.entries.begin(), info.entries.end(),
                         [&](const CacheEntry& e) { return fs::path(e.file).stem() == stem; });
        if (owner == info.entries.end()) {
            CacheEntry e;
            e.file = file;
            e.lastUsedNs = writtenNs;
            info.entries.push_back(std::move(e));
            owner = info.entries.end() - 1;
        } else {
            owner->companions.push_back(file);
        }
        owner->bytes += bytes;
        info.bytes += bytes;
    }
    std::sort(info.entries.begin(), info.entries.end(),
              [](const CacheEntry& a, const CacheEntry& b) { return a.lastUsedNs > b.lastUsedNs; });
    return info;
}

size_t clearTraceCache(const std::string& dir) {
    size_t removed = 0;
    std::error_code ec;
    const int64_t hourAgo = nowNs() - int64_t(3600) * 1000000000;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!cacheName(name)) continue;
        const bool cache = it->path().extension() == kSuffix;
        // A temporary of a write still running elsewhere is young; one left by a killed process is
        // not.
        const bool temporary = temporaryName(name);
        const bool staleTemp = temporary && std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                it->last_write_time(ec).time_since_epoch())
                                                    .count() < hourAgo;
        if ((!temporary || staleTemp) && fs::remove(it->path(), ec)) removed += cache;
    }
    return removed;
}

void startBackgroundCacheWrite(std::shared_ptr<const Trace> trace, std::string dir,
                               std::string identity, uint64_t cap, std::shared_future<void> after) {
    std::lock_guard lock(writesMutex);
    writes.emplace_back([trace = std::move(trace), dir = std::move(dir),
                         identity = std::move(identity), cap, after = std::move(after)] {
        if (after.valid()) after.wait(); // ready when set or when its promise is gone
        platform::lowerThreadPriority(); // nobody waits for it: it yields the cores to what they
                                         // wait for
        (void)storeTraceCache(dir, *trace, identity,
                              cap); // a cache that cannot be written is only a slower reopen
    });
}

void waitForCacheWrites() {
    std::vector<std::thread> running;
    {
        std::lock_guard lock(writesMutex);
        running.swap(writes);
    }
    for (auto& t : running) t.join();
}

} // namespace ls
