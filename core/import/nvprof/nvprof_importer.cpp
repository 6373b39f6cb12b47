#include "core/import/nvprof/nvprof_importer.h"

#include "core/import/nvprof/nvprof_convert.h"
#include "core/import/sqlite/sqlite_source.h"
#include "core/model/platform.h"

#include <charconv>
#include <chrono>
#include <filesystem>
#include <string_view>

namespace ls {
namespace {

// A removable file in the temporary directory, deleted with the last trace that uses it.
struct TempFile {
    std::string path;
    ~TempFile() {
        std::error_code ec;
        std::filesystem::remove(path, ec);
    }
};

constexpr std::string_view kCopyPrefix = "layerscope-nvprof-";

// Copies a killed process left behind (its id is in their name, and it no longer runs).
void removeOrphanedCopies(const std::filesystem::path& dir) {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!name.starts_with(kCopyPrefix) || !name.ends_with(".sqlite")) continue;
        uint64_t pid = 0;
        const char* first = name.data() + kCopyPrefix.size();
        const auto [rest, err] = std::from_chars(first, name.data() + name.size(), pid);
        if (err != std::errc() || rest == first || *rest != '-' || pid == platform::processId() ||
            platform::processRunning(pid))
            continue;
        std::error_code removed;
        std::filesystem::remove(it->path(), removed);
    }
}

std::shared_ptr<TempFile> makeTempFile() {
    static std::atomic<unsigned> counter{0};
    auto f = std::make_shared<TempFile>();
    std::error_code ec;
    const auto dir = std::filesystem::temp_directory_path(ec);
    removeOrphanedCopies(dir); // a conversion is rare, the listing quick
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    f->path = (dir / (std::string(kCopyPrefix) + std::to_string(platform::processId()) + "-" +
                      std::to_string(stamp) + "-" + std::to_string(counter++) + ".sqlite"))
                  .string();
    return f;
}

} // namespace

bool acceptsNvprof(const ImportProbe& probe) {
    return probe.sqlite && looksLikeNvprof(probe.sqlite->tables());
}

LoadResult readNvprof(const ImportProbe& probe, const LoadOptions& options) {
    auto copy = makeTempFile();
    NvprofConversion conversion;
    if (auto e = convertNvprof(probe.path, copy->path, conversion, options.cancel))
        return {nullptr, std::move(e)};
    LoadResult r = importTrace(copy->path, options);
    if (!r.ok()) {
        if (r.error->kind != LoadErrorKind::Cancelled)
            r.error->reason = "nvprof database: " + r.error->reason;
        return r;
    }
    auto trace = std::const_pointer_cast<Trace>(r.trace);
    trace->sourcePath = probe.path;
    trace->ownedFiles = copy;
    trace->info.format = "nvprof database";
    trace->info.schemaVersion = std::to_string(conversion.schemaVersion);
    trace->report.add(Anomaly::ConvertedFromNvprof, 1,
                      "schema version " + std::to_string(conversion.schemaVersion));
    if (conversion.unpairedMarkerEnds)
        trace->report.add(Anomaly::UnpairedMarkerEnd, conversion.unpairedMarkerEnds);
    if (trace->kernels.size() + trace->memcpys.size() + trace->memsets.size() +
            trace->apiCalls.size() ==
        0)
        trace->report.add(Anomaly::NoActivity, 1);
    return {std::move(trace), std::nullopt};
}

} // namespace ls
