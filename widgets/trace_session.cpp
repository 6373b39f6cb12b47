#include "widgets/trace_session.h"

#include <chrono>

namespace ls::gui {

namespace {

std::shared_ptr<TraceSession> prepare(std::shared_ptr<const Trace> trace, const RankAnalysis* ranks, uint32_t shown) {
    const Session* session = ranks ? ranks->session.get() : nullptr;
    const auto t0 = std::chrono::steady_clock::now();
    auto s = std::make_shared<TraceSession>();
    s->kernels = session ? std::make_shared<const KernelTable>(trace, *session, shown) : std::make_shared<const KernelTable>(trace);
    s->layers = std::make_shared<const LayerTree>(buildLayerTree(*trace));
    const TimelineSession* rows = ranks ? ranks->timelines.get() : nullptr;
    s->timeline = rows ? rows->parts.at(shown) : buildTimelineData(trace); // a session's are built once
    s->pairs = std::make_shared<const FwdBwdPairs>(buildFwdBwdPairs(*trace));
    s->iterations = std::make_shared<const IterationSummary>(iterationSummary(*trace));
    s->roofline = buildRooflineData(trace);
    s->trace = std::move(trace);
    s->prepareSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return s;
}

} // namespace

std::shared_ptr<const TraceSession> prepareSession(std::shared_ptr<const Trace> trace) { return prepare(std::move(trace), nullptr, 0); }

std::shared_ptr<const RankAnalysis> analyseRanks(std::shared_ptr<const Session> session) {
    auto a = std::make_shared<RankAnalysis>();
    a->ranks = rankTimeSummary(*session, &a->busy);
    a->collectives = matchCollectives(*session);
    a->iterations = rankIterations(*session);
    if (session->ranks.size() > 1) a->timelines = buildTimelineSession(*session, a->collectives);
    a->session = std::move(session);
    return a;
}

std::shared_ptr<const TraceSession> prepareSession(std::shared_ptr<const RankAnalysis> ranks, uint32_t shown) {
    auto s = prepare(ranks->session->traces.at(shown).trace, ranks.get(), shown);
    s->ranks = std::move(ranks);
    s->shownTrace = shown;
    return s;
}

} // namespace ls::gui
