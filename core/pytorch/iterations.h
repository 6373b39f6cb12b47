#pragma once
// The iterations of a trace (training steps, or repeated inference passes). From ranges first:
// user ranges named like iterations ("iteration 3", "step 12", "ProfilerStep#4"), one span per
// number of the most covering naming (a PyTorch profiler trace with both ProfilerStep#N and the
// user's "iteration N" takes one of them). Without such ranges, detected from the trace's own
// period: each run of optimizer ops ends a training step; else the repeating sequence of
// top-level forward ops (inference). The rule and a confidence say how they were found.
#include "core/model/trace.h"

#include <optional>
#include <string>
#include <vector>

namespace ls {

struct IterationSet {
    std::vector<IterationSpan> spans; // by start, not overlapping
    IterationRule rule = IterationRule::None;
    double confidence = 0;   // 1 for ranges; for detection, how alike the iterations are (0..1)
    std::string explanation; // one sentence for the load report
};

// Ranges only. Empty when the trace names no iterations.
std::vector<IterationSpan> findIterations(const Trace& t,
                                          std::optional<ProcessId> process = std::nullopt);
// Ranges, else detection (optimizer steps, else a repeating op sequence).
IterationSet iterationsOf(const Trace& t, std::optional<ProcessId> process = std::nullopt);

// Fills trace.iterations (and its rule and confidence) for the whole trace; detected iterations
// get a load-report entry saying how they were found.
void findTraceIterations(Trace& trace);

// The CPU time that places a kernel in an iteration: its launch call's start (a backward kernel
// launched by the autograd thread lies inside the main thread's iteration range), else its start.
TimeNs kernelIterationTime(const Trace& t, KernelId k);
// The same for any GPU operation (kernel, copy, set): its launch call's start, else its start.
TimeNs gpuOpIterationTime(const Trace& t, const GpuOpColumns& c, size_t i);

// Index into spans of the iteration holding time `at`; -1 when none.
int iterationAt(const std::vector<IterationSpan>& spans, TimeNs at);

} // namespace ls
