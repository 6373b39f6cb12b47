#pragma once
// Per iteration (core/pytorch/iterations.h): its CPU span, the kernels launched in it, and how
// the GPU spent the span: busy (union of kernels, copies and sets inside the span), forward,
// backward, optimizer and communication time (unions of those kernels inside the span), idle
// (span - busy). Iterations more than 1.5 interquartile ranges from the quartiles of duration
// are outliers; a median row sums up the typical iteration.
#include "core/model/trace.h"

#include <string>
#include <vector>

namespace ls {

struct IterationRow {
    std::string name;
    int number = 0;
    TimeNs start = 0, end = 0;
    uint64_t kernels = 0;
    TimeNs busy = 0, forward = 0, backward = 0, optimizer = 0, comm = 0, idle = 0;
    bool outlier = false;
    TimeNs duration() const { return end - start; }
    double busyPercent() const { return end > start ? 100.0 * static_cast<double>(busy) / static_cast<double>(end - start) : 0; }
};

struct IterationSummary {
    std::vector<IterationRow> rows; // by start
    IterationRow median;            // per column, the median over rows (name "median")
    IterationRule rule = IterationRule::None;
    double confidence = 0;
};

IterationSummary iterationSummary(const Trace& t);

// Indexes of the outliers among values: beyond 1.5 interquartile ranges outside the quartiles
// (linear interpolation between closest ranks). Needs four values or more.
std::vector<size_t> iqrOutliers(const std::vector<double>& values);

} // namespace ls
