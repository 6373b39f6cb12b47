#pragma once
// The app as a person opens a trace: File → Open to a usable window (kernel table, layer tree and
// timeline shown and painted), offscreen at 1920x1080, with the GUI thread's longest stall while
// it loads (a 1 ms timer that cannot fire while the thread is busy). Once cold (model cache off),
// then, after the background cache write, a reopen through the model cache. Settings and cache
// live in a temporary folder, removed afterwards. Only built with the GUI.
#include <string>

struct GuiOpenFigures {
    bool measured = false;
    double readyS = 0, stallMsMax = 0;             // first open, cache off
    double reopenReadyS = 0, reopenStallMsMax = 0; // from the model cache
    bool reopenFromCache = false;
};

GuiOpenFigures measureGuiOpen(const std::string& path, int argc, char** argv);
