#include "core/import/nsys_rep/nsys_rep_importer.h"

#include "core/import/nsys/nsys_importer.h"
#include "core/import/nsys_rep/export_cache.h"
#include "core/import/nsys_rep/nsys_locator.h"
#include "core/import/sqlite/sqlite_source.h"
#include "core/model/platform.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <new>
#include <system_error>

namespace ls {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kReportMagic = "NVIDIA Tegra Profiler Report ";

std::string lowercase(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

bool hasReportExtension(const std::string& path) {
    const std::string ext = lowercase(fs::path(path).extension().string());
    return ext == ".nsys-rep" || ext == ".qdrep";
}

// The Nsight Systems build that wrote the report, from its first line
// ("NVIDIA Tegra Profiler Report 2024@4@1@61-…" -> "2024.4.1.61"); empty for older reports.
std::string reportWriterVersion(const std::string& head) {
    if (!head.starts_with(kReportMagic)) return {};
    std::string v;
    for (size_t i = kReportMagic.size(); i < head.size() && i < kReportMagic.size() + 32; ++i) {
        const char c = head[i];
        if (std::isdigit(static_cast<unsigned char>(c)))
            v += c;
        else if (c == '@')
            v += '.';
        else
            break;
    }
    return std::count(v.begin(), v.end(), '.') >= 2 ? v : std::string();
}

// The last non-empty line a program wrote (progress bars end their redraws with '\r').
std::string lastLine(const std::string& text) {
    size_t end = text.size();
    while (end > 0) {
        while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' ' ||
                           text[end - 1] == '\t'))
            --end;
        size_t begin = end;
        while (begin > 0 && text[begin - 1] != '\n' && text[begin - 1] != '\r') --begin;
        std::string line = text.substr(begin, end - begin);
        if (!line.empty()) return line;
        end = begin;
    }
    return {};
}

std::string exportHint(const std::string& reportPath) {
    const fs::path name = fs::path(reportPath).filename();
    fs::path sqlite = name;
    sqlite.replace_extension(".sqlite");
    return "or run `nsys export --type sqlite --output " + sqlite.string() + " " + name.string() +
           "` where the report was made and open the .sqlite";
}

LoadResult fail(LoadErrorKind kind, std::string reason) {
    return {nullptr, LoadError{kind, std::move(reason)}};
}
LoadResult cancelled() { return fail(LoadErrorKind::Cancelled, "cancelled"); }

// Reads an export with the Nsight Systems importer. A report of a CPU-only run exports NVTX and
// OS runtime tables but no GPU table, which importTrace's probe would refuse: it is still an
// Nsight Systems export, so it goes to the same importer directly.
LoadResult importExport(const std::string& path, const LoadOptions& options) {
    FileHead head;
    if (auto e = readFileHead(path, head)) return {nullptr, std::move(e)};
    try {
        if (!head.isSqlite())
            return fail(LoadErrorKind::NotSqlite, "nsys export did not write an SQLite database");
        if (auto e = checkSqliteHeader(head)) return {nullptr, std::move(e)};
        const SqliteSource sqlite(path);
        const ImportProbe probe{path, head, &sqlite};
        if (!acceptsNsysExport(probe) && !sqlite.hasTable("NVTX_EVENTS"))
            return fail(LoadErrorKind::NoGpuTables, "the report holds neither GPU activity nor "
                                                    "NVTX ranges (CUDA and NVTX were not traced)");
        return readNsysExport(probe, options);
    } catch (const SqliteError& e) {
        return {nullptr, loadErrorFrom(e)};
    } catch (const std::bad_alloc&) {
        return fail(LoadErrorKind::Unreadable, "out of memory");
    } catch (const std::exception& e) {
        return fail(LoadErrorKind::Corrupt,
                    std::string("cannot load the trace (") + e.what() + ")");
    }
}

// Runs `nsys export` into a partial file beside target and renames it to target.
LoadResult exportReport(const std::string& nsys, const ImportProbe& probe,
                        const std::string& target, const LoadOptions& options,
                        const std::string& progressLabel) {
    const std::string partial = partialExportPath(target);
    const auto removePartial = [&] {
        std::error_code ec;
        fs::remove(partial, ec);
    };
    const std::vector<std::string> argv = {
        nsys,   "export",   "--type", "sqlite",  "--force-overwrite",
        "true", "--output", partial,  probe.path};
    int lastPercent = -1;
    const auto onLine = [&](std::string_view line) {
        // "Exporting 105 events: [=====50%    ]": the export's own progress.
        if (!options.progress) return;
        const size_t pct = line.rfind('%');
        if (pct == std::string_view::npos || pct == 0) return;
        size_t b = pct;
        while (b > 0 && std::isdigit(static_cast<unsigned char>(line[b - 1]))) --b;
        if (b == pct || pct - b > 3) return;
        const int percent = std::min(100, std::stoi(std::string(line.substr(b, pct - b))));
        if (percent == lastPercent) return;
        lastPercent = percent;
        options.progress(LoadProgress{progressLabel,
                                      probe.head.size * static_cast<uint64_t>(percent) / 100,
                                      probe.head.size, true});
    };
    const platform::ProcessResult run = platform::runProcess(argv, options.cancel, onLine);
    if (run.cancelled || options.cancelled()) {
        removePartial();
        return cancelled();
    }
    if (!run.started)
        return fail(LoadErrorKind::ConverterFailed, "cannot run " + nsys + ": " + run.startError);
    if (run.exitCode != 0) {
        removePartial();
        std::string why = lastLine(run.stderrTail);
        if (why.empty()) why = lastLine(run.stdoutTail);
        std::string reason = "nsys export failed (" +
                             (run.signal ? "killed by signal " + std::to_string(run.signal)
                                         : "exit code " + std::to_string(run.exitCode)) +
                             ")";
        if (!why.empty()) reason += ": " + why;
        if (const std::string writer = reportWriterVersion(probe.head.bytes); !writer.empty())
            reason += " (the report was written by Nsight Systems " + writer +
                      "; an older nsys cannot read a newer report)";
        return fail(LoadErrorKind::ConverterFailed, reason);
    }
    if (!isCompleteExport(partial)) {
        removePartial();
        return fail(LoadErrorKind::ConverterFailed,
                    "nsys export (" + nsys + ") exited without writing a complete SQLite export");
    }
    std::error_code ec;
    fs::rename(partial, target, ec);
    if (ec) {
        removePartial();
        return fail(LoadErrorKind::Unreadable,
                    "cannot move the export into the cache folder (" + ec.message() + ")");
    }
    return {};
}

} // namespace

bool acceptsNsysRep(const ImportProbe& probe) {
    if (probe.head.isSqlite())
        return false; // an export renamed .nsys-rep: the SQLite importers read it
    return probe.head.bytes.starts_with(kReportMagic) || hasReportExtension(probe.path);
}

LoadResult readNsysRep(const ImportProbe& probe, const LoadOptions& options) {
    // Named like a report but without its header: not handed to nsys.
    if (!probe.head.bytes.starts_with(kReportMagic))
        return fail(LoadErrorKind::NotSqlite,
                    "not an Nsight Systems report: it does not start with the report header "
                    "(damaged, or another kind of file)");
    const std::string progressLabel = fs::path(probe.path).filename().string() + " (nsys export)";
    if (options.progress) options.progress(LoadProgress{progressLabel, 0, probe.head.size, true});
    const auto report = fileIdentity(probe.path);
    if (!report)
        return fail(LoadErrorKind::Unreadable, "cannot read the report's path, size or time");
    const std::string name = exportFileName(*report);

    // A cached export is used only when it is a complete database; one that fails to load is
    // made again, once. Nothing is created in the cache before an nsys is found.
    std::string detail;
    LoadResult r;
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (options.cancelled()) return cancelled();
        std::string target;
        for (const std::string& dir : exportCacheDirs())
            if (const std::string p = (fs::path(dir) / name).string(); isCompleteExport(p)) {
                target = p;
                break;
            }
        const bool reuse = !target.empty();
        if (reuse) {
            detail = "reused the export " + target;
        } else {
            const NsysLocation nsys = locateNsys(nsysSearchFromEnvironment(options.nsysPath));
            if (!nsys.found()) {
                const std::string why =
                    nsys.error.empty()
                        ? "no Nsight Systems CLI (nsys) on PATH or in the usual install folders"
                        : nsys.error;
                return fail(LoadErrorKind::NeedsConverter,
                            "an Nsight Systems report needs nsys to open: " + why +
                                "; install Nsight Systems or set LAYERSCOPE_NSYS to its nsys, " +
                                exportHint(probe.path));
            }
            std::string cacheError;
            const auto dir = createExportCacheDir(cacheError);
            if (!dir)
                return fail(LoadErrorKind::Unreadable, "Nsight Systems report: " + cacheError);
            target = (fs::path(*dir) / name).string();
            if (LoadResult e = exportReport(nsys.path, probe, target, options, progressLabel);
                e.error)
                return e;
            pruneExportCache(*dir, target);
            detail = "exported with " + nsys.path + " (from " + nsys.from + ") to " + target;
        }
        if (options.progress)
            options.progress(LoadProgress{progressLabel, probe.head.size, probe.head.size, true});
        r = importExport(target, options);
        if (r.ok() || !reuse || r.error->kind == LoadErrorKind::Cancelled ||
            r.error->kind == LoadErrorKind::NoGpuTables)
            break;
        std::error_code ec;
        fs::remove(target, ec);
    }
    if (!r.ok()) {
        if (r.error->kind != LoadErrorKind::Cancelled)
            r.error->reason = "Nsight Systems report: " + r.error->reason;
        return r;
    }
    auto trace = std::const_pointer_cast<Trace>(r.trace);
    trace->sourcePath = probe.path;
    trace->info.format = "Nsight Systems report";
    if (!trace->info.productVersion.empty())
        detail += " (Nsight Systems " + trace->info.productVersion + ")";
    trace->report.add(Anomaly::ConvertedFromNsysRep, 1, detail);
    return {std::move(trace), std::nullopt};
}

} // namespace ls
