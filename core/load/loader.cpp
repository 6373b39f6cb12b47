// loadTrace: import the file (core/import picks the importer), then correlate it and price its
// kernels, the same for every format.
#include "core/cache/trace_cache.h"
#include "core/costs/kernel_metrics.h"
#include "core/import/importer.h"
#include "core/load/load.h"
#include "core/pytorch/correlation.h"
#include "core/pytorch/iterations.h"

#include <algorithm>
#include <chrono>
#include <new>
#include <thread>

namespace ls {
namespace {

// A reason is one line (the CLI prints it after "error: FILE: ", the GUI in its status bar), but
// SQLite's messages may quote schema text with its line breaks ("malformed database schema (T) -
// unrecognized token: ..."): every run of control characters and blanks becomes one space.
LoadResult oneLineReason(LoadResult r) {
    if (!r.error) return r;
    std::string line;
    bool gap = false;
    for (const char c : r.error->reason) {
        if (static_cast<unsigned char>(c) <= ' ' || c == '\x7f') {
            gap = true;
            continue;
        }
        if (gap && !line.empty()) line += ' ';
        gap = false;
        line += c;
    }
    r.error->reason = std::move(line);
    return r;
}

LoadResult loadImported(const std::string& path, const LoadOptions& options) {
    const auto t0 = std::chrono::steady_clock::now();
    LoadResult r = importTrace(path, options);
    if (!r.ok()) return r;
    // The caller's reader of the imported columns ends before this returns (the trace may go).
    struct Joined {
        std::function<void()> join;
        ~Joined() {
            if (join) join();
        }
    } early{options.imported ? options.imported(*r.trace) : std::function<void()>()};
    try {
        auto trace = std::const_pointer_cast<Trace>(r.trace);
        const unsigned threads = std::clamp(
            options.threads ? options.threads : std::max(2u, std::thread::hardware_concurrency()),
            1u, 16u);
        const uint32_t parts = closeLoadParts(options.parts);
        trace->parts &= heldLoadParts(parts); // an importer that left names out cleared their bit
        auto phase = [&](uint32_t part, const char* name, auto&& run) {
            if (!(parts & part)) return;
            const auto begin = std::chrono::steady_clock::now();
            run();
            trace->loadPhases.emplace_back(
                name,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
        };
        phase(kLoadCorrelation, "correlate", [&] { correlate(*trace, threads); });
        Joined correlatedReader; // joined before `early`'s, on every path
        if (options.correlated && (parts & kLoadCorrelation))
            correlatedReader.join = options.correlated(*trace);
        phase(kLoadCosts, "flops, bytes, tensor cores",
              [&] { computeKernelMetrics(*trace, threads); });
        phase(kLoadIterations, "iterations", [&] { findTraceIterations(*trace); });
        if (options.cancelled()) return {nullptr, LoadError{LoadErrorKind::Cancelled, "cancelled"}};
        trace->loadSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return {std::move(trace), std::nullopt};
    } catch (const std::bad_alloc&) {
        return {nullptr, LoadError{LoadErrorKind::Unreadable, "out of memory"}};
    } catch (const std::exception& e) {
        return {nullptr, LoadError{LoadErrorKind::Corrupt,
                                   std::string("cannot load the trace (") + e.what() + ")"}};
    }
}

} // namespace

// A load through the model cache: a valid cache file answers at once, with the columns the
// load's parts need; otherwise the file is loaded and, when the load read everything from a
// trace file that is not a converted copy, written to the cache in the background (if the file
// did not change meanwhile).
LoadResult loadCached(const std::string& path, const LoadOptions& options) {
    const auto t0 = std::chrono::steady_clock::now();
    if (CacheLookup hit = lookupTraceCache(options.cacheDir, path, options.parts); hit.trace) {
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        hit.trace->loadPhases = {{"read model cache", s}};
        hit.trace->loadSeconds = s;
        return {std::move(hit.trace), std::nullopt};
    }
    const std::string identity = traceFileIdentity(path);
    LoadResult r = loadImported(path, options);
    const bool cacheable = r.ok() && closeLoadParts(options.parts) == kLoadEverything &&
                           !r.trace->ownedFiles && r.trace->sourcePath.empty();
    if (cacheable && !identity.empty() && traceFileIdentity(path) == identity)
        startBackgroundCacheWrite(r.trace, options.cacheDir, identity, options.cacheCapBytes,
                                  options.cacheWriteAfter);
    return r;
}

LoadResult loadTrace(const std::string& path, const LoadOptions& options) {
    return oneLineReason(options.cacheDir.empty() ? loadImported(path, options)
                                                  : loadCached(path, options));
}

} // namespace ls
