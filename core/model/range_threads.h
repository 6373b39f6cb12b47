#pragma once
// The threads that have NVTX ranges, the busiest first: per-thread passes over the ranges
// (correlation, the NVTX projection, the layer tree's ancestors) run one task per thread on
// every core, and the longest must start first. A range's parent is a range of its own thread,
// so such passes write disjoint entries.
#include "core/model/trace.h"

#include <cstdint>
#include <vector>

namespace ls {

// Empty when the ranges are not grouped by thread (threadRangeBegin does not cover them all,
// from 0 to the last); else every range belongs to one of the threads listed.
std::vector<uint32_t> threadsWithRangesBusiestFirst(const Trace& t);

} // namespace ls
