#pragma once
// The ranks of the traces opened together and what the Ranks tab and the "All ranks" scope show
// of them, computed once off the GUI thread.
#include "core/job/trace_summary.h"
#include "core/load/model_pool.h"
#include "core/model/session.h"
#include "core/present/session_timeline.h"
#include "core/reports/collectives.h"
#include "core/reports/intervals.h"
#include "core/reports/rank_summary.h"
#include "core/views/kernel_table.h"
#include "core/views/session_kernel_table.h"
#include "core/views/session_layer_tree.h"

#include <functional>
#include <memory>
#include <vector>

namespace ls {

struct RankAnalysis {
    std::shared_ptr<const Session> session;
    std::vector<RankTimeRow> ranks;
    // Per rank, what the Ranks tab's timeline draws: its compute and communication unions at the
    // resolutions a frame draws them (intervalLevels; level 0 is the union itself).
    struct LaneLevels {
        IntervalLevels compute, comm;
    };
    std::vector<LaneLevels> lanes;
    CollectiveMatch collectives;
    std::vector<RankIterationRow> iterations;
    // The main timeline's rows of every trace under rank headers; null for a single rank and for
    // a session of summaries.
    std::shared_ptr<const SessionTimeline> timelines;
    // A session of summaries (a job file, or more ranks than the memory budget holds): `session`
    // holds stand-ins for its traces (ranks, files, clock offsets, no events), the rows above come
    // from the summaries, and a trace's model from `models`.
    std::shared_ptr<const job::SummarySession> summaries;
    std::shared_ptr<ModelPool> models;
    bool fromSummaries() const { return models != nullptr; }
};
std::shared_ptr<const RankAnalysis> analyseRanks(std::shared_ptr<const Session> session);
// The analysis's independent parts (rank times, collectives, iterations), to run beside each
// other and beside other work; a's session must be set. They leave `timelines` alone.
std::vector<std::function<void()>> rankAnalysisParts(RankAnalysis& a);

// The same from summaries: every rank's row, lanes, collectives and iterations without a model.
// The summaries' per-rank communication kernels, lanes and iterations are moved into the analysis
// (what the app keeps of a job is the analysis and the stand-in session).
std::shared_ptr<const RankAnalysis> analyseSummaries(std::shared_ptr<job::SummarySession> s,
                                                     std::shared_ptr<ModelPool> models);

// The kernel table and layer tree of every trace of a session at once ("All ranks").
struct AllRanksView {
    std::shared_ptr<const SessionKernelTable> kernels;
    std::shared_ptr<const SessionLayerTree> layers;
    std::vector<std::shared_ptr<const Trace>> traces; // the tree's parts
};
// Builds each trace's table and tree in parallel.
std::shared_ptr<const AllRanksView> prepareAllRanks(const RankAnalysis& ranks);

} // namespace ls
