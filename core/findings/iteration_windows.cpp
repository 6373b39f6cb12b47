#include "core/findings/iteration_windows.h"

#include <algorithm>
#include <limits>

namespace ls {

int IterationWindows::windowOf(TimeNs at) const {
    auto it = std::upper_bound(windows.begin(), windows.end(), at,
                               [](TimeNs v, const Window& w) { return v < w.start; });
    if (it == windows.begin()) return -1;
    --it;
    return at < it->end ? static_cast<int>(it - windows.begin()) : -1;
}

IterationWindows iterationWindows(const Trace& t) {
    IterationWindows w;
    w.summary = iterationSummary(t);
    const auto& rows = w.summary.rows;
    // Full periods only: the last iteration's period is unknown (nothing starts after it), and
    // counting its GPU span alone would spread the idle between steps over one step too many.
    for (size_t i = 0; i + 1 < rows.size(); ++i)
        if (rows[i + 1].gpuStart > rows[i].gpuStart)
            w.windows.push_back({rows[i].gpuStart, rows[i + 1].gpuStart});
    if (rows.size() == 1 && rows[0].gpuEnd > rows[0].gpuStart)
        w.windows.push_back({rows[0].gpuStart, rows[0].gpuEnd});
    w.iterations = static_cast<int>(rows.size());
    if (w.windows.empty()) { // no iterations: the GPU span of the whole trace
        TimeNs first = std::numeric_limits<TimeNs>::max(), last = 0;
        for (const GpuOpColumns* c : {static_cast<const GpuOpColumns*>(&t.kernels),
                                      static_cast<const GpuOpColumns*>(&t.memcpys),
                                      static_cast<const GpuOpColumns*>(&t.memsets)})
            if (c->size()) {
                first = std::min(first, c->start[0]);
                for (size_t i = 0; i < c->size(); ++i) last = std::max(last, c->end[i]);
            }
        if (last > first) w.windows.push_back({first, last});
        w.periodNs = last > first ? static_cast<double>(last - first) : 0;
        w.iterations = 1;
        w.basis = "no iterations found: the GPU span of the whole trace counts as one";
        return w;
    }
    std::vector<double> periods;
    for (const Window& win : w.windows) periods.push_back(static_cast<double>(win.end - win.start));
    std::sort(periods.begin(), periods.end());
    const size_t n = periods.size();
    w.periodNs = n % 2 ? periods[n / 2] : (periods[n / 2 - 1] + periods[n / 2]) / 2;
    w.basis = rows.size() > 1 ? "median period between the GPU starts of consecutive iterations"
                              : "the GPU span of the only iteration";
    return w;
}

} // namespace ls
