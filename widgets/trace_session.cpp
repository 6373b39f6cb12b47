#include "widgets/trace_session.h"

#include "core/model/parallel.h"

#include <chrono>
#include <thread>

namespace ls::gui {

namespace {

std::shared_ptr<TraceSession> prepare(std::shared_ptr<const Trace> trace, const RankAnalysis* ranks, uint32_t shown, KernelOrder order) {
    const Session* session = ranks ? ranks->session.get() : nullptr;
    const auto t0 = std::chrono::steady_clock::now();
    auto s = std::make_shared<TraceSession>();
    s->kernels = session ? std::make_shared<const KernelTable>(trace, *session, shown) : std::make_shared<const KernelTable>(trace);
    if (order.column >= 0 && static_cast<size_t>(order.column) < kKernelFieldCount) {
        std::vector<KernelId> rows(trace->kernels.size());
        for (uint32_t k = 0; k < rows.size(); ++k) rows[k] = KernelId(k);
        s->kernels->sort(rows, static_cast<KernelField>(order.column), order.descending);
        s->sortedKernels = std::make_shared<const std::vector<KernelId>>(std::move(rows));
        s->kernelOrder = order;
    }
    s->layers = std::make_shared<const LayerTree>(buildLayerTree(*trace));
    const TimelineSession* rows = ranks ? ranks->timelines.get() : nullptr;
    s->timeline = rows ? rows->parts.at(shown) : buildTimelineData(trace); // a session's are built once
    s->pairs = std::make_shared<const FwdBwdPairs>(buildFwdBwdPairs(*trace));
    s->fwdBwd = buildFwdBwdData(*trace, s->pairs);
    s->iterations = std::make_shared<const IterationSummary>(iterationSummary(*trace));
    s->roofline = buildRooflineData(trace);
    s->kernelSummary = std::make_shared<const std::vector<SummaryRow>>(kernelSummary(*trace, KernelGrouping::Name, KernelNaming::Demangled));
    s->charts = std::make_shared<const ChartShares>(chartShares(*trace, *s->kernelSummary));
    s->trace = std::move(trace);
    s->prepareSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return s;
}

} // namespace

std::shared_ptr<const TraceSession> prepareSession(std::shared_ptr<const Trace> trace, KernelOrder order) {
    return prepare(std::move(trace), nullptr, 0, order);
}

std::shared_ptr<const RankAnalysis> analyseRanks(std::shared_ptr<const Session> session) {
    auto a = std::make_shared<RankAnalysis>();
    a->ranks = rankTimeSummary(*session, &a->busy);
    a->collectives = matchCollectives(*session);
    a->iterations = rankIterations(*session);
    if (session->ranks.size() > 1) a->timelines = buildTimelineSession(*session, a->collectives);
    a->session = std::move(session);
    return a;
}

std::shared_ptr<const TraceSession> prepareSession(std::shared_ptr<const RankAnalysis> ranks, uint32_t shown, KernelOrder order) {
    auto s = prepare(ranks->session->traces.at(shown).trace, ranks.get(), shown, order);
    s->ranks = std::move(ranks);
    s->shownTrace = shown;
    return s;
}

std::shared_ptr<const AllRanksView> prepareAllRanks(const RankAnalysis& ranks) {
    const Session& session = *ranks.session;
    const size_t n = session.traces.size();
    std::vector<std::shared_ptr<const KernelTable>> tables(n);
    std::vector<std::shared_ptr<const LayerTree>> trees(n);
    parallelFor(n, std::max(1u, std::thread::hardware_concurrency()), [&](size_t a, size_t b, unsigned) {
        for (size_t t = a; t < b; ++t) {
            tables[t] = std::make_shared<const KernelTable>(session.traces[t].trace, session, static_cast<uint32_t>(t));
            trees[t] = std::make_shared<const LayerTree>(buildLayerTree(*session.traces[t].trace));
        }
    });
    auto view = std::make_shared<AllRanksView>();
    std::vector<std::string> files;
    std::vector<const LayerTree*> treeParts;
    for (size_t t = 0; t < n; ++t) {
        files.push_back(session.traces[t].file);
        treeParts.push_back(trees[t].get());
        view->traces.push_back(session.traces[t].trace);
    }
    view->kernels = std::make_shared<const SessionKernelTable>(std::move(tables), std::move(files));
    std::vector<uint32_t> base;
    for (uint32_t t = 0; t < n; ++t) base.push_back(view->kernels->rowOf(t, KernelId(0)).value);
    view->layers = std::make_shared<const SessionLayerTree>(combineLayerTrees(treeParts, base));
    return view;
}

} // namespace ls::gui
