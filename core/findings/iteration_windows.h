#pragma once
// The stretches of GPU time findings are counted over: one window per iteration, from the start
// of its GPU work to the start of the next iteration's (the last has none), so that the
// GPU idle between steps (a data loader the host waits for) belongs to a step. The typical
// iteration is the median period between step starts: a step whose GPU span barely changes
// can still take three times as long when the GPU waits between steps.
#include "core/reports/iteration_summary.h"

#include <string>
#include <vector>

namespace ls {

struct Window {
    TimeNs start = 0, end = 0;
};

struct IterationWindows {
    IterationSummary summary;    // the iter_sum report the windows come from
    std::vector<Window> windows; // by start, contiguous: from each iteration's GPU start to the
                                 // next's (one iteration alone: its GPU span)
    int iterations = 0;          // the iterations of the summary (one more than the windows)
    double periodNs = 0;         // median window length
    std::string basis;           // one sentence: how periodNs was measured
    int count() const { return static_cast<int>(windows.size()); }
    // The window holding `at`, or -1.
    int windowOf(TimeNs at) const;
};

// Without iterations, the whole GPU span of the trace is one window.
IterationWindows iterationWindows(const Trace& t);

} // namespace ls
