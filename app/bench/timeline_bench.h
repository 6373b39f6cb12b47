#pragma once
// Renders the timeline offscreen (1920x1080 QImage) on a loaded trace: the first frame after
// the load, then frames at several zoom levels while panning. Only built with the GUI.
#include "core/model/trace.h"

#include <memory>

struct TimelineFigures {
    bool measured = false;
    double buildS = 0;        // lanes, kernel classes, minimap (on the loader thread in the app)
    double firstFrameMs = 0;  // the first paint of the whole capture
    double frameP95Ms = 0, frameMaxMs = 0;
    int frames = 0;
};

TimelineFigures measureTimeline(const std::shared_ptr<const ls::Trace>& trace, int argc, char** argv);
