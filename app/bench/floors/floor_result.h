#pragma once
// What a benchmark floor returns (app/bench/floors/sqlite_floor.h for SQLite exports,
// app/bench/floors/json_floor.h for JSON traces): loading is judged as a ratio to the floor.
#include <cstdint>

namespace ls {

struct FloorResult {
    uint64_t rows = 0;
    uint64_t checksum = 0; // keeps the reads from being optimized away
};

} // namespace ls
