#pragma once
// Loading a trace file into the in-memory model: the one entry point for every front end.
#include "core/trace.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
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
};

struct LoadOptions {
    unsigned threads = 0; // 0: one per hardware thread, at least 2
    // Called from worker threads (never two at once), throttled to a few calls per chunk.
    std::function<void(const LoadProgress&)> progress;
    const std::atomic<bool>* cancel = nullptr;
};

struct LoadResult {
    std::shared_ptr<const Trace> trace;
    std::optional<LoadError> error;
    bool ok() const { return trace != nullptr; }
};

LoadResult loadTrace(const std::string& path, const LoadOptions& options = {});

// "error: FILE: REASON" as the CLI prints it.
std::string formatLoadError(const std::string& path, const LoadError& e);

} // namespace ls
