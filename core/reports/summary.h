#pragma once
// Per-name duration statistics with the columns and numbers of `nsys stats`:
// cuda_gpu_kern_sum (by name), the 2022.4 gpukernsum (by name, grid and block) and cuda_api_sum.
#include "core/model/trace.h"

#include <string>
#include <vector>

namespace ls {

struct DurationStats {
    uint64_t total = 0, count = 0;
    double avg = 0, median = 0, stddev = 0; // stddev: sample (n - 1), 0 for one instance
    int64_t min = 0, max = 0;
};

// durations is reordered (partially sorted) by the call.
DurationStats durationStats(std::vector<int64_t>& durations);

struct SummaryRow {
    std::string name;
    std::string grid, block; // "%4d %4d %4d" as nsys prints them; empty when not grouped by them
    double percent = 0;
    DurationStats stats;
};

enum class KernelGrouping { Name, NameGridBlock };
enum class KernelNaming { Demangled, Short };

// Sorted by total time, descending; ties by name.
std::vector<SummaryRow> kernelSummary(const Trace& t, KernelGrouping grouping, KernelNaming naming);
std::vector<SummaryRow> apiSummary(const Trace& t);
// OS runtime calls by name, as nsys stats 2022.4 osrtsum; empty without OS runtime data.
std::vector<SummaryRow> osRuntimeSummary(const Trace& t);

// "cudaMemcpy_v3020" -> "cudaMemcpy", as nsys 2022.4 prints API names.
std::string_view stripApiVersion(std::string_view name);
std::string formatDim3(const Dim3& d);
std::string formatOneDecimal(double v);

} // namespace ls
