#include "core/import/nvprof/nvprof_importer.h"

#include "core/import/nvprof/nvprof_convert.h"
#include "core/import/sqlite_source.h"

#include <chrono>
#include <filesystem>

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

std::shared_ptr<TempFile> makeTempFile() {
    static std::atomic<unsigned> counter{0};
    auto f = std::make_shared<TempFile>();
    std::error_code ec;
    const auto dir = std::filesystem::temp_directory_path(ec);
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    f->path = (dir / ("layerscope-nvprof-" + std::to_string(stamp) + "-" + std::to_string(counter++) + ".sqlite")).string();
    return f;
}

} // namespace

bool acceptsNvprof(const ImportProbe& probe) { return probe.sqlite && looksLikeNvprof(probe.sqlite->tables()); }

LoadResult readNvprof(const ImportProbe& probe, const LoadOptions& options) {
    auto copy = makeTempFile();
    NvprofConversion conversion;
    if (auto e = convertNvprof(probe.path, copy->path, conversion, options.cancel)) return {nullptr, std::move(e)};
    LoadResult r = importTrace(copy->path, options);
    if (!r.ok()) {
        if (r.error->kind != LoadErrorKind::Cancelled) r.error->reason = "nvprof database: " + r.error->reason;
        return r;
    }
    auto trace = std::const_pointer_cast<Trace>(r.trace);
    trace->sourcePath = probe.path;
    trace->ownedFiles = copy;
    trace->info.format = "nvprof database";
    trace->info.schemaVersion = std::to_string(conversion.schemaVersion);
    trace->report.add(Anomaly::ConvertedFromNvprof, 1, "schema version " + std::to_string(conversion.schemaVersion));
    if (conversion.unpairedMarkerEnds) trace->report.add(Anomaly::UnpairedMarkerEnd, conversion.unpairedMarkerEnds);
    if (trace->kernels.size() + trace->memcpys.size() + trace->memsets.size() + trace->apiCalls.size() == 0)
        trace->report.add(Anomaly::NoActivity, 1);
    return {std::move(trace), std::nullopt};
}

} // namespace ls
