#pragma once
// What the window shows for one open trace: the trace and the structures derived from it off the
// GUI thread (kernel table keys, layer tree, timeline rows, the other tabs' rows), handed over
// whole when loading ends.
#include "core/model/session.h"
#include "core/prepared/view_file.h"
#include "core/present/chart_shares.h"
#include "core/present/fwd_bwd_data.h"
#include "core/present/rank_analysis.h"
#include "core/present/roofline_data.h"
#include "core/present/timeline_data.h"
#include "core/reports/iteration_summary.h"
#include "core/reports/summary.h"
#include "core/views/fwd_bwd.h"
#include "core/views/kernel_table.h"
#include "core/views/layer_tree.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ls {

// The kernel table's sort column (a KernelField) and order, to sort its rows off the GUI thread.
struct KernelOrder {
    int column = -1; // none
    bool descending = false;
};

struct TraceViews {
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const KernelTable> kernels;
    // Every kernel in kernelOrder, sorted on the loader thread (null without an order).
    std::shared_ptr<const std::vector<KernelId>> sortedKernels;
    KernelOrder kernelOrder;
    std::shared_ptr<const LayerTree> layers;
    std::shared_ptr<const TimelineData> timeline;
    // The other tabs' rows; null until `complete` (prepareVisibleViews leaves them out).
    std::shared_ptr<const FwdBwdPairs> pairs;
    std::shared_ptr<const FwdBwdData> fwdBwd; // the Forward/Backward tab's rows, over pairs
    std::shared_ptr<const IterationSummary> iterations; // what the iteration navigator shows
    std::shared_ptr<const RooflineData> roofline;       // what the Roofline tab plots
    std::shared_ptr<const std::vector<SummaryRow>> kernelSummary; // the Summary tab's table
    std::shared_ptr<const ChartShares> charts;                    // and its charts
    bool complete = false;
    double prepareSeconds = 0; // building the table, the tree and the timeline rows after the load
    // The tree, lanes, paths, iterations and sorted rows all came from the view cache (else the
    // loader keeps them there).
    bool viewsFromCache = false;
    // The files opened together; `trace` is traces[shownTrace] of it (a single file: a session of
    // one).
    std::shared_ptr<const RankAnalysis> ranks;
    uint32_t shownTrace = 0;
    // A session of summaries whose shown rank's model could not be had (its file is not here):
    // `trace` is empty and this says which file to copy where.
    std::string notice;
    // A session of summaries shown before its first rank's model was loaded (`trace` is empty):
    // the window asks for that rank next, so that every rank is on screen at once.
    bool modelPending = false;
};

// Runs on the loader thread.
std::shared_ptr<const TraceViews> prepareTraceViews(std::shared_ptr<const Trace> trace,
                                                    KernelOrder order = {});
// The same for trace `shown` of a session, with the session's rank analysis attached. `model`:
// that trace's model, for a session of summaries (RankAnalysis::models), whose traces are
// stand-ins.
std::shared_ptr<const TraceViews> prepareTraceViews(std::shared_ptr<const RankAnalysis> ranks,
                                                    uint32_t shown, KernelOrder order = {},
                                                    std::shared_ptr<const Trace> model = {});
// In two parts, so that the window shows the table, tree and timeline while the other tabs'
// rows are built: the first without them, then a copy of it with them (complete).
// `cached`: that trace's views from the view cache, taken instead of building them.
std::shared_ptr<const TraceViews> prepareVisibleViews(std::shared_ptr<const RankAnalysis> ranks,
                                                      uint32_t shown, KernelOrder order = {},
                                                      std::shared_ptr<const Trace> model = {},
                                                      std::unique_ptr<CachedViews> cached = {});
// What the loader built of one trace's views while the load was still correlating and pricing it.
struct EarlyViews {
    std::optional<TimelineTracks> tracks; // from the imported columns
    std::optional<KernelPaths> paths;     // from the correlated ones
    std::optional<SortedKernels>
        sorted; // every kernel in a time column's order (isKernelTimeField)
};
// The same from the loaded session, analysing its ranks (beside the rest when it has one rank).
// `cached`: the shown trace's views from the view cache, used instead of building them (one rank);
// `early`: its views built while it loaded (one rank, no cached views).
std::shared_ptr<const TraceViews> prepareVisibleViews(std::shared_ptr<const Session> session,
                                                      uint32_t shown, KernelOrder order = {},
                                                      std::unique_ptr<CachedViews> cached = {},
                                                      EarlyViews early = {});
std::shared_ptr<const TraceViews> completeViews(const std::shared_ptr<const TraceViews>& visible);
// What the view cache keeps of a prepared session (pointers into it).
ViewsToStore viewsOf(const TraceViews& s);

} // namespace ls
