#pragma once
// The model cache: a loaded trace kept in the user's cache folder ($XDG_CACHE_HOME/layerscope/
// traces, never beside the trace), one file per trace file state, so a reopen reads columns
// instead of parsing SQLite and correlating again. A cache file is found by the trace file's
// identity (path, size, mtime, device and inode, a hash of its first and last 64 KiB) and the
// cache format version, checked whole before use (core/cache/trace_file.h), and replaced when it
// does not pass. The least recently used files go when the folder grows past its cap.
#include "core/model/trace.h"

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

namespace ls {

constexpr uint64_t kDefaultTraceCacheCap = uint64_t(4) << 30;

// <user cache folder>/layerscope/traces; empty when the environment names no cache folder.
std::string defaultTraceCacheDir();

// The identity of a trace file's current state as one line; empty when it cannot be read.
std::string traceFileIdentity(const std::string& path);

struct CacheLookup {
    std::shared_ptr<Trace> trace; // null on a miss
    std::string miss; // why not: "no cache file", "made from another file", "damaged …"
};
// The cached model of `path` in dir, marked as used; only the columns `parts` need are read
// (a kernel summary reads the kernels and the strings, not the rest of a 600 MB model).
CacheLookup lookupTraceCache(const std::string& dir, const std::string& path,
                             uint32_t parts = kLoadEverything);

// Writes trace (loaded from path, whose identity was taken before the load) into dir under a
// temporary name, renames it into place, then evicts least recently used files beyond cap.
// Returns an error message, empty on success.
std::string storeTraceCache(const std::string& dir, const Trace& trace, const std::string& identity,
                            uint64_t cap);

// The model cache file for a trace file's identity in dir. Files beside it named like it with
// another ".ls…" suffix (the view cache's, core/prepared/view_file.h) are its companions: they
// count with it, and go when it is evicted or the cache cleared.
std::string traceCacheFile(const std::string& dir, const std::string& identity);
std::string companionCacheFile(const std::string& dir, const std::string& identity,
                               const std::string& suffix);

// Writes `file` in dir (created if need be): `write` fills a temporary no other writer uses,
// which is then renamed into place; then the least recently used cache files (with their
// companions) beyond cap go, except `keep`. An error message, empty on success.
std::string storeCacheFile(const std::string& dir, const std::string& file, const std::string& keep,
                           uint64_t cap,
                           const std::function<std::string(const std::string& temp)>& write);

struct CacheEntry {
    std::string file;   // the cache file
    std::string source; // the trace file it was made from
    std::vector<std::string> companions;
    uint64_t bytes = 0; // with its companions
    int64_t lastUsedNs = 0;
};
struct CacheInfo {
    std::string dir;
    std::vector<CacheEntry> entries; // most recently used first
    uint64_t bytes = 0;
};
CacheInfo traceCacheInfo(const std::string& dir);
// Removes every cache file in dir, their companions and stale temporaries; returns how many
// model cache files went.
size_t clearTraceCache(const std::string& dir);

// Cache writes started in the background (by the loader) that have not finished; waitFor…
// blocks until they have, as a process must before it exits.
// `after`, when valid, is waited for before writing; the write runs at a lower priority
// (platform::lowerThreadPriority): nobody waits for it.
void startBackgroundCacheWrite(std::shared_ptr<const Trace> trace, std::string dir,
                               std::string identity, uint64_t cap,
                               std::shared_future<void> after = {});
void waitForCacheWrites();

} // namespace ls
