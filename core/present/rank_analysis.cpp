#include "core/present/rank_analysis.h"

#include "core/model/parallel.h"
#include "core/present/step_timing.h"
#include "core/views/layer_tree.h"

#include <algorithm>
#include <string>
#include <thread>

namespace ls {

namespace {
// Each union becomes the first level of its lane (moved, not copied: a job's lanes are tens of
// megabytes).
std::vector<RankAnalysis::LaneLevels> laneLevels(std::vector<RankBusy> busy) {
    std::vector<RankAnalysis::LaneLevels> out;
    out.reserve(busy.size());
    for (RankBusy& b : busy)
        out.push_back({intervalLevels(std::move(b.compute)), intervalLevels(std::move(b.comm))});
    return out;
}
} // namespace

std::vector<std::function<void()>> rankAnalysisParts(RankAnalysis& a) {
    const Session& session = *a.session;
    std::vector<std::function<void()>> parts;
    parts.emplace_back([&a, &session] {
        const StepTiming step("prepare: rank times");
        std::vector<RankBusy> busy;
        a.ranks = rankTimeSummary(session, &busy);
        a.lanes = laneLevels(std::move(busy));
    });
    parts.emplace_back([&a, &session] {
        const StepTiming step("prepare: collectives");
        a.collectives = matchCollectives(session);
    });
    parts.emplace_back([&a, &session] {
        const StepTiming step("prepare: rank iterations");
        a.iterations = rankIterations(session);
    });
    return parts;
}

std::shared_ptr<const RankAnalysis> analyseRanks(std::shared_ptr<const Session> session) {
    auto a = std::make_shared<RankAnalysis>();
    a->session = std::move(session);
    const StepTiming step("prepare: rank analysis");
    auto parts = rankAnalysisParts(*a);
    runTasks(parts, std::max(1u, std::thread::hardware_concurrency()));
    if (a->session->ranks.size() > 1)
        a->timelines =
            buildSessionTimeline(*a->session, a->collectives); // over the matched collectives
    return a;
}

std::shared_ptr<const RankAnalysis> analyseSummaries(std::shared_ptr<job::SummarySession> s,
                                                     std::shared_ptr<ModelPool> models) {
    auto a = std::make_shared<RankAnalysis>();
    const StepTiming step("prepare: rank analysis from summaries");
    a->ranks = job::rankTimeSummary(*s);
    a->iterations = job::rankIterations(*s);
    std::vector<RankBusy> busy = job::takeLanes(*s);
    // One after the other: both fault in tens of megabytes of new memory, and side by side on two
    // threads they took longer than in turn (the lanes' levels 150 ms of CPU beside the matching,
    // 10 ms alone) and held a second allocator arena (25 MB more at the peak).
    {
        const StepTiming match("prepare: collectives from summaries");
        a->collectives = job::takeCollectives(*s);
    }
    {
        const StepTiming levels("prepare: lane levels");
        a->lanes = laneLevels(std::move(busy));
    }
    for (job::TraceSummary& t : s->traces) { // what is left of them is not shown
        t.kernSum = {};
        for (job::RankUnit& u : t.units) u.iterations = {};
    }
    a->session = std::shared_ptr<const Session>(s, &s->session); // lives as long as the summaries
    a->summaries = std::move(s);
    a->models = std::move(models);
    return a;
}

std::shared_ptr<const AllRanksView> prepareAllRanks(const RankAnalysis& ranks) {
    const Session& session = *ranks.session;
    const size_t n = session.traces.size();
    std::vector<std::shared_ptr<const KernelTable>> tables(n);
    std::vector<std::shared_ptr<const LayerTree>> trees(n);
    parallelFor(
        n, std::max(1u, std::thread::hardware_concurrency()), [&](size_t a, size_t b, unsigned) {
            for (size_t t = a; t < b; ++t) {
                tables[t] = std::make_shared<const KernelTable>(session.traces[t].trace, session,
                                                                static_cast<uint32_t>(t));
                trees[t] =
                    std::make_shared<const LayerTree>(buildLayerTree(*session.traces[t].trace));
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

} // namespace ls
