#include "core/present/trace_views.h"

#include "core/model/parallel.h"
#include "core/present/step_timing.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>

namespace ls {

namespace {

// What the window shows first (table, tree, timeline), then what the other tabs show: each a set
// of independent pieces run on every core, longest first (one after another, all of them took
// ~4 s for a million kernels).
// `alongside`: more work for the same cores (the rank analysis of a single rank).
// `cached`: the trace's views from the view cache (core/prepared/view_file.h), taken instead of
// building them.
std::shared_ptr<TraceViews>
prepareVisible(std::shared_ptr<const Trace> trace, const RankAnalysis* ranks, uint32_t shown,
               KernelOrder order, std::vector<std::function<void()>> alongside = {},
               std::unique_ptr<CachedViews> cached = {}, EarlyViews early = {}) {
    const Session* session = ranks ? ranks->session.get() : nullptr;
    const auto t0 = std::chrono::steady_clock::now();
    auto s = std::make_shared<TraceViews>();
    const SessionTimeline* rows = ranks ? ranks->timelines.get() : nullptr;
    std::vector<std::function<void()>> tasks;
    s->viewsFromCache = cached != nullptr;
    tasks.emplace_back([&] {
        const StepTiming step("prepare: kernel table");
        std::shared_ptr<KernelTable> table;
        std::optional<KernelPaths> paths =
            cached ? std::make_optional(std::move(cached->paths)) : std::move(early.paths);
        if (paths && session)
            table = std::make_shared<KernelTable>(
                trace, *session, shown, std::make_shared<const KernelPaths>(std::move(*paths)));
        else
            table = session ? std::make_shared<KernelTable>(trace, *session, shown)
                            : std::make_shared<KernelTable>(trace);
        std::optional<SortedKernels> given =
            cached ? std::make_optional(std::move(cached->sorted)) : std::move(early.sorted);
        if (given && order.column >= 0 && given->column == order.column &&
            given->descending == order.descending) {
            s->sortedKernels =
                std::make_shared<const std::vector<KernelId>>(std::move(given->rows));
            s->kernelOrder = order;
        } else if (order.column >= 0 && static_cast<size_t>(order.column) < kKernelFieldCount) {
            s->viewsFromCache = false; // another order than the cache's: kept again with this one
            std::vector<KernelId> sorted(trace->kernels.size());
            for (uint32_t k = 0; k < sorted.size(); ++k) sorted[k] = KernelId(k);
            table->sort(sorted, static_cast<KernelField>(order.column), order.descending);
            s->sortedKernels = std::make_shared<const std::vector<KernelId>>(std::move(sorted));
            s->kernelOrder = order;
        }
        s->kernels = std::move(table);
    });
    tasks.emplace_back([&] {
        const StepTiming step("prepare: timeline");
        if (rows)
            s->timeline = rows->traces.at(shown); // a session's are built once
        else if (cached)
            s->timeline = buildTimelineData(trace, std::move(cached->tracks));
        else
            s->timeline = early.tracks ? buildTimelineData(trace, std::move(*early.tracks))
                                       : buildTimelineData(trace);
    });
    tasks.emplace_back([&] {
        const StepTiming step("prepare: layer tree");
        s->layers = std::make_shared<const LayerTree>(cached ? std::move(cached->layers)
                                                             : buildLayerTree(*trace));
    });
    tasks.emplace_back([&] {
        const StepTiming step("prepare: iterations");
        s->iterations = std::make_shared<const IterationSummary>(
            cached ? std::move(cached->iterations) : iterationSummary(*trace));
    });
    for (auto& task : alongside) tasks.push_back(std::move(task));
    runTasks(tasks, std::max(1u, std::thread::hardware_concurrency()));
    s->trace = std::move(trace);
    s->prepareSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return s;
}

void preparePanes(TraceViews& s) {
    const Trace& trace = *s.trace;
    std::vector<std::function<void()>> tasks;
    tasks.emplace_back([&] {
        const StepTiming step("prepare: forward/backward");
        s.pairs = std::make_shared<const FwdBwdPairs>(buildFwdBwdPairs(trace));
        s.fwdBwd = buildFwdBwdData(trace, s.pairs);
    });
    auto roofline = std::make_shared<RooflineData>();
    for (size_t l = 0; l < kRooflineLevels; ++l)
        tasks.emplace_back([&, l] {
            const StepTiming step("prepare: a roofline level");
            roofline->levels[l] = rooflineRows(trace, static_cast<RooflineLevel>(l));
        });
    tasks.emplace_back([&] {
        const StepTiming step("prepare: summary and charts");
        s.kernelSummary = std::make_shared<const std::vector<SummaryRow>>(
            kernelSummary(trace, KernelGrouping::Name, KernelNaming::Demangled));
        s.charts = std::make_shared<const ChartShares>(chartShares(trace, *s.kernelSummary));
    });
    // One core fewer than the machine has: the window is showing the table meanwhile.
    runTasks(tasks, std::max(2u, std::thread::hardware_concurrency()) - 1);
    roofline->trace = s.trace;
    s.roofline = std::move(roofline);
    s.complete = true;
}

std::shared_ptr<TraceViews> prepare(std::shared_ptr<const Trace> trace, const RankAnalysis* ranks,
                                    uint32_t shown, KernelOrder order) {
    auto s = prepareVisible(std::move(trace), ranks, shown, order);
    preparePanes(*s);
    return s;
}

} // namespace

std::shared_ptr<const TraceViews> prepareTraceViews(std::shared_ptr<const Trace> trace,
                                                    KernelOrder order) {
    return prepare(std::move(trace), nullptr, 0, order);
}

std::shared_ptr<const TraceViews> prepareTraceViews(std::shared_ptr<const RankAnalysis> ranks,
                                                    uint32_t shown, KernelOrder order,
                                                    std::shared_ptr<const Trace> model) {
    if (!model) model = ranks->session->traces.at(shown).trace;
    auto s = prepare(std::move(model), ranks.get(), shown, order);
    s->ranks = std::move(ranks);
    s->shownTrace = shown;
    return s;
}

std::shared_ptr<const TraceViews> prepareVisibleViews(std::shared_ptr<const RankAnalysis> ranks,
                                                      uint32_t shown, KernelOrder order,
                                                      std::shared_ptr<const Trace> model,
                                                      std::unique_ptr<CachedViews> cached) {
    if (!model) model = ranks->session->traces.at(shown).trace;
    auto s = prepareVisible(std::move(model), ranks.get(), shown, order, {}, std::move(cached));
    s->ranks = std::move(ranks);
    s->shownTrace = shown;
    return s;
}

std::shared_ptr<const TraceViews> prepareVisibleViews(std::shared_ptr<const Session> session,
                                                      uint32_t shown, KernelOrder order,
                                                      std::unique_ptr<CachedViews> cached,
                                                      EarlyViews early) {
    if (session->ranks.size() > 1)
        return prepareVisibleViews(analyseRanks(std::move(session)), shown, order);
    // One rank: the table, tree and timeline need nothing of its analysis, which is made beside
    // them.
    auto analysis = std::make_shared<RankAnalysis>();
    analysis->session = std::move(session);
    auto s = prepareVisible(analysis->session->traces.at(shown).trace, analysis.get(), shown, order,
                            rankAnalysisParts(*analysis), std::move(cached), std::move(early));
    s->ranks = std::move(analysis);
    s->shownTrace = shown;
    return s;
}

std::shared_ptr<const TraceViews> completeViews(const std::shared_ptr<const TraceViews>& visible) {
    auto s = std::make_shared<TraceViews>(*visible);
    preparePanes(*s);
    return s;
}

ViewsToStore viewsOf(const TraceViews& s) {
    ViewsToStore v;
    v.layers = s.layers.get();
    v.tracks = s.timeline ? &s.timeline->tracks : nullptr;
    v.paths = s.kernels ? s.kernels->paths().get() : nullptr;
    v.iterations = s.iterations.get();
    v.sortedRows = s.sortedKernels.get();
    v.sortColumn = s.kernelOrder.column;
    v.sortDescending = s.kernelOrder.descending;
    return v;
}

} // namespace ls
