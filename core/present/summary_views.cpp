#include "core/present/summary_views.h"

namespace ls {

uint32_t firstShownTrace(const RankAnalysis& ranks) {
    const Session& s = *ranks.session;
    for (const SessionRank& r : s.ranks)
        if (ranks.models && !ranks.models->fileOf(r.trace).empty()) return r.trace;
    return s.ranks.empty() ? 0 : s.ranks.front().trace;
}

SummaryViews prepareSummaryViews(const job::SummaryOpen& open, uint64_t budgetBytes,
                                 const LoadOptions& load, KernelOrder order, bool loadShown) {
    SummaryViews out;
    if (!open.error.empty() || !open.summaries || open.summaries->traces.empty()) {
        out.error = open.error.empty() ? "no trace could be summarised" : open.error;
        return out;
    }
    auto pool = std::make_shared<ModelPool>(open.files, open.missing, budgetBytes);
    const auto analysis = analyseSummaries(open.summaries, pool);
    const uint32_t shown = firstShownTrace(*analysis);
    ModelPool::Model model;
    bool pending = false;
    if (loadShown) {
        model = pool->acquire(shown, load);
        if (load.cancelled()) return out;
    } else if (!pool->fileOf(shown).empty()) {
        pending = true;
    } else {
        model.error = pool->missingOf(shown);
    }
    if (!model.trace) {
        out.notice = model.error;
        auto empty = std::make_shared<Trace>();
        empty->path = open.summaries->traces.at(shown).file;
        model.trace = std::move(empty);
    }
    auto views = std::make_shared<TraceViews>(
        *prepareVisibleViews(analysis, shown, order, model.trace)); // a copy of pointers
    views->notice = out.notice;
    views->modelPending = pending;
    out.views = std::move(views);
    return out;
}

} // namespace ls
