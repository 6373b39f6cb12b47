#include "app/bench/session_bench.h"

#include "app/bench/present_bench.h"
#ifdef LAYERSCOPE_BENCH_TIMELINE
#include "app/bench/rank_timeline_bench.h"
#endif

#include "app/bench/floors/json_floor.h"
#include "app/bench/floors/sqlite_floor.h"
#include "core/load/session_load.h"
#include "core/model/platform.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

namespace {

double secondsOf(const auto& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool isJson(const std::string& path) {
    return path.ends_with(".json") || path.ends_with(".json.gz");
}

} // namespace

int runSessionBench(const std::vector<std::string>& inputs, int runs, bool json) {
    std::vector<ls::SessionFailure> failed;
    const auto files = ls::expandSessionInputs(inputs, failed);
    if (!failed.empty() || files.empty()) {
        for (const auto& f : failed)
            std::fprintf(stderr, "error: %s: %s\n", f.file.c_str(), f.reason.c_str());
        return 3;
    }
    // The floor: each file scanned alone by one thread, summed. Warm (a first scan of every file
    // fills the page cache), then measured in every run alternating with the session load, and
    // the medians of both compared: on files this small one sum of floors varies by a third
    // from one run to the next.
    const auto floorOf = [](const std::string& f) {
        return isJson(f) ? ls::scanJsonFloor(f) : ls::scanFloor(f);
    };
    for (const auto& f : files) floorOf(f);
    const unsigned cores = std::max(2u, std::thread::hardware_concurrency());
    std::vector<double> loads, floorSums;
    size_t ranks = 0, traces = 0;
    std::shared_ptr<const ls::Session> last;
    for (int r = 0; r < runs; ++r) {
        double floorSum = 0;
        for (const auto& f : files) floorSum += secondsOf([&] { floorOf(f); });
        floorSums.push_back(floorSum);
        last.reset(); // one session in memory at a time
        ls::Session s;
        loads.push_back(secondsOf([&] { s = ls::loadSession(files); }));
        if (!s.failed.empty()) {
            std::fprintf(stderr, "error: %s: %s\n", s.failed.front().file.c_str(),
                         s.failed.front().reason.c_str());
            return 3;
        }
        ranks = s.ranks.size();
        traces = s.traces.size();
        last = std::make_shared<const ls::Session>(std::move(s));
    }
    const double loadPeakMb = static_cast<double>(ls::platform::peakRssBytes()) / (1024.0 * 1024.0);
    const RankAnalysisFigures prepared = measureRankAnalysis(std::move(last));
#ifdef LAYERSCOPE_BENCH_TIMELINE
    const RankTimelineFigures frames = measureRankTimeline(prepared.analysis);
#else
    const struct {
        bool measured = false;
        double frameP95Ms = 0, frameMaxMs = 0;
        int frames = 0, rows = 0;
        double mainFrameP95Ms = 0, mainFrameMaxMs = 0;
        int mainFrames = 0, mainRanks = 0;
    } frames;
#endif
    std::sort(loads.begin(), loads.end());
    std::sort(floorSums.begin(), floorSums.end());
    const double load = loads[loads.size() / 2], floorSum = floorSums[floorSums.size() / 2],
                 budget = floorSum / cores;
    if (json)
        std::printf("{\"files\": %zu, \"ranks\": %zu, \"runs\": %d, \"cores\": %u, "
                    "\"floor_sum_s\": %.4f, \"session_load_s\": %.4f, "
                    "\"ratio_to_floor_sum_per_core\": %.3f, \"peak_rss_mb\": %.1f, "
                    "\"rank_timeline_rows\": %d, "
                    "\"frame_p95_ms\": %.2f, \"frame_max_ms\": %.2f, \"timeline_build_s\": %.4f, "
                    "\"timeline_ranks\": %d, "
                    "\"timeline_frame_p95_ms\": %.2f, \"timeline_frame_max_ms\": %.2f, "
                    "\"all_ranks_build_s\": %.4f}\n",
                    traces, ranks, runs, cores, floorSum, load, load / budget, loadPeakMb,
                    frames.rows, frames.frameP95Ms, frames.frameMaxMs, prepared.analysisS,
                    frames.mainRanks, frames.mainFrameP95Ms, frames.mainFrameMaxMs,
                    prepared.allRanksBuildS);
    else {
        std::printf("files           %zu (%zu ranks)\nfloor sum       %.3f s (single-thread scans, "
                    "warm, median of the runs)\nsession load    %.3f s "
                    "(median of %d)\nratio           %.3f (session load / (floor sum / %u "
                    "cores))\npeak RSS        %.1f MB over the loads\n",
                    traces, ranks, floorSum, load, runs, load / budget, cores, loadPeakMb);
        if (frames.measured)
            std::printf("rank timeline   %d rows, 1920x1080 offscreen, %d frames at 4 zoom levels "
                        "while panning: p95 %.2f ms, max %.2f ms\n",
                        frames.rows, frames.frames, frames.frameP95Ms, frames.frameMaxMs);
        std::printf("rank analysis   rank times, collectives, iterations and every rank's timeline "
                    "rows built in %.3f s\n",
                    prepared.analysisS);
        if (frames.mainFrames > 0)
            std::printf(
                "main timeline   %d ranks expanded, %d frames at 4 zoom levels while panning and\n"
                "                scrolling through the ranks: p95 %.2f ms, max %.2f ms\n",
                frames.mainRanks, frames.mainFrames, frames.mainFrameP95Ms, frames.mainFrameMaxMs);
        std::printf("all ranks       the kernel table and layer tree of every rank built in %.3f s "
                    "(median of 3)\n",
                    prepared.allRanksBuildS);
    }
    return 0;
}
