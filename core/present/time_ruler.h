#pragma once
// Ruler ticks of a time axis, as a pure function: every timeline (the main one, the ranks', the
// comparison's) labels its ruler from the same ticks. A tick falls every 1, 2 or 5 x 10^k ns,
// the smallest such step that keeps ticks at least minSpacingPx apart, counted from an origin
// (the capture or session start) so labels read as time since that start.
#include <vector>

namespace ls {

struct RulerTicks {
    double stepNs = 0;           // the distance between two ticks
    std::vector<double> offsets; // each tick's time since the origin, ascending
};

// Ticks inside [startNs, endNs] (absolute times) at nsPerPixel; none for an empty or inverted
// window or a non-positive scale.
RulerTicks rulerTicks(double startNs, double endNs, double nsPerPixel, double originNs,
                      double minSpacingPx);

// The step alone: the smallest 1, 2 or 5 x 10^k ns (at least 1 ns) not below minStepNs.
double rulerStep(double minStepNs);

} // namespace ls
