// Theoretical occupancy (core/costs/occupancy.h): the rules per compute capability on launches
// worked out by hand, the limits table against what real exports say of their GPUs, and the real
// check: every kernel Nsight Compute measured in ../shared/traces/pair_gpt1layer_fp16_h200.ncu.csv
// has our theoretical occupancy and all four block limits, from the Nsight Systems export's own
// launch values.
#include "core/costs/occupancy.h"
#include "core/import/ncu/ncu_match.h"
#include "tests/import/ncu/ncu_test_support.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <utility>
#include <vector>

namespace {

using namespace ls;
using namespace ls::test;

constexpr uint32_t KiB = 1024;

Occupancy occupancy(int major, int minor, LaunchShape launch) {
    const DeviceLimits* d = deviceLimits(major, minor);
    EXPECT_NE(d, nullptr) << major << "." << minor;
    if (!d) return {};
    const auto o = theoreticalOccupancy(launch, *d);
    EXPECT_TRUE(o.has_value());
    return o.value_or(Occupancy{});
}

void expectLimits(const Occupancy& o, uint32_t regs, uint32_t smem, uint32_t warps, uint32_t sm) {
    EXPECT_EQ(o.blockLimitRegisters, regs) << "Block Limit Registers";
    EXPECT_EQ(o.blockLimitSharedMem, smem) << "Block Limit Shared Mem";
    EXPECT_EQ(o.blockLimitWarps, warps) << "Block Limit Warps";
    EXPECT_EQ(o.blockLimitSm, sm) << "Block Limit SM";
}

TEST(OccupancyRules, TableCoversSixToTenAndTwelveAndNothingElse) {
    using Cc = std::vector<std::pair<int, int>>;
    for (auto [major, minor] : Cc{{6, 0},
                                  {6, 1},
                                  {6, 2},
                                  {7, 0},
                                  {7, 2},
                                  {7, 5},
                                  {8, 0},
                                  {8, 6},
                                  {8, 7},
                                  {8, 9},
                                  {9, 0},
                                  {10, 0},
                                  {12, 0}})
        EXPECT_NE(deviceLimits(major, minor), nullptr) << major << "." << minor;
    for (auto [major, minor] : Cc{{0, 0}, {5, 2}, {7, 1}, {9, 4}, {11, 0}})
        EXPECT_EQ(deviceLimits(major, minor), nullptr) << major << "." << minor;
    EXPECT_EQ(deviceLimitTable().size(), 13u);
    for (const auto& d : deviceLimitTable()) {
        ASSERT_FALSE(d.carveoutsKiB.empty());
        EXPECT_TRUE(std::is_sorted(d.carveoutsKiB.begin(), d.carveoutsKiB.end()));
        EXPECT_EQ(d.carveoutsKiB.back() * KiB, d.smemPerSm)
            << d.major << "." << d.minor << ": the largest carveout is all of it";
        EXPECT_EQ(d.reservedSmemPerBlock, d.major >= 8 ? KiB : 0u);
    }
}

// sm_60 (P100): 2 register sub-partitions, 64 KiB of shared memory per SM, no carveout.
TEST(OccupancyRules, Sm60) {
    // 128 threads (4 warps), 40 registers, 12 KiB static:
    // registers: 40*32 = 1280 per warp (a multiple of 256); 32768 per sub-partition / 1280 = 25
    //   warps, * 2 = 50 warps / 4 = 12 blocks; warps: 64/4 = 16; SM: 32;
    // shared memory: 12288 (no reserve, 256-byte unit) -> 65536/12288 = 5 blocks
    // -> 5 blocks * 4 warps = 20 warps = 31.25 %, shared memory.
    auto o = occupancy(6, 0, {128, 40, 12 * KiB, 0, 0});
    expectLimits(o, 12, 5, 16, 32);
    EXPECT_EQ(o.activeWarpsPerSm, 20u);
    EXPECT_DOUBLE_EQ(o.fraction, 0.3125);
    EXPECT_EQ(o.limiters, kLimitSharedMemory);
    EXPECT_EQ(o.smemConfig, 64 * KiB);

    // 64 threads (2 warps), 40 registers, no shared memory: 2 sub-partitions hold 25 warps each
    // (50 warps, 25 blocks) where 6.1's 4 hold 12 each (48 warps, 24 blocks).
    o = occupancy(6, 0, {64, 40, 0, 0, 0});
    expectLimits(o, 25, Occupancy::kNoLimit, 32, 32);
    EXPECT_DOUBLE_EQ(o.fraction, 50.0 / 64);
    EXPECT_EQ(o.limiters, kLimitRegisters);
    o = occupancy(6, 1, {64, 40, 0, 0, 0});
    EXPECT_EQ(o.blockLimitRegisters, 24u);
    EXPECT_DOUBLE_EQ(o.fraction, 0.75);

    // 320 threads (10 warps), 192 registers: 6144 per warp; GP100 fits one block (5 warps per
    // sub-partition, 10 per SM; 10 * 6144 = 61440 registers <= 65536), GP10x does not (2 per
    // sub-partition; 12 * 6144 > 65536), and the calculator refuses it on GP100 too.
    o = occupancy(6, 0, {320, 192, 0, 0, 0});
    EXPECT_EQ(o.blockLimitRegisters, 0u);
    EXPECT_EQ(o.blocksPerSm, 0u);
    EXPECT_EQ(o.fraction, 0.0);
    EXPECT_EQ(o.limiters, kLimitRegisters);
}

// sm_70 (V100): carveouts 0, 8, 16, 32, 64, 96 KiB; shared memory in 256-byte units, no reserve.
TEST(OccupancyRules, Sm70) {
    // 512 threads (16 warps), 32 registers, 20000 bytes dynamic, driver chose 64 KiB:
    // registers: 1024 per warp, 16 per sub-partition, 64 warps / 16 = 4 blocks; warps: 64/16 = 4;
    // shared memory: 20000 -> 20224 (256-byte unit); 65536/20224 = 3 blocks
    // -> 3 * 16 = 48 warps = 75 %, shared memory.
    auto o = occupancy(7, 0, {512, 32, 0, 20000, 64 * KiB});
    expectLimits(o, 4, 3, 4, 32);
    EXPECT_EQ(o.smemPerBlock, 20224u);
    EXPECT_DOUBLE_EQ(o.fraction, 0.75);
    EXPECT_EQ(o.limiters, kLimitSharedMemory);
    EXPECT_FALSE(o.smemConfigEstimated);
    // With 96 KiB, 98304/20224 = 4: registers, shared memory and warps all allow 4 -> 100 %.
    o = occupancy(7, 0, {512, 32, 0, 20000, 96 * KiB});
    EXPECT_EQ(o.blockLimitSharedMem, 4u);
    EXPECT_DOUBLE_EQ(o.fraction, 1.0);
    EXPECT_EQ(o.limiters, kLimitRegisters | kLimitSharedMemory | kLimitWarps);
    EXPECT_EQ(occupancyLimiterText(o.limiters), "registers+shared memory+warps");
    // Unknown carveout: 4 blocks of 20 KiB (whole KiB) need 80 KiB -> 96 KiB.
    o = occupancy(7, 0, {512, 32, 0, 20000, 0});
    EXPECT_TRUE(o.smemConfigEstimated);
    EXPECT_EQ(o.smemConfig, 96 * KiB);
}

// sm_75 (Turing): 32 warps and 16 blocks per SM, carveouts 32 and 64 KiB.
TEST(OccupancyRules, Sm75) {
    // 1024 threads: warps 32/32 = 1 block; registers 32 -> 64 warps / 32 = 2 -> 100 %, warps.
    auto o = occupancy(7, 5, {1024, 32, 0, 0, 0});
    expectLimits(o, 2, Occupancy::kNoLimit, 1, 16);
    EXPECT_DOUBLE_EQ(o.fraction, 1.0);
    EXPECT_EQ(o.limiters, kLimitWarps);
    // 128 threads, 80 registers: 2560 per warp, 16384/2560 = 6 per sub-partition, 24 warps / 4 =
    // 6 blocks; warps 32/4 = 8 -> 24 of 32 warps = 75 %, registers.
    o = occupancy(7, 5, {128, 80, 0, 0, 0});
    expectLimits(o, 6, Occupancy::kNoLimit, 8, 16);
    EXPECT_DOUBLE_EQ(o.fraction, 0.75);
    EXPECT_EQ(o.limiters, kLimitRegisters);
}

// sm_80 (A100): 164 KiB per SM, 1 KiB reserved per block, 128-byte unit.
TEST(OccupancyRules, Sm80) {
    // The example: 256 threads (8 warps), 64 registers: 2048 per warp, 16384/2048 = 8 per
    // sub-partition, 32 warps / 8 = 4 blocks -> 32 warps = 50 %, registers.
    auto o = occupancy(8, 0, {256, 64, 0, 0, 32 * KiB});
    expectLimits(o, 4, 32, 8, 32); // 32768 / (0 + 1024 reserved) = 32
    EXPECT_EQ(o.activeWarpsPerSm, 32u);
    EXPECT_DOUBLE_EQ(o.fraction, 0.5);
    EXPECT_EQ(o.limiters, kLimitRegisters);
    EXPECT_EQ(occupancyLimiterText(o.limiters), "registers");
    // 256 threads, 32 registers, 48 KiB dynamic, 164 KiB configured: 49152 + 1024 = 50176 bytes
    // per block; 167936 / 50176 = 3 blocks -> 24 warps = 37.5 %, shared memory.
    o = occupancy(8, 0, {256, 32, 0, 48 * KiB, 164 * KiB});
    expectLimits(o, 8, 3, 8, 32);
    EXPECT_DOUBLE_EQ(o.fraction, 0.375);
    EXPECT_EQ(o.limiters, kLimitSharedMemory);
    // Unknown carveout: 8 blocks of 49 KiB fit nowhere; 164 KiB holds 3, 132 KiB only 2.
    o = occupancy(8, 0, {256, 32, 0, 48 * KiB, 0});
    EXPECT_EQ(o.smemConfig, 164 * KiB);
    EXPECT_EQ(o.blockLimitSharedMem, 3u);
    // More than a block may have (163 KiB + the reserve) cannot launch.
    o = occupancy(8, 0, {256, 32, 0, 164 * KiB, 0});
    EXPECT_EQ(o.blockLimitSharedMem, 0u);
    EXPECT_EQ(o.blocksPerSm, 0u);
}

// sm_86 (GA10x): 48 warps and 16 blocks per SM, 100 KiB.
TEST(OccupancyRules, Sm86) {
    // 256 threads, 32 registers: warps 48/8 = 6; registers 64/8 = 8; shared memory (1 KiB
    // reserve) 32 -> 6 blocks = 48 warps = 100 %, warps.
    auto o = occupancy(8, 6, {256, 32, 0, 0, 32 * KiB});
    expectLimits(o, 8, 32, 6, 16);
    EXPECT_DOUBLE_EQ(o.fraction, 1.0);
    EXPECT_EQ(o.limiters, kLimitWarps);
    // 64 threads, 16 registers: warps 48/2 = 24, but only 16 blocks -> 32 of 48 warps, blocks.
    o = occupancy(8, 6, {64, 16, 0, 0, 32 * KiB});
    expectLimits(o, 64, 32, 24, 16);
    EXPECT_DOUBLE_EQ(o.fraction, 32.0 / 48);
    EXPECT_EQ(o.limiters, kLimitBlocks);
    EXPECT_EQ(occupancyLimiterText(o.limiters), "blocks");
    // 100 KiB of dynamic shared memory is over the 99 KiB a block may have.
    EXPECT_EQ(occupancy(8, 6, {256, 32, 0, 100 * KiB, 0}).blockLimitSharedMem, 0u);
}

// sm_89 (Ada): 48 warps and 24 blocks per SM.
TEST(OccupancyRules, Sm89) {
    // 64 threads, 16 registers: warps 48/2 = 24 = blocks 24; registers 512 per warp, 32 per
    // sub-partition, 128 / 2 = 64; shared memory 32 KiB / 1 KiB = 32 -> 24 blocks, 48 warps.
    auto o = occupancy(8, 9, {64, 16, 0, 0, 32 * KiB});
    expectLimits(o, 64, 32, 24, 24);
    EXPECT_DOUBLE_EQ(o.fraction, 1.0);
    EXPECT_EQ(o.limiters, kLimitWarps | kLimitBlocks);
    EXPECT_EQ(occupancyLimiterText(o.limiters), "warps+blocks");
    // Unknown carveout: 24 blocks of 1 KiB, but at least 32 KiB.
    EXPECT_EQ(occupancy(8, 9, {64, 16, 0, 0, 0}).smemConfig, 32 * KiB);
}

// sm_90 (H100/H200): two kernels of the shared ncu file, by hand.
TEST(OccupancyRules, Sm90) {
    // nvjet GEMM: 384 threads (12 warps), 168 registers, 225524 bytes dynamic, 228 KiB:
    // registers 168*32 = 5376 per warp; 16384/5376 = 3 per sub-partition, 12 warps / 12 = 1;
    // shared memory 225524 + 1024 = 226548 -> 226560; 233472 / 226560 = 1; warps 64/12 = 5
    // -> 1 block, 12 warps = 18.75 %, registers and shared memory (ncu: "limited by the number
    // of required registers, and the required amount of shared memory").
    auto o = occupancy(9, 0, {384, 168, 0, 225524, 228 * KiB});
    expectLimits(o, 1, 1, 5, 32);
    EXPECT_DOUBLE_EQ(o.fraction, 0.1875);
    EXPECT_EQ(o.limiters, kLimitRegisters | kLimitSharedMemory);
    EXPECT_EQ(occupancyLimiterText(o.limiters), "registers+shared memory");
    // Layer norm: 128 threads, 39 registers, 24 bytes dynamic, 32 KiB: 1248 -> 1280 per warp,
    // 12 per sub-partition, 48 warps / 4 = 12 blocks; shared memory 1048 -> 1152, 32768/1152 =
    // 28; warps 16 -> 12 blocks, 48 warps = 75 %, registers.
    o = occupancy(9, 0, {128, 39, 0, 24, 32 * KiB});
    expectLimits(o, 12, 28, 16, 32);
    EXPECT_EQ(o.smemPerBlock, 1152u);
    EXPECT_DOUBLE_EQ(o.fraction, 0.75);
    EXPECT_EQ(o.limiters, kLimitRegisters);
}

// sm_100 (B200): as sm_90 per SM; the per-block register check.
TEST(OccupancyRules, Sm100) {
    // 1024 threads, 64 registers: 2048 per warp, 8 per sub-partition, 32 warps = 1 block of 32;
    // warps 64/32 = 2 -> 32 warps = 50 %, registers.
    auto o = occupancy(10, 0, {1024, 64, 0, 0, 8 * KiB});
    expectLimits(o, 1, 8, 2, 32);
    EXPECT_DOUBLE_EQ(o.fraction, 0.5);
    EXPECT_EQ(o.limiters, kLimitRegisters);
    // 1024 threads, 72 registers: 2304 * 32 warps = 73728 registers > 65536 a block may have.
    o = occupancy(10, 0, {1024, 72, 0, 0, 8 * KiB});
    EXPECT_EQ(o.blockLimitRegisters, 0u);
    EXPECT_EQ(o.fraction, 0.0);
    // More than 255 registers, or more than 1024 threads, cannot launch either.
    EXPECT_EQ(occupancy(10, 0, {32, 256, 0, 0, 8 * KiB}).blockLimitRegisters, 0u);
    EXPECT_EQ(occupancy(10, 0, {1056, 16, 0, 0, 8 * KiB}).blockLimitWarps, 0u);
    // An empty block has no occupancy.
    EXPECT_FALSE(theoreticalOccupancy({0, 32, 0, 0, 0}, *deviceLimits(10, 0)).has_value());
}

// sm_120 (RTX 50): 48 warps and 32 blocks per SM, 100 KiB of shared memory.
TEST(OccupancyRules, Sm120) {
    // 32 threads, 32 registers: warps 48/1 = 48, but 32 blocks a SM -> 32 warps = 66.7 %, blocks.
    auto o = occupancy(12, 0, {32, 32, 0, 0, 100 * KiB});
    expectLimits(o, 64, 100, 48, 32);
    EXPECT_DOUBLE_EQ(o.fraction, 32.0 / 48.0);
    EXPECT_EQ(o.limiters, kLimitBlocks);
    // 256 threads, 48 KiB of shared memory each (+1 KiB reserved): 100 KiB hold 2 blocks = 16
    // warps.
    o = occupancy(12, 0, {256, 32, 0, 48 * KiB, 100 * KiB});
    EXPECT_EQ(o.blockLimitSharedMem, 2u);
    EXPECT_EQ(o.activeWarpsPerSm, 16u);
}

// AMD GPUs report a compute capability (MI300X 9.4, MI250X 9.0) that is not CUDA's: their
// kernels get no occupancy and the limiter says why, never the numbers of an NVIDIA 9.0.
TEST(OccupancyRules, AmdGpusAreNotApplicable) {
    Trace t;
    t.devices.push_back({0, "AMD Instinct MI250X", 110, 0, 9, 0});
    t.streams.push_back({ProcessId(0), 0, 0, 0});
    t.kernels.start.push_back(0);
    t.kernels.end.push_back(10);
    t.kernels.streamIndex.push_back(StreamId(0));
    t.kernels.block.push_back({256, 1, 1});
    t.kernels.registers.push_back(32);
    t.kernels.staticSmem.push_back(0);
    t.kernels.dynamicSmem.push_back(0);
    computeKernelOccupancy(t);
    ASSERT_EQ(t.metrics.occupancy.size(), 1u);
    EXPECT_TRUE(std::isnan(t.metrics.occupancy[0]));
    EXPECT_EQ(t.metrics.occupancyLimiter[0], kLimitNotApplicable);
    EXPECT_EQ(occupancyLimiterText(kLimitNotApplicable),
              "n/a: AMD GPU (CUDA occupancy rules do not apply)");
    EXPECT_TRUE(isAmdGpu({0, "AMD Instinct MI300X VF", 0, 0, 9, 4}));
    EXPECT_FALSE(isAmdGpu({0, "NVIDIA H100 80GB HBM3", 0, 0, 9, 0}));
    // The same launch on an NVIDIA 9.0 has a number.
    t.devices[0].name = "NVIDIA H100 80GB HBM3";
    computeKernelOccupancy(t);
    EXPECT_FALSE(std::isnan(t.metrics.occupancy[0]));
}

// The table against what Nsight Systems exports recorded of their GPUs (TARGET_INFO_GPU: the
// driver's own device attributes) on an H200 (9.0) and an A100 (8.0).
TEST(OccupancyTable, AgreesWithTheExportsDeviceAttributes) {
    size_t checked = 0;
    for (const char* name : {"traces/pair_gpt1layer_fp16_h200.nsys.sqlite",
                             "traces/third-party/cloverleaf_perlmutter.nsys.sqlite"}) {
        const fs::path file = sharedDir() / name;
        if (!fs::exists(file)) continue;
        SqlReader sql(file);
        sql.each("SELECT computeMajor, computeMinor, maxWarpsPerSm, maxBlocksPerSm, "
                 "maxThreadsPerBlock, maxRegistersPerSm, "
                 "maxRegistersPerBlock, maxShmemPerSm, maxShmemPerBlockOptin FROM TARGET_INFO_GPU",
                 [&](sqlite3_stmt* st) {
                     auto v = [&](int c) { return SqlReader::int64(st, c); };
                     const DeviceLimits* d =
                         deviceLimits(static_cast<int>(v(0)), static_cast<int>(v(1)));
                     ASSERT_NE(d, nullptr);
                     EXPECT_EQ(d->maxWarpsPerSm, v(2));
                     EXPECT_EQ(d->maxBlocksPerSm, v(3));
                     EXPECT_EQ(d->maxThreadsPerBlock, v(4));
                     EXPECT_EQ(d->registersPerSm, v(5));
                     EXPECT_EQ(d->registersPerBlock, v(6));
                     EXPECT_EQ(d->smemPerSm, v(7));
                     EXPECT_EQ(d->smemPerBlockOptIn, v(8));
                     ++checked;
                 });
    }
    if (checked == 0) GTEST_SKIP() << sharedDir() << " absent";
}

// ---------------------------------------------------------------------------------------------
// The real check: Nsight Compute's Occupancy section for the 60 kernels it measured.

struct NcuOccupancy {
    double theoretical = NAN, activeWarps = NAN;
    double limitRegisters = NAN, limitSharedMem = NAN, limitWarps = NAN, limitSm = NAN;
    std::string limitedBy; // the TheoreticalOccupancy rule's "is limited by ..." sentence, if any
};

// Per ncu ID, read from the CSV by the test's own reader.
std::map<std::string, NcuOccupancy> ncuOccupancy(const DetailsFile& d) {
    std::map<std::string, NcuOccupancy> out;
    const size_t cSection = d.col("Section Name"), cMetric = d.col("Metric Name"),
                 cValue = d.col("Metric Value"), cRule = d.col("Rule Name"),
                 cText = d.col("Rule Description");
    const std::map<std::string, double NcuOccupancy::*> fields = {
        {"Theoretical Occupancy", &NcuOccupancy::theoretical},
        {"Theoretical Active Warps per SM", &NcuOccupancy::activeWarps},
        {"Block Limit Registers", &NcuOccupancy::limitRegisters},
        {"Block Limit Shared Mem", &NcuOccupancy::limitSharedMem},
        {"Block Limit Warps", &NcuOccupancy::limitWarps},
        {"Block Limit SM", &NcuOccupancy::limitSm}};
    for (const auto& r : d.rows) {
        auto& o = out[r[0]];
        if (r[cSection] == "Occupancy")
            if (auto f = fields.find(r[cMetric]); f != fields.end())
                o.*(f->second) = std::stod(noCommas(r[cValue]));
        if (r[cRule] == "TheoreticalOccupancy") {
            const std::string& text = r[cText];
            const size_t at = text.find("is limited by");
            if (at != std::string::npos) o.limitedBy = text.substr(at);
        }
    }
    return out;
}

TEST(OccupancyVsNcu, AllSixtyMatchedKernelsHaveNcusTheoreticalOccupancyAndBlockLimits) {
    LS_REQUIRE_PAIR();
    const Trace& t = *realPair().trace;
    auto parsed = readNcuCsvFile(pairCsv().string());
    ASSERT_TRUE(parsed.ok()) << parsed.error;
    const NcuMatch match = matchNcuKernels(t, *parsed.csv);
    ASSERT_EQ(match.matched, 60u);
    const auto ncu = ncuOccupancy(realPair().csv);
    ASSERT_EQ(ncu.size(), 60u);
    ASSERT_EQ(t.devices.size(), 1u);
    const DeviceLimits* device = deviceLimits(t.devices[0].computeMajor, t.devices[0].computeMinor);
    ASSERT_NE(device, nullptr) << "the nsys importer reads the compute capability";
    EXPECT_EQ(device->major, 9);

    size_t equal = 0, withRule = 0;
    for (size_t i = 0; i < 60; ++i) {
        const std::string id = std::to_string(i);
        const KernelId k = match.kernelOfNcu[i];
        ASSERT_TRUE(k.valid()) << id;
        const NcuOccupancy& want = ncu.at(id);
        ASSERT_FALSE(std::isnan(want.theoretical)) << id;
        // The export's launch values, not ncu's: this checks the import and the rules together.
        const auto& kern = t.kernels;
        const Dim3 b = kern.block[k.value];
        const LaunchShape launch{b.x * b.y * b.z, kern.registers[k.value], kern.staticSmem[k.value],
                                 kern.dynamicSmem[k.value], kern.smemConfig[k.value]};
        ASSERT_GT(launch.smemConfig, 0u) << "sharedMemoryExecuted is read";
        const auto o = theoreticalOccupancy(launch, *device);
        ASSERT_TRUE(o.has_value()) << id;
        EXPECT_EQ(o->blockLimitRegisters, want.limitRegisters) << "ncu ID " << id;
        EXPECT_EQ(o->blockLimitSharedMem, want.limitSharedMem) << "ncu ID " << id;
        EXPECT_EQ(o->blockLimitWarps, want.limitWarps) << "ncu ID " << id;
        EXPECT_EQ(o->blockLimitSm, want.limitSm) << "ncu ID " << id;
        EXPECT_EQ(o->activeWarpsPerSm, want.activeWarps) << "ncu ID " << id;
        EXPECT_NEAR(o->fraction * 100, want.theoretical, 0.005)
            << "ncu ID " << id << " (ncu prints two decimals)";
        // What the kernels table shows is the same number.
        EXPECT_NEAR(t.metrics.occupancy[k.value], want.theoretical, 0.005) << "ncu ID " << id;
        equal += o->blockLimitRegisters == want.limitRegisters &&
                 o->blockLimitSharedMem == want.limitSharedMem &&
                 o->blockLimitWarps == want.limitWarps && o->blockLimitSm == want.limitSm &&
                 std::fabs(o->fraction * 100 - want.theoretical) < 0.005;
        // Well below 100 %, ncu's rule names the binding resources; ours name the same ones.
        if (!want.limitedBy.empty()) {
            ++withRule;
            EXPECT_EQ((o->limiters & kLimitRegisters) != 0,
                      want.limitedBy.find("registers") != std::string::npos)
                << id << ": " << want.limitedBy;
            EXPECT_EQ((o->limiters & kLimitSharedMemory) != 0,
                      want.limitedBy.find("shared memory") != std::string::npos)
                << id << ": " << want.limitedBy;
        }
    }
    EXPECT_EQ(equal, 60u);
    EXPECT_EQ(withRule, 17u);
}

// Without the recorded carveout (Kineto, nvprof, older exports) the estimate gives the same
// occupancy for every kernel of the shared Nsight Systems exports, and mostly the same carveout.
TEST(OccupancyVsNcu, EstimatedCarveoutKeepsTheOccupancyOfTheRecordedOne) {
    size_t kernels = 0, sameCarveout = 0, sameLimiter = 0, traces = 0;
    for (const char* name :
         {"ddp_bf16_h200x2_rank0.sqlite", "ddp_bf16_h200x2_rank1.sqlite",
          "gpt2_2layer_bf16_b8_h200.sqlite", "gpt2_2layer_fp16_h200.sqlite",
          "pair_gpt1layer_fp16_h200.nsys.sqlite", "third-party/cloverleaf_perlmutter.nsys.sqlite",
          "third-party/saxpy_mpi_perlmutter.nsys.sqlite"}) {
        const fs::path file = sharedDir() / "traces" / name;
        if (!fs::exists(file)) continue;
        auto loaded = loadTrace(file.string());
        ASSERT_TRUE(loaded.ok()) << name;
        const Trace& t = *loaded.trace;
        ++traces;
        for (size_t i = 0; i < t.kernels.size(); ++i) {
            const Device* dev = nullptr;
            for (const auto& d : t.devices)
                if (d.id == t.streamOf(t.kernels, i).device) dev = &d;
            ASSERT_NE(dev, nullptr);
            const DeviceLimits* limits = deviceLimits(dev->computeMajor, dev->computeMinor);
            ASSERT_NE(limits, nullptr) << name;
            const Dim3 b = t.kernels.block[i];
            LaunchShape launch{b.x * b.y * b.z, t.kernels.registers[i], t.kernels.staticSmem[i],
                               t.kernels.dynamicSmem[i], t.kernels.smemConfig[i]};
            ASSERT_GT(launch.smemConfig, 0u) << name;
            const auto recorded = theoreticalOccupancy(launch, *limits);
            launch.smemConfig = 0;
            const auto estimated = theoreticalOccupancy(launch, *limits);
            ASSERT_TRUE(recorded && estimated);
            EXPECT_TRUE(estimated->smemConfigEstimated);
            EXPECT_EQ(estimated->blocksPerSm, recorded->blocksPerSm) << name << " kernel " << i;
            ++kernels;
            sameCarveout += estimated->smemConfig == recorded->smemConfig;
            sameLimiter += estimated->limiters == recorded->limiters;
        }
    }
    if (traces == 0) GTEST_SKIP() << sharedDir() << " absent";
    if (traces < 7) return; // the counts below are for all seven
    EXPECT_EQ(kernels, 2748u);
    EXPECT_GE(sameCarveout, 2727u) << "docs/occupancy.md gives these counts";
    EXPECT_GE(sameLimiter, 2747u);
}

} // namespace
