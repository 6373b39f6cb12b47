#pragma once
// What the window shows first for a session of summaries (a job file, or more ranks than the
// memory budget holds): every rank's analysis from the summaries, and the first rank whose trace
// is here in full, its model the first one the pool holds. When no trace is here the views are of
// an empty trace and `notice` says which file to copy where.
#include "core/job/job_session.h"
#include "core/present/trace_views.h"

#include <memory>
#include <string>

namespace ls {

struct SummaryViews {
    std::shared_ptr<const TraceViews> views; // null when nothing opened (`error`)
    std::string error;                       // one line
    std::string notice; // the shown rank's model could not be had: why (one line)
};

// `load`: how the shown rank's model is loaded (cache, progress, cancel); the pool keeps its
// models within `budgetBytes`. loadShown false: no model is loaded; the views are of an empty
// trace with modelPending set when the shown rank's file is here (the window loads it next).
SummaryViews prepareSummaryViews(const job::SummaryOpen& open, uint64_t budgetBytes,
                                 const LoadOptions& load, KernelOrder order = {},
                                 bool loadShown = true);

// The trace a session of summaries shows first: the lowest rank's whose file is here, else the
// lowest rank's.
uint32_t firstShownTrace(const RankAnalysis& ranks);

} // namespace ls
