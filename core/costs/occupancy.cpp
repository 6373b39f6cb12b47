#include "core/costs/occupancy.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

namespace ls {
namespace {

constexpr uint32_t KiB = 1024;

uint32_t roundUp(uint64_t x, uint32_t unit) {
    return static_cast<uint32_t>(std::min<uint64_t>((x + unit - 1) / unit * unit, UINT32_MAX));
}

// Rows from the CUDA C++ Programming Guide ("Technical Specifications per Compute Capability";
// the carveout lists from the Compute Capability 7.x, 8.x, 9.0 and 10.0 sections on shared
// memory) and the CUDA Occupancy Calculator (cuda_occupancy.h: register unit 256 per warp,
// 2 register sub-partitions on GP100 and 4 elsewhere, shared memory rounded to 256 bytes before
// 8.0 and 128 bytes from 8.0, 1 KiB reserved per block from 8.0). Pascal has no carveout: its
// shared memory is a fixed size per SM, listed as the one choice.
DeviceLimits row(int major, int minor, uint32_t warps, uint32_t blocks, uint32_t regsPerBlock,
                 uint32_t smemKiB, uint32_t optInKiB, std::vector<uint32_t> carveouts) {
    DeviceLimits d;
    d.major = major;
    d.minor = minor;
    d.maxWarpsPerSm = warps;
    d.maxBlocksPerSm = blocks;
    d.maxThreadsPerBlock = 1024;
    d.registersPerSm = 64 * KiB;
    d.registersPerBlock = regsPerBlock;
    d.maxRegistersPerThread = 255;
    d.registerUnit = 256;
    d.subPartitions = major == 6 && minor == 0 ? 2 : 4;
    d.smemPerSm = smemKiB * KiB;
    d.smemPerBlockOptIn = optInKiB * KiB;
    d.reservedSmemPerBlock = major >= 8 ? KiB : 0;
    d.smemUnit = major >= 8 ? 128 : 256;
    d.carveoutsKiB = std::move(carveouts);
    return d;
}

uint32_t warpsPerBlock(const LaunchShape& l) { return (l.threads + 31) / 32; }

uint32_t warpLimit(const LaunchShape& l, const DeviceLimits& d) {
    return l.threads > d.maxThreadsPerBlock ? 0 : d.maxWarpsPerSm / warpsPerBlock(l);
}

// Registers go to warps in units of registerUnit and every sub-partition holds a quarter (GP100:
// half) of the file, so the SM holds as many warps as one sub-partition does, times their number.
// The hardware checks a block against the per-block limit as if its warps filled every
// sub-partition alike (warps rounded up to the sub-partitions).
uint32_t registerLimit(const LaunchShape& l, const DeviceLimits& d) {
    if (l.registers == 0) return Occupancy::kNoLimit;
    if (l.registers > d.maxRegistersPerThread) return 0;
    const uint32_t warps = warpsPerBlock(l);
    const uint32_t perWarp = roundUp(uint64_t{l.registers} * 32, d.registerUnit);
    const uint64_t checked = uint64_t{perWarp} * roundUp(warps, d.subPartitions);
    if (checked > d.registersPerBlock || uint64_t{perWarp} * warps > d.registersPerBlock) return 0;
    const uint32_t warpsPerPartition = d.registersPerSm / d.subPartitions / perWarp;
    return warpsPerPartition * d.subPartitions / warps;
}

uint32_t smemPerBlock(const LaunchShape& l, const DeviceLimits& d) {
    return roundUp(uint64_t{l.staticSmem} + l.dynamicSmem + d.reservedSmemPerBlock, d.smemUnit);
}

bool fitsOneBlock(const LaunchShape& l, const DeviceLimits& d) {
    return smemPerBlock(l, d) <= d.smemPerBlockOptIn + d.reservedSmemPerBlock;
}

} // namespace

const std::vector<DeviceLimits>& deviceLimitTable() {
    static const std::vector<DeviceLimits> table = {
        // major, minor, warps/SM, blocks/SM, registers/block, smem/SM KiB, smem/block KiB,
        // carveouts KiB
        row(6, 0, 64, 32, 64 * KiB, 64, 48, {64}),
        row(6, 1, 64, 32, 64 * KiB, 96, 48, {96}),
        row(6, 2, 64, 32, 32 * KiB, 64, 48, {64}),
        row(7, 0, 64, 32, 64 * KiB, 96, 96, {0, 8, 16, 32, 64, 96}),
        row(7, 2, 64, 32, 64 * KiB, 96, 96, {0, 8, 16, 32, 64, 96}),
        row(7, 5, 32, 16, 64 * KiB, 64, 64, {32, 64}),
        row(8, 0, 64, 32, 64 * KiB, 164, 163, {0, 8, 16, 32, 64, 100, 132, 164}),
        row(8, 6, 48, 16, 64 * KiB, 100, 99, {0, 8, 16, 32, 64, 100}),
        row(8, 7, 48, 16, 64 * KiB, 164, 163, {0, 8, 16, 32, 64, 100, 132, 164}),
        row(8, 9, 48, 24, 64 * KiB, 100, 99, {0, 8, 16, 32, 64, 100}),
        row(9, 0, 64, 32, 64 * KiB, 228, 227, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}),
        row(10, 0, 64, 32, 64 * KiB, 228, 227, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}),
        // 12.0, consumer Blackwell (RTX 50): 1,536 threads and 32 blocks per SM, 100 KiB of shared
        // memory.
        row(12, 0, 48, 32, 64 * KiB, 100, 99, {0, 8, 16, 32, 64, 100}),
    };
    return table;
}

const DeviceLimits* deviceLimits(int major, int minor) {
    for (const auto& d : deviceLimitTable())
        if (d.major == major && d.minor == minor) return &d;
    return nullptr;
}

std::string occupancyLimiterText(uint8_t limiters) {
    static constexpr std::pair<uint8_t, std::string_view> kNames[] = {
        {kLimitRegisters, "registers"},
        {kLimitSharedMemory, "shared memory"},
        {kLimitWarps, "warps"},
        {kLimitBlocks, "blocks"},
        {kLimitNotApplicable, "n/a: AMD GPU (CUDA occupancy rules do not apply)"}};
    std::string text;
    for (const auto& [bit, name] : kNames) {
        if (!(limiters & bit)) continue;
        if (!text.empty()) text += '+';
        text += name;
    }
    return text;
}

// The driver does not document its choice. Seen on the shared traces' 8.0 and 9.0 launches
// (docs/occupancy.md): it reckons a block's need in whole KiB, sizes the carveout for as many
// blocks as warps and registers allow, and keeps at least 4 KiB per block the warps allow, up to
// 32 KiB. When even the largest carveout cannot hold that many blocks, it takes the smallest one
// that holds as many as the largest does.
uint32_t estimateSmemConfig(const LaunchShape& launch, const DeviceLimits& device) {
    const auto& sizes = device.carveoutsKiB;
    if (sizes.empty() || launch.threads == 0) return 0;
    const uint32_t need = roundUp(
        uint64_t{launch.staticSmem} + launch.dynamicSmem + device.reservedSmemPerBlock, KiB);
    const uint32_t warpBlocks = std::min(warpLimit(launch, device), device.maxBlocksPerSm);
    const uint32_t target = std::min(warpBlocks, registerLimit(launch, device));
    const uint64_t least = std::min<uint64_t>(32 * KiB, uint64_t{4} * KiB * warpBlocks);
    for (uint32_t kib : sizes)
        if (uint64_t{kib} * KiB >= least && uint64_t{kib} * KiB >= uint64_t{target} * need)
            return kib * KiB;
    const auto blocksIn = [&](uint32_t kib) { return need ? uint64_t{kib} * KiB / need : 0; };
    for (uint32_t kib : sizes)
        if (uint64_t{kib} * KiB >= least && blocksIn(kib) == blocksIn(sizes.back()))
            return kib * KiB;
    return sizes.back() * KiB;
}

std::optional<Occupancy> theoreticalOccupancy(const LaunchShape& launch,
                                              const DeviceLimits& device) {
    if (launch.threads == 0 || device.maxWarpsPerSm == 0) return std::nullopt;
    Occupancy o;
    o.blockLimitWarps = warpLimit(launch, device);
    o.blockLimitSm = device.maxBlocksPerSm;
    o.blockLimitRegisters = registerLimit(launch, device);
    // A GP100 launch counts only if the 4-sub-partition Pascal parts could run it too (the
    // calculator's forward-compatibility rule).
    if (device.major == 6 && device.minor == 0 && o.blockLimitRegisters != 0) {
        DeviceLimits gp10x = device;
        gp10x.subPartitions = 4;
        if (registerLimit(launch, gp10x) == 0) o.blockLimitRegisters = 0;
    }
    o.smemPerBlock = smemPerBlock(launch, device);
    o.smemConfig = launch.smemConfig;
    if (o.smemConfig == 0) {
        o.smemConfig = estimateSmemConfig(launch, device);
        o.smemConfigEstimated = true;
    }
    if (!fitsOneBlock(launch, device))
        o.blockLimitSharedMem = 0;
    else if (o.smemPerBlock == 0)
        o.blockLimitSharedMem = Occupancy::kNoLimit;
    else
        o.blockLimitSharedMem = o.smemConfig / o.smemPerBlock;

    o.blocksPerSm =
        std::min({o.blockLimitRegisters, o.blockLimitSharedMem, o.blockLimitWarps, o.blockLimitSm});
    if (o.blockLimitRegisters == o.blocksPerSm) o.limiters |= kLimitRegisters;
    if (o.blockLimitSharedMem == o.blocksPerSm) o.limiters |= kLimitSharedMemory;
    if (o.blockLimitWarps == o.blocksPerSm) o.limiters |= kLimitWarps;
    if (o.blockLimitSm == o.blocksPerSm) o.limiters |= kLimitBlocks;
    o.activeWarpsPerSm = o.blocksPerSm * warpsPerBlock(launch);
    o.fraction = static_cast<double>(o.activeWarpsPerSm) / device.maxWarpsPerSm;
    return o;
}

bool isAmdGpu(const Device& d) {
    const std::string_view n = d.name;
    return n.starts_with("AMD ") || n.find("Instinct") != std::string_view::npos ||
           n.find("Radeon") != std::string_view::npos;
}

void computeKernelOccupancy(Trace& t) {
    auto& m = t.metrics;
    const auto& k = t.kernels;
    const size_t n = k.size();
    m.occupancy.assign(n, NAN);
    m.occupancyLimiter.assign(n, 0);
    // A trace names a handful of devices: look each up once.
    std::vector<std::pair<uint32_t, const DeviceLimits*>> limitsOf;
    static const DeviceLimits kAmd{}; // a marker: such devices get no percentage, and say why
    for (const auto& d : t.devices)
        limitsOf.emplace_back(d.id,
                              isAmdGpu(d) ? &kAmd : deviceLimits(d.computeMajor, d.computeMinor));
    for (size_t i = 0; i < n; ++i) {
        const auto it = std::find_if(limitsOf.begin(), limitsOf.end(), [&](const auto& e) {
            return e.first == t.streamOf(k, i).device;
        });
        if (it == limitsOf.end() || !it->second) continue;
        if (it->second == &kAmd) {
            m.occupancyLimiter[i] = kLimitNotApplicable;
            continue;
        }
        const Dim3& b = k.block[i];
        const uint64_t threads = uint64_t{b.x} * b.y * b.z;
        const LaunchShape launch{static_cast<uint32_t>(std::min<uint64_t>(threads, UINT32_MAX)),
                                 k.registers[i], k.staticSmem[i], k.dynamicSmem[i],
                                 i < k.smemConfig.size() ? k.smemConfig[i] : 0};
        if (const auto o = theoreticalOccupancy(launch, *it->second)) {
            m.occupancy[i] = static_cast<float>(o->fraction * 100.0);
            m.occupancyLimiter[i] = o->limiters;
        }
    }
}

} // namespace ls
