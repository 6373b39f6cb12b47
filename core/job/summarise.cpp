#include "core/cache/trace_cache.h"
#include "core/job/job_file.h"
#include "core/load/load.h"
#include "core/load/session_load.h"
#include "core/model/platform.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <thread>

namespace ls::job {
namespace {

LoadOptions loadOptions(const SummariseOptions& options, uint32_t parts, unsigned threads) {
    LoadOptions o;
    o.parts = parts;
    o.threads = threads;
    o.cancel = options.cancel;
    if (options.useCache)
        o.cacheDir = options.cacheDir.empty() ? defaultTraceCacheDir() : options.cacheDir;
    return o;
}

TraceSummary summariseLoaded(const std::string& path, const LoadOptions& o,
                             std::string_view report) {
    LoadResult r = loadTrace(path, o);
    if (!r.ok()) {
        TraceSummary s;
        s.file = path;
        s.error = r.error ? r.error->reason : "cannot be read";
        return s;
    }
    return summariseTrace(*r.trace, path, report); // the Trace goes when r does
}

// Never throws: a file that cannot be summarised (out of memory midway) is a row with its error.
TraceSummary summariseOne(const std::string& path, const LoadOptions& o,
                          std::string_view report = {}) {
    try {
        return summariseLoaded(path, o, report);
    } catch (const std::exception& e) {
        TraceSummary s;
        s.file = path;
        s.error = e.what();
        return s;
    }
}

} // namespace

std::string summariseTraceFile(const std::string& path, const SummariseOptions& options) {
    return encodeSummary(
        summariseOne(path, loadOptions(options, summaryLoadParts(), options.threads)));
}

std::vector<TraceSummary>
summariseFiles(const std::vector<std::string>& files, const SummariseOptions& options,
               std::string_view report,
               const std::function<void(size_t, size_t, const std::string&)>& fileDone) {
    const uint32_t parts = summaryLoadParts(report);
    std::vector<uint64_t> sizes;
    for (const auto& f : files) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(f, ec);
        sizes.push_back(ec ? 0 : size);
    }
    const unsigned cores =
        options.threads ? options.threads : std::max(2u, std::thread::hardware_concurrency());
    const unsigned concurrent = parallelFileLoads(sizes, cores, platform::physicalMemoryBytes());
    const LoadOptions perFile = loadOptions(options, parts, std::max(1u, cores / concurrent));
    std::vector<TraceSummary> out(files.size());
    // Largest first: a big file taken last would leave the other threads idle while it loads.
    std::vector<size_t> order(files.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
    std::atomic<size_t> next{0};
    size_t done = 0;
    std::mutex mutex;
    auto worker = [&] {
        for (size_t k; (k = next.fetch_add(1)) < files.size();) {
            const size_t i = order[k];
            if (options.cancel && options.cancel->load()) {
                out[i].file = files[i];
                out[i].error = "cancelled";
                continue;
            }
            out[i] = summariseOne(files[i], perFile, report);
            std::lock_guard lock(mutex);
            ++done;
            if (fileDone) fileDone(done, files.size(), files[i]);
        }
    };
    {
        std::vector<std::jthread> pool;
        for (unsigned w = 1; w < concurrent; ++w) pool.emplace_back(worker);
        worker();
    }
    return out;
}

} // namespace ls::job
