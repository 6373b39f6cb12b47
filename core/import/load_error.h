#pragma once
// What a load reports back: the error kinds with their one-line reasons, progress, options and
// the result. Shared by every importer and by core/load's loadTrace.
#include "core/model/trace.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace ls {

enum class LoadErrorKind {
    NotFound,
    IsDirectory,
    Unreadable,
    Empty,
    NotSqlite,
    Corrupt,
    NoGpuTables,
    UnsupportedFormat,
    Cancelled,
    NeedsConverter,  // an Nsight Systems report, and no nsys to export it with
    ConverterFailed, // nsys export failed
};

struct LoadError {
    LoadErrorKind kind;
    std::string reason; // one line, without the file name
};

// A snapshot of how far the read has come, summed over all event tables.
struct LoadProgress {
    std::string_view table; // the table a chunk was just read from
    uint64_t rowsRead = 0;
    uint64_t rowsTotal = 0; // estimate from rowid ranges
    bool inBytes = false;   // JSON traces count the file's bytes read, not rows
};

// A kernel as the importer has just read it, before the load sorts and indexes the kernels: what
// the window's overview of a load in progress draws (core/present/load_overview.h).
struct KernelSpan {
    TimeNs start = 0, end = 0;
    uint32_t device = 0, stream = 0; // as the file numbers them
};

struct LoadOptions {
    unsigned threads = 0; // 0: one per hardware thread, at least 2
    // Called from worker threads (never two at once), throttled to a few calls per chunk.
    std::function<void(const LoadProgress&)> progress;
    const std::atomic<bool>* cancel = nullptr;
    // Called from the reading threads (possibly two at once) with each batch of kernels read, a
    // few thousand at a time in file order, while the rest of the file is still being read.
    // Importers that cannot say (every format but Nsight Systems exports) never call it.
    std::function<void(std::span<const KernelSpan>)> kernelsRead;
    // The nsys that exports .nsys-rep/.qdrep reports (the GUI's preference); empty: the one named
    // by LAYERSCOPE_NSYS, else `nsys` on PATH, else one in the usual install folders.
    std::string nsysPath;
    // What the caller will use (LoadPart bits); the rest may be skipped. Closed over by
    // closeLoadParts() before use.
    uint32_t parts = kLoadEverything;
    // The model cache's folder (core/cache/trace_cache.h); empty: no cache. A full load is looked
    // up there first and written there in the background after a miss.
    std::string cacheDir;
    uint64_t cacheCapBytes = uint64_t(4) << 30;
    // When valid, that background write waits for it to become ready (or for its promise to go):
    // the app holds it back until the window has prepared what it shows, so the 500 MB write does
    // not take a core from that preparation.
    std::shared_future<void> cacheWriteAfter;
    // Called on each file's loading thread once its events, NVTX nesting and indexes are final,
    // before correlation and costs, which write only the trace's links, ops, metrics, iterations,
    // strings and report: the caller may read the other columns on a thread of its own meanwhile
    // (the app builds its timeline lanes). What it returns is called before the load returns, on
    // every path, so that such a reader is done while the trace is alive.
    std::function<std::function<void()>(const Trace&)> imported;
    // The same once the correlation is done (when the load correlates): the costs and iterations
    // after it write only the trace's metrics, iterations, report and strings, so a reader of
    // the other columns that reads no strings may run meanwhile (the app sorts its kernel table
    // and builds the table's NVTX paths on the core the costs leave idle).
    std::function<std::function<void()>(const Trace&)> correlated;
    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

struct LoadResult {
    std::shared_ptr<const Trace> trace;
    std::optional<LoadError> error;
    bool ok() const { return trace != nullptr; }
};

// "error: FILE: REASON" as the CLI prints it.
inline std::string formatLoadError(const std::string& path, const LoadError& e) {
    return "error: " + path + ": " + e.reason;
}

} // namespace ls
