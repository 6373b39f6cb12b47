// layerscope-bench FILE: the load against the bare SQLite scan floor, alternating runs in one
// process, medians, ratio and peak RSS; --json prints one object for scripts.
#include "app/bench/bench_median.h"
#include "app/bench/floors/json_floor.h"
#include "app/bench/floors/sqlite_floor.h"
#include "app/bench/gui_open_bench.h"
#include "app/bench/job_open_bench.h"
#include "app/bench/present_bench.h"
#include "app/bench/report_bench.h"
#include "app/bench/session_bench.h"
#include "app/bench/timeline_bench.h"
#ifdef LAYERSCOPE_BENCH_TIMELINE
#include "app/gui/serial_raster_fills.h"
#endif
#include "core/cache/trace_cache.h"
#include "core/import/sqlite/sqlite_db.h"
#include "core/load/load.h"
#include "core/load/memory_budget.h"
#include "core/model/platform.h"
#include "core/views/kernel_filter.h"
#include "core/views/kernel_table.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

double median(std::vector<double> v) { return benchMedian(std::move(v)); }

template <typename F> double seconds(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct ReopenFigures {
    double writeS = 0, reopenS = 0, floorS = 0;
    uint64_t bytes = 0;
};

// The model cache: written once into a temporary folder (what the app does in the background
// after a first load), then read back alternating with the floor, medians; the folder is removed.
// The written model is dropped before the reads: a reopen holds one model, as the app and the CLI
// do (holding two made the reads page against each other here, 0.7-1.6 s against 0.3 s).
ReopenFigures measureReopen(const std::string& path, std::shared_ptr<const ls::Trace> trace,
                            int runs, bool sqlite) {
    ReopenFigures f;
    const std::string dir = (std::filesystem::temp_directory_path() /
                             ("layerscope-bench-cache-" + std::to_string(std::random_device{}())))
                                .string();
    const std::string identity = ls::traceFileIdentity(path);
    f.writeS = seconds([&] { (void)ls::storeTraceCache(dir, *trace, identity, UINT64_MAX); });
    trace.reset();
    f.bytes = ls::traceCacheInfo(dir).bytes;
    std::vector<double> floors, reopens;
    for (int r = 0; r < runs; ++r) {
        floors.push_back(
            seconds([&] { (void)(sqlite ? ls::scanFloor(path) : ls::scanJsonFloor(path)); }));
        reopens.push_back(seconds([&] {
            if (!ls::lookupTraceCache(dir, path).trace)
                std::fprintf(stderr, "the model cache missed\n");
        }));
    }
    ls::clearTraceCache(dir);
    std::filesystem::remove_all(dir);
    f.reopenS = median(reopens);
    f.floorS = median(floors);
    return f;
}

struct TableFigures {
    double buildS = 0, sortMsMax = 0, filterMsMax = 0;
    std::string slowestColumn, slowestFilter;
};

// What the GUI's kernel table does on open and on a header click: build the table, then sort
// every row by each column (from load order), median of 3 per column; then what typing in the
// filter bar does: apply a few filters to every row, median of 3 each.
TableFigures measureTable(const std::shared_ptr<const ls::Trace>& trace) {
    TableFigures f;
    std::unique_ptr<ls::KernelTable> table;
    f.buildS = seconds([&] { table = std::make_unique<ls::KernelTable>(trace); });
    std::vector<ls::KernelId> identity(trace->kernels.size());
    for (uint32_t i = 0; i < identity.size(); ++i) identity[i] = ls::KernelId(i);
    for (const auto& column : ls::kernelFields()) {
        std::vector<double> ms;
        for (int r = 0; r < 3; ++r) {
            auto rows = identity;
            ms.push_back(1e3 * seconds([&] { table->sort(rows, column.field, r % 2 == 1); }));
        }
        if (std::getenv("LAYERSCOPE_BENCH_VERBOSE"))
            std::fprintf(stderr, "sort %-14s %.1f ms\n", std::string(column.name).c_str(),
                         median(ms));
        if (const double m = median(ms); m > f.sortMsMax) {
            f.sortMsMax = m;
            f.slowestColumn = std::string(column.name);
        }
    }
    for (const char* expression :
         {"name ~ gemm", "duration > 50us", "tc = not used", "addmm", "/elementwise|reduce/",
          "nvtx_path ~ layer and direction = backward", "flops >= 1 GFLOP"}) {
        const auto parsed = ls::KernelFilter::parse(expression);
        if (!parsed.filter) {
            std::fprintf(stderr, "filter %s: %s\n", expression, parsed.error.c_str());
            continue;
        }
        std::vector<double> ms;
        size_t matched = 0;
        ms.reserve(3);
        for (int r = 0; r < 3; ++r)
            ms.push_back(1e3 *
                         seconds([&] { matched = parsed.filter->apply(*table, identity).size(); }));
        if (std::getenv("LAYERSCOPE_BENCH_VERBOSE"))
            std::fprintf(stderr, "filter %-44s %.1f ms (%zu rows)\n", expression, median(ms),
                         matched);
        if (const double m = median(ms); m > f.filterMsMax) {
            f.filterMsMax = m;
            f.slowestFilter = expression;
        }
    }
    return f;
}

bool isSqliteFile(const std::string& path) {
    char magic[16] = {};
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    const size_t n = std::fread(magic, 1, sizeof magic, f);
    std::fclose(f);
    return n == sizeof magic && std::memcmp(magic, "SQLite format 3", 16) == 0;
}

// The first open in the window against the full load, nothing else: for work on the window's
// preparation.
int runGuiOnlyBench(const std::string& path, int runs, bool reopen, bool json, int argc,
                    char** argv) {
#ifdef LAYERSCOPE_BENCH_TIMELINE
    const GuiOpenFigures gui =
        measureGuiOpen(path, runs, reopen, argc, argv); // each open after a CLI load
    if (!gui.measured) return 3;
    if (json) {
        std::printf("{\"file\": \"%s\", \"runs\": %d, \"open_first_frame_s\": %.4f, "
                    "\"open_first_frame_kernels\": %llu, \"ready_s\": %.4f, "
                    "\"ready_ratio_to_load\": %.3f, \"ready_paired_load_s\": %.4f, "
                    "\"stall_ms_max\": %.1f, \"cache_open_stall_ms_max\": %.1f, "
                    "\"gui_reopen_s\": %.4f, \"gui_reopen_stall_ms_max\": %.1f}\n",
                    path.c_str(), runs, gui.firstFrameS,
                    static_cast<unsigned long long>(gui.firstFrameKernels), gui.readyS,
                    gui.readyRatio, gui.loadS, gui.stallMsMax, gui.cacheOpenStallMsMax,
                    gui.reopenReadyS, gui.reopenStallMsMax);
        return 0;
    }
    std::printf("load (median)   %.3f s over %d runs, each before an open\nfirst frame     "
                "%.3f s (median) to the overview of the kernels read so far\nGUI open        "
                "%.3f s (median), %.2f of the load just before each open (median of the pairs), "
                "longest stall %.1f ms\n",
                gui.loadS, runs, gui.firstFrameS, gui.readyS, gui.readyRatio, gui.stallMsMax);
    if (reopen)
        std::printf("GUI cache open  the open that writes the model cache: longest stall %.1f ms\n"
                    "GUI reopen      %.3f s (median) from the model cache%s, longest stall "
                    "%.1f ms\n",
                    gui.cacheOpenStallMsMax, gui.reopenReadyS,
                    gui.reopenFromCache ? "" : " (MISSED)", gui.reopenStallMsMax);
    return 0;
#else
    (void)path, (void)runs, (void)reopen, (void)json, (void)argc, (void)argv;
    std::fprintf(stderr, "error: built without the GUI\n");
    return 2;
#endif
}

// A job file in the window: open, Ranks tab frames, clicks through ranks' details.
int runJobBench(const std::string& path, int clicks, uint64_t budget, bool json, int argc,
                char** argv) {
#ifdef LAYERSCOPE_BENCH_TIMELINE
    const JobOpenFigures f = measureJobOpen(path, clicks, budget, argc, argv);
    if (!f.measured) {
        std::fprintf(stderr, "error: %s: the window did not open it\n", path.c_str());
        return 3;
    }
    auto list = [](const std::vector<double>& v) {
        std::string out;
        for (double x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
        return out;
    };
    auto median = [](std::vector<double> v) { return v.empty() ? 0.0 : benchMedian(std::move(v)); };
    if (json)
        std::printf("{\"ranks\": %d, \"ready_s\": %.4f, \"stall_ms_max\": %.1f, "
                    "\"open_peak_rss_mb\": %.1f, \"ranks_frame_p95_ms\": %.2f, "
                    "\"ranks_frame_max_ms\": %.2f, \"budget_mb\": %.1f, "
                    "\"first_click_s\": [%s], \"again_click_s\": [%s], "
                    "\"click_rss_max_mb\": %.1f, \"peak_rss_mb\": %.1f}\n",
                    f.ranks, f.readyS, f.stallMsMax, f.openPeakRssMb, f.frameP95Ms, f.frameMaxMs,
                    static_cast<double>(f.budgetBytes) / (1024.0 * 1024.0),
                    list(f.firstClickS).c_str(), list(f.againClickS).c_str(), f.clickRssMaxMb,
                    f.peakRssMb);
    else
        std::printf("job             %d ranks\n"
                    "open            ready (Ranks tab and the first rank painted) %.3f s, longest "
                    "stall %.1f ms, peak RSS %.1f MB\n"
                    "ranks timeline  %d frames at 4 zoom levels: p95 %.2f ms, max %.2f ms\n"
                    "clicks          %zu ranks, budget %.0f MB: first visits median %.3f s "
                    "(%s), again median %.3f s; largest RSS after a click %.1f MB; peak RSS "
                    "%.1f MB\n",
                    f.ranks, f.readyS, f.stallMsMax, f.openPeakRssMb, f.frames, f.frameP95Ms,
                    f.frameMaxMs, f.firstClickS.size(),
                    static_cast<double>(f.budgetBytes) / (1024.0 * 1024.0), median(f.firstClickS),
                    list(f.firstClickS).c_str(), median(f.againClickS), f.clickRssMaxMb,
                    f.peakRssMb);
    return 0;
#else
    (void)path, (void)clicks, (void)budget, (void)json, (void)argc, (void)argv;
    std::fprintf(stderr, "error: built without the GUI\n");
    return 2;
#endif
}

int usage(int rc) {
    std::fprintf(
        rc ? stderr : stdout,
        "usage: layerscope-bench FILE [--runs N] [--json]\n"
        "       layerscope-bench --session FILE...|DIR [--runs N] [--json]\n"
        "       layerscope-bench FILE --reports [--report NAME]... [--runs N] [--json]\n"
        "       layerscope-bench FILE --gui-only [--runs N] [--no-reopen] [--json]\n"
        "       layerscope-bench --job JOB.lsjob [--clicks N] [--memory-budget SIZE] [--json]\n\n"
        "Measures, alternating N runs (default 5) in one process, (a) the floor: one thread\n"
        "stepping over every column the loader needs, storing nothing (JSON traces: simdjson\n"
        "on-demand visiting every event's fields in the whole text), and (b) the full load.\n"
        "Prints medians, the ratio b/a and the peak RSS; then sorts and filters the kernel table\n"
        "and, when built with the GUI, renders the timeline offscreen (1920x1080).\n"
        "--session loads the files as one session (the ranks of a job) against the sum of their\n"
        "single-thread floors divided by the cores, and prints the peak RSS.\n"
        "--reports runs every `layerscope-cli summary --report X --no-cache` in this process\n"
        "(output dropped) alternating with the full load, and prints each one's time and ratio;\n"
        "--report NAME runs only the reports named.\n"
        "--gui-only measures N first opens in the window (when built with the GUI), each after a\n"
        "load as the CLI does it: the time to the first frame of the kernels read so far, the\n"
        "loads' and the ready times' medians, the median of each open's ready time over the\n"
        "load just before it, and the longest stall; then (unless --no-reopen) an open that\n"
        "writes the model cache (its longest stall) and N reopens from the cache, each in a new\n"
        "window: their median and longest stall.\n"
        "--job opens a job file in the window (model cache on, in a temporary folder): the time\n"
        "to the painted Ranks tab and first rank, the peak RSS, the Ranks timeline's frames; then\n"
        "N clicks (default 10) on ranks spread over the job, each loading that rank's model,\n"
        "and the same N again: each click's time, the largest RSS after one.\n");
    return rc;
}

} // namespace

int main(int argc, char** argv) {
    ls::platform::preferMappedLargeAllocations();
#ifdef LAYERSCOPE_BENCH_TIMELINE
    ls::app::keepRasterFillsOnThePaintingThread(); // the window painted as the app paints it
#endif
    std::string path;
    std::vector<std::string> sessionFiles;
    int runs = 5;
    bool json = false, session = false, reports = false;
    std::vector<std::string> onlyReports;
    bool guiOnly = false, guiReopen = true;
    std::string jobPath;
    int clicks = 10;
    uint64_t budget = 0;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--json"))
            json = true;
        else if (!std::strcmp(argv[i], "--session"))
            session = true;
        else if (!std::strcmp(argv[i], "--reports"))
            reports = true;
        else if (!std::strcmp(argv[i], "--gui-only"))
            guiOnly = true;
        else if (!std::strcmp(argv[i], "--no-reopen"))
            guiReopen = false;
        else if (!std::strcmp(argv[i], "--job") && i + 1 < argc)
            jobPath = argv[++i];
        else if (!std::strcmp(argv[i], "--clicks") && i + 1 < argc)
            clicks = std::max(0, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--memory-budget") && i + 1 < argc) {
            const auto bytes = ls::parseByteSize(argv[++i]);
            if (!bytes) return usage(2);
            budget = *bytes;
        } else if (session && argv[i][0] != '-')
            sessionFiles.emplace_back(argv[i]);
        else if (!std::strcmp(argv[i], "--report") && i + 1 < argc) { // implies --reports
            reports = true;
            onlyReports.emplace_back(argv[++i]);
        } else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "-h") || !std::strcmp(argv[i], "--help"))
            return usage(0);
        else if (argv[i][0] == '-' || !path.empty())
            return usage(2);
        else
            path = argv[i];
    }
    if (!jobPath.empty()) return runJobBench(jobPath, clicks, budget, json, argc, argv);
    if (session) return sessionFiles.empty() ? usage(2) : runSessionBench(sessionFiles, runs, json);
    if (path.empty()) return usage(2);
    if (reports) return runReportBench(path, runs, json, onlyReports);
    if (guiOnly) return runGuiOnlyBench(path, runs, guiReopen, json, argc, argv);

    std::vector<double> floorTimes, loadTimes;
    ls::FloorResult floor;
    size_t kernels = 0, apiCalls = 0, ranges = 0;
    std::vector<std::pair<std::string, double>> phases;
    std::shared_ptr<const ls::Trace> last;
    try {
        // SQLite traces: the bare column scan; JSON traces: simdjson on-demand over the whole text.
        const bool sqlite = isSqliteFile(path);
        auto scan = [&] { return sqlite ? ls::scanFloor(path) : ls::scanJsonFloor(path); };
        floor = scan(); // warms the page cache for both sides
        for (int r = 0; r < runs; ++r) {
            floorTimes.push_back(seconds([&] { floor = scan(); }));
            ls::LoadResult result;
            last.reset(); // one trace in memory at a time, as in the app
            loadTimes.push_back(seconds([&] { result = ls::loadTrace(path); }));
            if (!result.ok()) {
                std::fprintf(stderr, "%s\n", ls::formatLoadError(path, *result.error).c_str());
                return 3;
            }
            kernels = result.trace->kernels.size();
            apiCalls = result.trace->apiCalls.size();
            ranges = result.trace->ranges.size();
            phases = result.trace->loadPhases;
            phases.emplace_back("(loadTrace's own total)", result.trace->loadSeconds);
            last = result.trace;
        }
    } catch (const ls::SqliteError& e) {
        std::fprintf(stderr, "error: %s: %s\n", path.c_str(), e.what());
        return 3;
    } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "error: %s: %s\n", path.c_str(), e.what());
        return 3;
    }
    const double loadPeakMb = static_cast<double>(ls::platform::peakRssBytes()) / (1024.0 * 1024.0);
    const TableFigures table = measureTable(last);
    TimelineDataFigures timelineData = measureTimelineData(last);
#ifdef LAYERSCOPE_BENCH_TIMELINE
    const TimelineFigures timeline = measureTimeline(timelineData.data, argc, argv);
#else
    const TimelineFigures timeline;
#endif
    timelineData.data.reset(); // the reopen below holds one model, as the app does
    const double floorS = median(floorTimes), loadS = median(loadTimes);
    double correlateS = 0;
    for (const auto& [name, s] : phases)
        if (name == "correlate") correlateS = s;
    const double peakMb = static_cast<double>(ls::platform::peakRssBytes()) / (1024.0 * 1024.0);
    const ReopenFigures reopen =
        measureReopen(path, std::move(last), runs, isSqliteFile(path)); // after the peaks
#ifdef LAYERSCOPE_BENCH_TIMELINE
    const GuiOpenFigures gui =
        measureGuiOpen(path, runs, true, argc, argv); // last: the app's own model in memory
#else
    const GuiOpenFigures gui;
#endif
    if (json) {
        std::printf(
            "{\"file\": \"%s\", \"runs\": %d, \"rows\": %llu, \"kernels\": %zu, \"api_calls\": "
            "%zu, "
            "\"nvtx_ranges\": %zu, \"floor_s\": %.4f, \"load_s\": %.4f, \"ratio\": %.3f, "
            "\"correlate_s\": %.4f, "
            "\"correlate_added\": %.3f, \"table_build_s\": %.4f, \"sort_ms_max\": %.1f, "
            "\"sort_ms_max_column\": \"%s\", "
            "\"filter_ms_max\": %.1f, \"filter_ms_max_expr\": \"%s\", \"peak_rss_mb\": %.1f, "
            "\"peak_rss_with_table_mb\": %.1f, "
            "\"timeline_build_s\": %.4f, \"first_frame_ms\": %.2f, \"frame_p95_ms\": %.2f, "
            "\"frame_max_ms\": %.2f, "
            "\"cache_mb\": %.1f, \"cache_write_s\": %.4f, \"reopen_s\": %.4f, \"reopen_ratio\": "
            "%.3f, \"ready_s\": %.4f, "
            "\"ready_ratio_to_load\": %.3f, \"ready_paired_load_s\": %.4f, \"stall_ms_max\": %.1f, "
            "\"gui_reopen_s\": %.4f, \"gui_reopen_stall_ms_max\": %.1f, "
            "\"open_first_frame_s\": %.4f}\n",
            path.c_str(), runs, static_cast<unsigned long long>(floor.rows), kernels, apiCalls,
            ranges, floorS, loadS, loadS / floorS, correlateS, correlateS / (loadS - correlateS),
            table.buildS, table.sortMsMax, table.slowestColumn.c_str(), table.filterMsMax,
            table.slowestFilter.c_str(), loadPeakMb, peakMb, timelineData.buildS,
            timeline.firstFrameMs, timeline.frameP95Ms, timeline.frameMaxMs,
            static_cast<double>(reopen.bytes) / 1e6, reopen.writeS, reopen.reopenS,
            reopen.reopenS / reopen.floorS, gui.readyS, gui.readyRatio, gui.loadS, gui.stallMsMax,
            gui.reopenReadyS, gui.reopenStallMsMax, gui.firstFrameS);
    } else {
        std::printf("file            %s\n", path.c_str());
        std::printf("rows scanned    %llu (kernels %zu, api calls %zu, nvtx ranges %zu)\n",
                    static_cast<unsigned long long>(floor.rows), kernels, apiCalls, ranges);
        std::printf("floor (median)  %.3f s over %d runs\n", floorS, runs);
        std::printf("load (median)   %.3f s over %d runs\n", loadS, runs);
        std::printf("ratio           %.3f (load / floor)\n", loadS / floorS);
        std::printf(
            "correlate       %.3f s in the last load (adds %.1f%% to the load without it)\n",
            correlateS, 100.0 * correlateS / (loadS - correlateS));
        std::printf("kernel table    %.3f s to build; sorting all rows, slowest column %s: %.1f ms "
                    "(median of 3)\n",
                    table.buildS, table.slowestColumn.c_str(), table.sortMsMax);
        std::printf("kernel filter   filtering all rows, slowest `%s`: %.1f ms (median of 3)\n",
                    table.slowestFilter.c_str(), table.filterMsMax);
        std::printf("timeline        %.3f s to build lanes", timelineData.buildS);
        if (timeline.measured)
            std::printf("; 1920x1080 offscreen: first frame %.2f ms, %d frames at 5 zoom levels "
                        "while panning: p95 %.2f ms, max %.2f ms",
                        timeline.firstFrameMs, timeline.frames, timeline.frameP95Ms,
                        timeline.frameMaxMs);
        std::printf("\n");
        std::printf(
            "peak RSS        %.1f MB over the loads; %.1f MB with the kernel table and its sorts\n",
            loadPeakMb, peakMb);
        std::printf("model cache     %.1f MB written in %.3f s; reopen %.3f s (median), %.3f of "
                    "the floor (%.3f s) in the same runs\n",
                    static_cast<double>(reopen.bytes) / 1e6, reopen.writeS, reopen.reopenS,
                    reopen.reopenS / reopen.floorS, reopen.floorS);
        if (gui.measured)
            std::printf("GUI open        File → Open to table, tree and timeline painted: %.3f s "
                        "(%.2f of the load just before "
                        "each open, median of the pairs; the loads' median %.3f s), longest GUI "
                        "stall %.1f ms;\n                reopen "
                        "from the model cache%s: %.3f s, longest stall %.1f ms\n",
                        gui.readyS, gui.readyRatio, gui.loadS, gui.stallMsMax,
                        gui.reopenFromCache ? "" : " (MISSED: read the file)", gui.reopenReadyS,
                        gui.reopenStallMsMax);
        std::printf("last load by phase:\n");
        for (const auto& [name, s] : phases) std::printf("  %-22s %.3f s\n", name.c_str(), s);
    }
    return 0;
}
