#pragma once
// The app as a person opens a trace: File → Open to a usable window (kernel table, layer tree and
// timeline shown and painted), offscreen at 1920x1080, with the GUI thread's longest stall while it
// loads (a 1 ms timer that cannot fire while the thread is busy). Once cold (model cache off),
// then, after the background cache write, a reopen through the model cache. Each first open follows
// a load as the CLI does it (loadTrace on this thread, no cache), so that the ready time and the
// load it is held against come from the same stretch of the machine's time (whose speed drifts by a
// third within minutes on a shared VM: a ratio of two medians moved with it). Settings and cache
// live in a temporary folder, removed afterwards. Only built with the GUI.
#include <cstdint>
#include <string>

struct GuiOpenFigures {
    bool measured = false;
    // File → Open to the first paint of the loading page's overview with kernels in it: median
    // of the first opens, and how many kernels the last one drew (0: never drawn, as for a
    // format whose importer cannot say, or a load faster than the first batch).
    double firstFrameS = 0;
    uint64_t firstFrameKernels = 0;
    double readyS = 0,
           stallMsMax = 0; // first open, cache off: median of the runs' ready, their longest stall
    double loadS = 0;      // median of the CLI loads alternating with the first opens
    double readyRatio = 0; // median over the first opens of ready / the CLI load just before it
                           // (robust to the VM's drift)
    double reopenReadyS = 0, reopenStallMsMax = 0; // from the model cache
    // The open that writes the model cache (what a user's first open of a file is, the cache
    // being on by default): its longest stall, its background write included.
    double cacheOpenStallMsMax = 0;
    bool reopenFromCache = false;
};

// `runs` first opens (each in a new window, cache off, after a CLI load), then one open that
// writes the cache and a reopen from it; reopen = false skips those two.
GuiOpenFigures measureGuiOpen(const std::string& path, int runs, bool reopen, int argc,
                              char** argv);
