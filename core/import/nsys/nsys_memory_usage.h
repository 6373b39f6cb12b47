#pragma once
// Nsight Systems' CUDA memory usage events (`--cuda-memory-usage=true`): the table
// CUDA_GPU_MEMORY_USAGE_EVENTS, one row per cudaMalloc/cudaFree (and the static device memory of
// loaded modules), with the runtime call's correlation id. Allocations made before the capture
// are recorded at time 0.
#include "core/import/sqlite/sqlite_source.h"
#include "core/model/load_report.h"

#include <cstdint>
#include <vector>

namespace ls {

struct NsysMemoryUsageRow {
    int64_t start = 0, globalPid = 0;
    uint32_t device = 0;
    uint64_t address = 0;
    int64_t bytes = 0; // signed: a deallocation's bytes are negative
    uint32_t correlation = 0;
};

// The rows on GPU memory (device, array, managed and their static kinds), by start; the rows on
// host memory (pageable, pinned) and of an unknown kind are counted in `report`.
std::vector<NsysMemoryUsageRow> readMemoryUsage(const SqliteSource& db, LoadReport& report);

} // namespace ls
