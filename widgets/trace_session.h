#pragma once
// What the window shows for one open trace: the trace and the structures derived from it off the
// GUI thread (kernel table keys, layer tree), handed over whole when loading ends.
#include "core/views/fwd_bwd.h"
#include "core/views/kernel_table.h"
#include "core/views/layer_tree.h"
#include "widgets/timeline/timeline_view.h"

#include <memory>

namespace ls::gui {

struct TraceSession {
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const KernelTable> kernels;
    std::shared_ptr<const LayerTree> layers;
    std::shared_ptr<const TimelineData> timeline;
    std::shared_ptr<const FwdBwdPairs> pairs;
    double prepareSeconds = 0; // building the table, the tree and the timeline rows after the load
};

// Runs on the loader thread.
std::shared_ptr<const TraceSession> prepareSession(std::shared_ptr<const Trace> trace);

} // namespace ls::gui
