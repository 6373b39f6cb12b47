// loadTrace: import the file (core/import picks the importer), then correlate it and price its
// kernels, the same for every format.
#include "core/load/load.h"

#include "core/costs/kernel_metrics.h"
#include "core/import/importer.h"
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
    try {
        auto trace = std::const_pointer_cast<Trace>(r.trace);
        const unsigned threads = std::clamp(options.threads ? options.threads : std::max(2u, std::thread::hardware_concurrency()), 1u, 16u);
        const auto built = std::chrono::steady_clock::now();
        correlate(*trace, threads);
        const auto correlated = std::chrono::steady_clock::now();
        trace->loadPhases.emplace_back("correlate", std::chrono::duration<double>(correlated - built).count());
        computeKernelMetrics(*trace);
        const auto priced = std::chrono::steady_clock::now();
        trace->loadPhases.emplace_back("flops, bytes, tensor cores", std::chrono::duration<double>(priced - correlated).count());
        findTraceIterations(*trace);
        trace->loadPhases.emplace_back("iterations", std::chrono::duration<double>(std::chrono::steady_clock::now() - priced).count());
        if (options.cancelled()) return {nullptr, LoadError{LoadErrorKind::Cancelled, "cancelled"}};
        trace->loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return {std::move(trace), std::nullopt};
    } catch (const std::bad_alloc&) {
        return {nullptr, LoadError{LoadErrorKind::Unreadable, "out of memory"}};
    } catch (const std::exception& e) {
        return {nullptr, LoadError{LoadErrorKind::Corrupt, std::string("cannot load the trace (") + e.what() + ")"}};
    }
}

} // namespace

LoadResult loadTrace(const std::string& path, const LoadOptions& options) { return oneLineReason(loadImported(path, options)); }

} // namespace ls
