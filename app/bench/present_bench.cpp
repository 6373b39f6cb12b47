#include "app/bench/present_bench.h"

#include "app/bench/bench_median.h"

#include <chrono>
#include <vector>

namespace {

double secondsOf(const auto& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

TimelineDataFigures measureTimelineData(const std::shared_ptr<const ls::Trace>& trace) {
    TimelineDataFigures f;
    f.buildS = secondsOf([&] { f.data = ls::buildTimelineData(trace); });
    return f;
}

RankAnalysisFigures measureRankAnalysis(std::shared_ptr<const ls::Session> session) {
    RankAnalysisFigures f;
    f.analysisS = secondsOf([&] {
        f.analysis = ls::analyseRanks(std::move(session));
    }); // the main timeline's rows are built here
    std::vector<double> allRanks;
    for (int r = 0; r < 3; ++r)
        allRanks.push_back(secondsOf([&] { (void)ls::prepareAllRanks(*f.analysis); }));
    f.allRanksBuildS = benchMedian(std::move(allRanks));
    return f;
}
