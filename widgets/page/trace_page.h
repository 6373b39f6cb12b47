#pragma once
// A tab of the window that shows the open trace once every tab's rows are built (the Summary,
// Forward/Backward and Roofline tabs). The session controller hands each page the shown trace's
// views; a page never knows another page exists (hotspot's ResultsPage sub-pages are the model).
#include "core/model/ids.h"
#include "core/present/trace_views.h"

#include <functional>
#include <memory>
#include <vector>

class QAbstractItemView;

namespace ls::gui {

class TracePage {
  public:
    virtual ~TracePage() = default;
    // The steps that show `views` (complete), in order. The controller runs each in a turn of
    // the event loop of its own, so that no stall adds them all up on a million kernels.
    virtual std::vector<std::function<void()>>
    showSteps(std::shared_ptr<const TraceViews> views) = 0;
    // Brings what the page shows of kernel `k` of the shown trace forward (its op, its point);
    // false when the page has nothing of it.
    virtual bool showKernel(KernelId k) {
        (void)k;
        return false;
    }
    // The tables and trees of the page that File → Export writes when one has the focus.
    virtual std::vector<QAbstractItemView*> exportViews() const { return {}; }
};

} // namespace ls::gui
