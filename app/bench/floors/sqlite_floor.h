#pragma once
// The benchmark's floor: one thread stepping over every column the loader reads, storing
// nothing. Loading is judged as a ratio to this, measured in the same process.
#include "app/bench/floors/floor_result.h"

#include <string>

namespace ls {

// Throws SqliteError when the file cannot be read.
FloorResult scanFloor(const std::string& path);

} // namespace ls
