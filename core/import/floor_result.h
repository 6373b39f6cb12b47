#pragma once
// What a benchmark floor returns (core/import/nsys/load_floor.h for SQLite exports,
// core/import/kineto/json_floor.h for JSON traces): loading is judged as a ratio to the floor.
#include <cstdint>

namespace ls {

struct FloorResult {
    uint64_t rows = 0;
    uint64_t checksum = 0; // keeps the reads from being optimized away
};

} // namespace ls
