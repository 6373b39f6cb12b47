#pragma once
// `summary --report memory` and `memory_live`: GPU memory as Paddle's memory summary shows it
// (each device's peak allocated and reserved memory, then allocations and releases per op or
// layer, with the highest total each reached), and what was held at each device's peak.
#include "core/reports/gpu_memory.h"
#include "core/reports/table_writer.h"

#include <string>

namespace ls {

// CSV/TSV: name, memory_type, allocation_count, free_count, allocation_bytes, free_bytes,
// increased_bytes, peak_total_bytes (the highest total of the row's pool its events reached).
void writeMemoryRows(TableWriter& w, const Trace& t, MemoryGrouping by);
// Text: the device peaks, then the same rows in Paddle's layout (sizes in MB), then the ten
// largest groups of what was held at each device's peak.
std::string formatMemoryText(const Trace& t, MemoryGrouping by);
// CSV/TSV, one row per allocation held at its device's peak: device, peak_time_ns,
// allocation_time_ns (empty: before the recording), bytes, op, layer, address.
void writeLiveAtPeakRows(TableWriter& w, const Trace& t);

} // namespace ls
