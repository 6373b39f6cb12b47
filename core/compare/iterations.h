#pragma once
// The iterations of a trace, from its user ranges named like iterations ("iteration 3",
// "step 12", "ProfilerStep#4"): one span per iteration number of the most covering naming (a
// PyTorch profiler trace with both ProfilerStep#N and the user's "iteration N" takes one of them,
// not both), optionally only the ranges of one process.
#include "core/model/trace.h"

#include <optional>
#include <string>
#include <vector>

namespace ls {

struct IterationSpan {
    int number = 0;
    std::string name; // the first range's name, "iteration 3"
    TimeNs start = 0, end = 0;
};

// Sorted by start. Empty when the trace names no iterations.
std::vector<IterationSpan> findIterations(const Trace& t, std::optional<ProcessId> process = std::nullopt);

// The CPU time that places a kernel in an iteration: its launch call's start (a backward kernel
// launched by the autograd thread lies inside the main thread's iteration range), else its start.
TimeNs kernelIterationTime(const Trace& t, KernelId k);

// Index into spans of the iteration holding time `at`; -1 when none.
int iterationAt(const std::vector<IterationSpan>& spans, TimeNs at);

} // namespace ls
