#pragma once
// Renders the Ranks tab's timeline and the main Timeline tab offscreen (1920x1080) with every
// rank of a session shown (the main timeline with every rank expanded): frames at several zoom
// levels while panning and, on the main timeline, scrolling through the ranks' rows. Only
// built with the GUI.
#include "core/present/rank_analysis.h"

#include <memory>

struct RankTimelineFigures {
    bool measured = false;
    double frameP95Ms = 0, frameMaxMs = 0;
    int frames = 0, rows = 0;
    // The main timeline: frames with all ranks expanded.
    double mainFrameP95Ms = 0, mainFrameMaxMs = 0;
    int mainFrames = 0, mainRanks = 0;
};

namespace ls::gui {
class RankTimeline;
}
// The Ranks tab's frames alone, on a view already given its analysis and size (in a running
// QApplication).
RankTimelineFigures measureRankTimelineFrames(ls::gui::RankTimeline& view);

// analysis: measureRankAnalysis's (present_bench.h), with the main timeline's rows.
RankTimelineFigures measureRankTimeline(std::shared_ptr<const ls::RankAnalysis> analysis);
