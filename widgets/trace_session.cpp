#include "widgets/trace_session.h"

#include <chrono>

namespace ls::gui {

std::shared_ptr<const TraceSession> prepareSession(std::shared_ptr<const Trace> trace) {
    const auto t0 = std::chrono::steady_clock::now();
    auto s = std::make_shared<TraceSession>();
    s->kernels = std::make_shared<const KernelTable>(trace);
    s->layers = std::make_shared<const LayerTree>(buildLayerTree(*trace));
    s->timeline = buildTimelineData(trace);
    s->pairs = std::make_shared<const FwdBwdPairs>(buildFwdBwdPairs(*trace));
    s->trace = std::move(trace);
    s->prepareSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return s;
}

} // namespace ls::gui
