#pragma once
// Per-event exports of nsys stats 2022.4: gputrace (`gpu_trace`: every kernel, memcpy and memset
// by start) and cudaapitrace (`api_trace`: every CUDA runtime and driver call by start), with
// NVIDIA's columns, units and empty-cell spellings. Rows are streamed to the writer one by one:
// a trace can hold millions of them.
#include "core/model/trace.h"
#include "core/reports/table_writer.h"

#include <optional>
#include <string_view>

namespace ls {

void writeGpuTrace(TableWriter& w, const Trace& t);
void writeApiTrace(TableWriter& w, const Trace& t);

// nsys's names of CUPTI values ("Pageable", "[CUDA memcpy HtoD]"); none for values it does not
// name, which it prints as None.
std::optional<std::string_view> cuptiMemoryKindName(uint8_t kind);
std::optional<std::string_view> cuptiCopyOperationName(uint8_t copyKind);

// gputrace's throughput: bytes × (10^9 integer-divided by the duration), as SQLite computes it
// (so 3072 B in 864 ns is 3,555,554,304 B/s); none for a zero duration.
std::optional<double> gpuTraceThroughput(uint64_t bytes, TimeNs duration);

} // namespace ls
