#pragma once
// Renders the Ranks tab's timeline and the main Timeline tab offscreen (1920x1080) with every
// rank of a session shown (the main timeline with every rank expanded): frames at several zoom
// levels while panning and, on the main timeline, scrolling through the ranks' rows. Only
// built with the GUI.
#include "core/model/session.h"

#include <memory>

struct RankTimelineFigures {
    bool measured = false;
    double frameP95Ms = 0, frameMaxMs = 0;
    int frames = 0, rows = 0;
    // The main timeline: building every trace's rows, then frames with all ranks expanded.
    double mainBuildS = 0, mainFrameP95Ms = 0, mainFrameMaxMs = 0;
    int mainFrames = 0, mainRanks = 0;
    double allRanksBuildS = 0; // the kernel table and layer tree of every rank ("All ranks"), median of 3
};

RankTimelineFigures measureRankTimeline(std::shared_ptr<const ls::Session> session);
