#pragma once
// Renders the timeline offscreen (1920x1080 QImage) from a trace's timeline rows (built from core
// by present_bench.h): the first frame after the load, then frames at several zoom levels while
// panning. Only built with the GUI.
#include "core/present/timeline_data.h"

#include <memory>

struct TimelineFigures {
    bool measured = false;
    double firstFrameMs = 0; // the first paint of the whole capture
    double frameP95Ms = 0, frameMaxMs = 0;
    int frames = 0;
};

TimelineFigures measureTimeline(const std::shared_ptr<const ls::TimelineData>& data, int argc,
                                char** argv);
