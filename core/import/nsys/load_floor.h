#pragma once
// The benchmark's floor: one thread stepping over every column the loader reads, storing
// nothing. Loading is judged as a ratio to this, measured in the same process.
#include <cstdint>
#include <string>

namespace ls {

struct FloorResult {
    uint64_t rows = 0;
    uint64_t checksum = 0; // keeps the reads from being optimized away
};

// Throws SqliteError when the file cannot be read.
FloorResult scanFloor(const std::string& path);

} // namespace ls
