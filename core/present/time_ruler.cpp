#include "core/present/time_ruler.h"

#include <algorithm>
#include <cmath>

namespace ls {

double rulerStep(double minStepNs) {
    const double least = std::max(1.0, minStepNs);
    const double decade = std::pow(10.0, std::floor(std::log10(least)));
    for (double m : {1.0, 2.0, 5.0})
        if (decade * m >= least) return decade * m;
    return decade * 10;
}

RulerTicks rulerTicks(double startNs, double endNs, double nsPerPixel, double originNs,
                      double minSpacingPx) {
    RulerTicks r;
    if (!(endNs > startNs) || !(nsPerPixel > 0) || !std::isfinite(startNs) || !std::isfinite(endNs))
        return r;
    r.stepNs = rulerStep(nsPerPixel * minSpacingPx);
    // Counted in whole steps from the first one at or after the window's start: no error piles up
    // over many additions, and a tick exactly at an edge is kept.
    const double first = std::ceil((startNs - originNs) / r.stepNs);
    const double last = std::floor((endNs - originNs) / r.stepNs);
    for (double k = first; k <= last; ++k) r.offsets.push_back(k * r.stepNs);
    return r;
}

} // namespace ls
