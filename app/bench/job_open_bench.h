#pragma once
// The app on a job file, as a person uses it: File → Open of a .lsjob to a usable window (Ranks tab
// filled and the first rank's detail shown, painted), its peak RSS, the Ranks tab's timeline frames
// with every rank, then clicks through ranks' details (each loaded by the session's ModelPool,
// then visited again): each click's time and the resident size after it, against the memory
// budget. Offscreen at 1920x1080, settings and model cache in a temporary folder. Only built with
// the GUI.
#include <cstdint>
#include <string>
#include <vector>

struct JobOpenFigures {
    bool measured = false;
    int ranks = 0;
    double readyS = 0, stallMsMax = 0; // open to the painted window
    double openPeakRssMb = 0;          // peak RSS once open (the process's whole life so far)
    double frameP95Ms = 0, frameMaxMs = 0;
    int frames = 0;
    uint64_t budgetBytes = 0;
    std::vector<double> firstClickS, againClickS; // each rank's first visit, then a second
    double clickRssMaxMb = 0;                     // the largest RSS after any click
    double peakRssMb = 0;                         // the whole run
};

JobOpenFigures measureJobOpen(const std::string& jobPath, int clicks, uint64_t budgetBytes,
                              int argc, char** argv);
