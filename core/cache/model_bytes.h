#pragma once
// The memory a loaded trace's model holds: its columns' and indexes' allocations, its strings and
// lists, counted over the same field list the model cache writes (core/cache/trace_fields.h), so
// a field added to the model is counted too. What decides how many ranks' models the app keeps
// within its memory budget (core/load/model_pool.h).
#include "core/model/trace.h"

#include <cstdint>

namespace ls {

uint64_t modelBytes(const Trace& t);

} // namespace ls
