#pragma once
// Theoretical occupancy of a kernel launch: how many blocks and warps of it one SM can hold at
// once, and which resource stops it at that number. The rules follow NVIDIA's occupancy
// calculator (cuda_occupancy.h, the CUDA Occupancy Calculator) and the "Technical
// Specifications per Compute Capability" table of the CUDA C++ Programming Guide; the block
// limits carry the names Nsight Compute's Occupancy section gives them. docs/occupancy.md has the
// arithmetic and the check against Nsight Compute.
#include "core/model/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ls {

// What one compute capability allows per SM and per block (CUDA C++ Programming Guide,
// "Technical Specifications per Compute Capability" and the per-architecture shared memory
// sections; granularities from the CUDA Occupancy Calculator).
struct DeviceLimits {
    int major = 0, minor = 0;
    uint32_t maxWarpsPerSm = 0;
    uint32_t maxBlocksPerSm = 0;
    uint32_t maxThreadsPerBlock = 0;
    uint32_t registersPerSm = 0;
    uint32_t registersPerBlock = 0;
    uint32_t maxRegistersPerThread = 0;
    uint32_t registerUnit = 0;      // registers are given to a warp in multiples of this
    uint32_t subPartitions = 0;     // the register file is split evenly among these
    uint32_t smemPerSm = 0;         // bytes, the largest carveout
    uint32_t smemPerBlockOptIn = 0; // bytes, the most one block may ask for (opt-in above 48 KiB)
    uint32_t reservedSmemPerBlock = 0; // bytes the driver keeps per block (1 KiB from 8.0)
    uint32_t smemUnit = 0;             // a block's shared memory is rounded up to this
    std::vector<uint32_t>
        carveoutsKiB; // shared-memory sizes per SM the driver chooses from, ascending
};

// The table, one row per compute capability from 6.0 to 10.0, and 12.0.
const std::vector<DeviceLimits>& deviceLimitTable();
// nullptr for a compute capability the table does not know (the cells stay empty).
const DeviceLimits* deviceLimits(int major, int minor);

// One launch as the trace records it.
struct LaunchShape {
    uint32_t threads = 0;     // block x*y*z
    uint32_t registers = 0;   // per thread
    uint32_t staticSmem = 0;  // bytes per block
    uint32_t dynamicSmem = 0; // bytes per block
    uint32_t smemConfig = 0;  // shared memory per SM the driver configured (bytes); 0 unknown
};

// Which limits bind, as bits: several at once when they tie, as ncu names them all.
enum OccupancyLimiter : uint8_t {
    kLimitRegisters = 1,
    kLimitSharedMemory = 2,
    kLimitWarps = 4,
    kLimitBlocks = 8,
    kLimitNotApplicable = 16, // an AMD GPU: CUDA's occupancy rules do not apply (no percentage)
};
// "registers", "shared memory", "warps", "blocks", ties joined by "+"; empty for 0; the reason
// for kLimitNotApplicable.
std::string occupancyLimiterText(uint8_t limiters);

struct Occupancy {
    // Block limits per SM, named as in Nsight Compute's Occupancy section.
    uint32_t blockLimitRegisters = 0;
    uint32_t blockLimitSharedMem = 0; // kNoLimit when a block needs no shared memory at all
    uint32_t blockLimitWarps = 0;
    uint32_t blockLimitSm = 0;
    uint32_t blocksPerSm = 0;         // the smallest limit
    uint32_t activeWarpsPerSm = 0;    // blocksPerSm * warps per block
    double fraction = 0;              // activeWarpsPerSm / maxWarpsPerSm
    uint8_t limiters = 0;             // OccupancyLimiter bits equal to blocksPerSm
    uint32_t smemPerBlock = 0;        // bytes allocated per block, reserve and rounding included
    uint32_t smemConfig = 0;          // bytes per SM the limit was computed with
    bool smemConfigEstimated = false; // the trace did not say; estimateSmemConfig chose it

    static constexpr uint32_t kNoLimit = UINT32_MAX;
};

// The driver's carveout when the trace does not record it: the smallest carveout that holds the
// blocks the warps and registers allow, and never below a floor the driver was seen to keep
// (docs/occupancy.md, "Choosing the carveout"); the largest when none holds them.
uint32_t estimateSmemConfig(const LaunchShape& launch, const DeviceLimits& device);

// Nullopt for an empty block. A launch the SM cannot hold at all (too many registers or too much
// shared memory for one block) has blocksPerSm 0 and its limiter set.
std::optional<Occupancy> theoreticalOccupancy(const LaunchShape& launch,
                                              const DeviceLimits& device);

// Per kernel of t, into t.metrics.occupancy (percent, NaN when the device is unknown) and
// t.metrics.occupancyLimiter. AMD GPUs report a compute capability too (MI300X: 9.4, MI250X:
// 9.0) but run wavefronts of 64 on compute units with other limits: NaN, limiter n/a.
bool isAmdGpu(const Device& d);
void computeKernelOccupancy(Trace& t);

} // namespace ls
