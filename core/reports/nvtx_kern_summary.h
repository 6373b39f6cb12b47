#pragma once
// nsys's nvtxkernsum: the kernels under each NVTX range of their launch call's stack, grouped
// by range text, style, launching thread and kernel name.
#include "core/model/trace.h"
#include "core/reports/summary.h"

#include <functional>
#include <optional>
#include <string_view>

namespace ls {

struct NvtxKernRow {
    std::string_view
        range; // raw text as nsys prints it; empty with noRange for kernels outside any range
    bool noRange = false;
    std::string_view style; // PushPop or StartEnd
    std::optional<uint32_t> pid,
        tid; // of the launching thread; empty for kernels without a launch call
    uint64_t rangeInstances = 0, kernelInstances = 0;
    DurationStats stats; // over (range instance, kernel) pairs, as nsys sums them
    StringId kernel;     // its name (an id: a 1M-kernel trace gives millions of rows)
};

// nsys nvtxkernsum: each kernel counted under every range of its launch call's stack, once per
// range instance (nsys 2022.4 counts it twice where the export has two runtime rows per call).
// Rows are grouped by range text, style, launching thread and kernel name, and handed to `row`
// in nsys's order (kernels outside ranges first, then by range text, pid, tid, total time
// descending) without being collected: a 1M-kernel trace gives millions. A row's text lives
// until `row` returns.
void nvtxKernelSummary(const Trace& t, const std::function<void(const NvtxKernRow&)>& row);
// Range texts per part of the rows made on every core: enough to keep a part's overhead small,
// few enough that a few parts in memory stay small.
inline constexpr size_t kNvtxKernPartTexts = 8192;
// The same, its rows made in parts of about `partTexts` range texts on every core (the default:
// kNvtxKernPartTexts; tests split small traces with small parts).
void nvtxKernelSummary(const Trace& t, const std::function<void(const NvtxKernRow&)>& row,
                       size_t partTexts);

// The rows in parts, for a caller that also wants to use them on every core (a CSV writer
// formatting them). The report calls parts(count, make) once; parts must call make(p, row) for
// each p in [0, count), on any threads, and keep the parts in order: make hands part p's rows to
// `row` in order on the thread that called it, each row's text alive until `row` returns.
using NvtxKernRowSink = std::function<void(const NvtxKernRow&)>;
using NvtxKernParts = std::function<void(
    size_t count, const std::function<void(size_t part, const NvtxKernRowSink& row)>& make)>;
void nvtxKernelSummaryInParts(const Trace& t, size_t partTexts, const NvtxKernParts& parts);

// "PushPop" or "StartEnd", as nsys names a range's style.
std::string_view rangeStyleName(RangeKind k);

} // namespace ls
