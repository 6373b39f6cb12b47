#pragma once
// Values of a Chrome-trace event's fields as both the PyTorch profiler's and Paddle's writers put
// them, read by both importers' event parsers.
#include "core/model/trace.h"

#include <cstdint>
#include <optional>
#include <simdjson.h>

namespace ls::json_values {

// An integer; the whole part of a number written with decimals ("blocks per SM": 5.3); an
// unsigned one past int64, clamped; or one written as a string, decimal or "0x" hexadecimal
// (ROCm writes a copy's size as "4096" and its stream as "0x0", Paddle an address as a decimal).
bool readInt(simdjson::ondemand::value v, int64_t& out);
// A time in microseconds, read exactly as nanoseconds (json_time.h).
bool readTime(simdjson::ondemand::value v, std::optional<TimeNs>& out);
// [x, y, z] (missing dimensions kept as they were; negative ones 0).
bool readDim3(simdjson::ondemand::value v, Dim3& out);

} // namespace ls::json_values
