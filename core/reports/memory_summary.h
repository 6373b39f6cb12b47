#pragma once
// GPU memory operations summarized as nsys stats (2022.4) does: gpumemtimesum (by time),
// gpumemsizesum (by size, in decimal MB) and gpusum (kernels by name and memory operations in one
// table). An operation is "[CUDA memcpy HtoD]" (and DtoH, DtoD, HtoH, PtoP) or "[CUDA memset]".
#include "core/reports/summary.h"

#include <string>
#include <vector>

namespace ls {

// Per operation, durations; sorted by total time, descending.
std::vector<SummaryRow> memoryTimeSummary(const Trace& t);

struct MemorySizeRow {
    std::string operation;
    DurationStats bytes; // the same statistics, over bytes moved or set
};
// Per operation, bytes; sorted by total bytes, descending.
std::vector<MemorySizeRow> memorySizeSummary(const Trace& t);

struct GpuSumRow {
    SummaryRow row;      // percent of all kernel and memory time
    bool kernel = false; // CUDA_KERNEL, else MEMORY_OPER
};
// Kernels by (demangled) name and memory operations, by total time descending.
std::vector<GpuSumRow> gpuSummary(const Trace& t);

// "1.573" for 1,572,864 bytes: decimal megabytes with three decimals, halves away from zero.
std::string formatMegabytes(double bytes);

} // namespace ls
