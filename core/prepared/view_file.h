#pragma once
// The view cache: what the window shows first for a trace (the layer tree, the timeline's lanes,
// the kernel table's NVTX paths and sorted rows, the iteration summary) is built once after the
// first load and kept in a file beside the trace's model cache file (core/cache/trace_cache.h),
// so that a reopen shows the window without building them again (on a million kernels they take
// about 0.4 s of CPU, the reopen of the model itself 0.1 s).
//
// The file is made for one state of the trace file (its identity, taken before the load) and one
// model: the identity line carries the load's parts and table sizes, so views built over another
// load of the file are not used. It is checked like the model cache (core/cache/archive.h), and
// every id in it is checked against the trace before the views are handed out.
#include "core/cache/trace_cache.h"
#include "core/reports/iteration_summary.h"
#include "core/views/kernel_table.h"
#include "core/views/layer_tree.h"
#include "core/views/timeline_tracks.h"

#include <memory>
#include <string>
#include <vector>

namespace ls {

// Bump when a view's layout or meaning changes (the model cache's own version is in the identity).
// 3: replayed graph kernels take their capture's NVTX paths and layers; a Graph column.
// 4: GPU memory lanes (TimelineEventKind::Memory).
constexpr uint32_t kViewCacheVersion = 4;

// The kernel table's rows in the order of one of its columns (KernelField), as it was shown.
struct SortedKernels {
    int column = -1; // none
    bool descending = false;
    std::vector<KernelId> rows;
};

// A view file's contents, read.
struct CachedViews {
    LayerTree layers;
    TimelineTracks tracks;
    KernelPaths paths;
    IterationSummary iterations;
    SortedKernels sorted;
};

// What to write: each of them built over the trace.
struct ViewsToStore {
    const LayerTree* layers = nullptr;
    const TimelineTracks* tracks = nullptr;
    const KernelPaths* paths = nullptr;
    const IterationSummary* iterations = nullptr;
    const std::vector<KernelId>* sortedRows = nullptr; // may be null: no order
    int sortColumn = -1;
    bool sortDescending = false;
};

// Writes the views of trace, whose file had `identity` (traceFileIdentity) when it was loaded,
// beside its model cache file in dir (a temporary renamed into place), then keeps the folder
// within cap as the model cache does. An error message, empty on success.
std::string storeViewCache(const std::string& dir, const std::string& identity, const Trace& trace,
                           const ViewsToStore& views, uint64_t cap = kDefaultTraceCacheCap);

// The views of trace (loaded whole from a file with `identity`) when dir has them; null and why
// not otherwise.
struct ViewLookup {
    std::unique_ptr<CachedViews> views;
    std::string miss;
};
ViewLookup lookupViewCache(const std::string& dir, const std::string& identity, const Trace& trace);

} // namespace ls
