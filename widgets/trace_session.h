#pragma once
// What the window shows for one open trace: the trace and the structures derived from it off the
// GUI thread (kernel table keys, layer tree), handed over whole when loading ends.
#include "core/model/session.h"
#include "core/prepared/view_file.h"
#include "core/reports/collectives.h"
#include "core/reports/iteration_summary.h"
#include "core/reports/rank_summary.h"
#include "core/views/fwd_bwd.h"
#include "core/views/kernel_table.h"
#include "core/views/layer_tree.h"
#include "core/views/session_kernel_table.h"
#include "core/views/session_layer_tree.h"
#include "widgets/panes/fwd_bwd_panel.h"
#include "widgets/panes/summary_charts.h"
#include "widgets/roofline/roofline_data.h"
#include "widgets/timeline/timeline_session.h"
#include "widgets/timeline/timeline_view.h"

#include <memory>
#include <optional>

namespace ls::gui {

// The ranks of the traces opened together and what the Ranks tab shows of them, computed once
// off the GUI thread.
struct RankAnalysis {
    std::shared_ptr<const Session> session;
    std::vector<RankTimeRow> ranks;
    std::vector<RankBusy> busy; // per rank, what the Ranks tab's timeline draws
    CollectiveMatch collectives;
    std::vector<RankIterationRow> iterations;
    // The main timeline's rows of every trace under rank headers; null for a single rank.
    std::shared_ptr<const TimelineSession> timelines;
};
std::shared_ptr<const RankAnalysis> analyseRanks(std::shared_ptr<const Session> session);

// The kernel table's sort column (a KernelField) and order, to sort its rows off the GUI thread.
struct KernelOrder {
    int column = -1; // none
    bool descending = false;
};

struct TraceSession {
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const KernelTable> kernels;
    // Every kernel in kernelOrder, sorted on the loader thread (null without an order).
    std::shared_ptr<const std::vector<KernelId>> sortedKernels;
    KernelOrder kernelOrder;
    std::shared_ptr<const LayerTree> layers;
    std::shared_ptr<const TimelineData> timeline;
    // The other tabs' rows; null until `complete` (prepareVisibleSession leaves them out).
    std::shared_ptr<const FwdBwdPairs> pairs;
    std::shared_ptr<const FwdBwdData> fwdBwd; // the Forward/Backward tab's rows, over pairs
    std::shared_ptr<const IterationSummary> iterations; // what the iteration navigator shows
    std::shared_ptr<const RooflineData> roofline;      // what the Roofline tab plots
    std::shared_ptr<const std::vector<SummaryRow>> kernelSummary; // the Summary tab's table
    std::shared_ptr<const ChartShares> charts;                    // and its charts
    bool complete = false;
    double prepareSeconds = 0; // building the table, the tree and the timeline rows after the load
    // The tree, lanes, paths, iterations and sorted rows all came from the view cache (else the
    // loader keeps them there).
    bool viewsFromCache = false;
    // The files opened together; `trace` is traces[shownTrace] of it (a single file: a session of one).
    std::shared_ptr<const RankAnalysis> ranks;
    uint32_t shownTrace = 0;
};

// The kernel table and layer tree of every trace of a session at once ("All ranks").
struct AllRanksView {
    std::shared_ptr<const SessionKernelTable> kernels;
    std::shared_ptr<const SessionLayerTree> layers;
    std::vector<std::shared_ptr<const Trace>> traces; // the tree's parts
};
// Builds each trace's table and tree in parallel.
std::shared_ptr<const AllRanksView> prepareAllRanks(const RankAnalysis& ranks);

// Runs on the loader thread.
std::shared_ptr<const TraceSession> prepareSession(std::shared_ptr<const Trace> trace, KernelOrder order = {});
// The same for trace `shown` of a session, with the session's rank analysis attached.
std::shared_ptr<const TraceSession> prepareSession(std::shared_ptr<const RankAnalysis> ranks, uint32_t shown, KernelOrder order = {});
// In two parts, so that the window shows the table, tree and timeline while the other tabs'
// rows are built: the first without them, then a copy of it with them (complete).
std::shared_ptr<const TraceSession> prepareVisibleSession(std::shared_ptr<const RankAnalysis> ranks, uint32_t shown, KernelOrder order = {});
// What the loader built of one trace's views while the load was still correlating and pricing it.
struct EarlyViews {
    std::optional<TimelineTracks> tracks; // from the imported columns
    std::optional<KernelPaths> paths;     // from the correlated ones
    std::optional<SortedKernels> sorted;  // every kernel in a time column's order (isKernelTimeField)
};
// The same from the loaded session, analysing its ranks (beside the rest when it has one rank).
// `cached`: the shown trace's views from the view cache, used instead of building them (one rank);
// `early`: its views built while it loaded (one rank, no cached views).
std::shared_ptr<const TraceSession> prepareVisibleSession(std::shared_ptr<const Session> session, uint32_t shown, KernelOrder order = {},
                                                          std::unique_ptr<CachedViews> cached = {}, EarlyViews early = {});
std::shared_ptr<const TraceSession> completeSession(const std::shared_ptr<const TraceSession>& visible);
// What the view cache keeps of a prepared session (pointers into it).
ViewsToStore viewsOf(const TraceSession& s);

} // namespace ls::gui
