#pragma once
// What the loader thread prepares for the window (core/present), timed from core alone so that a
// build without the GUI measures it too: one trace's timeline rows; a session's rank analysis
// (with every trace's timeline rows) and its "All ranks" kernel table and layer tree. The GUI
// benches then draw what was built here.
#include "core/present/rank_analysis.h"
#include "core/present/timeline_data.h"

#include <memory>

struct TimelineDataFigures {
    double buildS = 0; // lanes, kernel classes, labels, minimap (on the loader thread in the app)
    std::shared_ptr<const ls::TimelineData> data;
};
TimelineDataFigures measureTimelineData(const std::shared_ptr<const ls::Trace>& trace);

struct RankAnalysisFigures {
    double analysisS =
        0; // analyseRanks: rank times, collectives, iterations, every trace's timeline rows
    double allRanksBuildS = 0; // prepareAllRanks, median of 3
    std::shared_ptr<const ls::RankAnalysis> analysis;
};
RankAnalysisFigures measureRankAnalysis(std::shared_ptr<const ls::Session> session);
