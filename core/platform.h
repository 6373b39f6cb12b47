#pragma once
// The one place for platform calls.
#include <cstdint>

namespace ls::platform {

// Peak resident set size of this process in bytes (0 when unknown).
uint64_t peakRssBytes();

// Makes large allocations (trace columns) always come from their own mappings, returned to the
// system when freed. glibc otherwise raises its mmap threshold after the first free and keeps
// later columns in per-thread heaps, so each reload of a big trace grew the resident size.
void preferMappedLargeAllocations();

} // namespace ls::platform
