#pragma once
// The benchmark's floor for JSON traces: one thread, the file read whole (decompressed) into
// memory, simdjson on-demand visiting every event and reading the fields the importer reads,
// storing nothing. Loading a JSON trace is judged as a ratio to this (layerscope-bench).
#include "app/bench/floors/floor_result.h"

#include <string>

namespace ls {

// Throws std::runtime_error when the file cannot be read or is not a JSON object.
FloorResult scanJsonFloor(const std::string& path);

} // namespace ls
