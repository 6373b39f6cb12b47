#pragma once
// Renders the Ranks tab's timeline offscreen (1920x1080) with every rank of a session shown:
// frames at several zoom levels while panning. Only built with the GUI.
#include "core/model/session.h"

#include <memory>

struct RankTimelineFigures {
    bool measured = false;
    double frameP95Ms = 0, frameMaxMs = 0;
    int frames = 0, rows = 0;
};

RankTimelineFigures measureRankTimeline(std::shared_ptr<const ls::Session> session);
