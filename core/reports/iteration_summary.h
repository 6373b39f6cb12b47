#pragma once
// Per iteration (core/pytorch/iterations.h): its CPU span, and the GPU work launched inside it
// (by the launch call's start, on any thread of the process: backward runs on the autograd
// thread), measured on the GPU wherever that work runs: with asynchronous launches most of an
// iteration's kernels run after its CPU range has ended. The iteration's GPU span is its work's
// first start to last end; busy is the union of that work (kernels, copies, sets); forward,
// backward, optimizer and communication are the unions of its kernels of each kind; idle is the
// GPU span less busy. Iterations more than 1.5 interquartile ranges from the quartiles of GPU
// duration are outliers; a median row sums up the typical iteration.
#include "core/model/trace.h"

#include <algorithm>
#include <string>
#include <vector>

namespace ls {

struct IterationRow {
    std::string name;
    int number = 0;
    TimeNs start = 0, end = 0;       // the CPU span (the range, or the detected ops)
    TimeNs gpuStart = 0, gpuEnd = 0; // the GPU span of its work; the CPU span when it launched none
    uint64_t kernels = 0;
    TimeNs busy = 0, forward = 0, backward = 0, optimizer = 0, comm = 0, idle = 0;
    bool outlier = false;
    TimeNs duration() const { return gpuEnd - gpuStart; } // measured on the GPU
    TimeNs cpuDuration() const { return end - start; }
    // What a timeline shows of it: the CPU range and the GPU work it launched.
    TimeNs windowStart() const { return std::min(start, gpuStart); }
    TimeNs windowEnd() const { return std::max(end, gpuEnd); }
    double busyPercent() const {
        return duration() > 0 ? 100.0 * static_cast<double>(busy) / static_cast<double>(duration())
                              : 0;
    }
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
