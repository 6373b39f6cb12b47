// Export schema variants, as small fixtures from SQL text: absent tables, absent or unknown
// columns, duplicate runtime rows of older exports, and bad values that must be counted in the load
// report rather than abort the load. Semantics: core/import/nsys/nsys_schema.cpp,
// core/import/nsys/trace_builder.cpp.
#include "core/reports/summary.h"
#include "tests/support/nsys_fixture.h"

#include <gtest/gtest.h>

namespace {

using namespace ls::test;
using namespace ls::test::fixture;
using ls::Anomaly;

// Grids and blocks are coded per read chunk (2^18 rows) and merged into one dictionary per
// column: over three chunks, which meet the values in different orders, and a kernel order the
// sort changes, every kernel keeps its own.
TEST(SchemaVariants, GridsAndBlocksOfKernelsInSeveralChunksReadBack) {
    TempDir dir;
    const auto t = load(dir, cat({kStringIds, kKernelTable, R"(
        INSERT INTO StringIds VALUES (1, 'k');
        WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 599999)
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName,
                                               gridX, gridY, gridZ, blockX, blockY, blockZ)
            SELECT 10 * ((i * 7) % 600000), 10 * ((i * 7) % 600000) + 5, i, 1, 1,
                   1 + (i * 7919) % 500, 1 + i % 3, 1, 32 * (1 + (i / 1000) % 8), 1, 1 + i % 2
            FROM n;
    )"}));
    ASSERT_TRUE(t);
    const auto& k = t->kernels;
    ASSERT_EQ(k.size(), 600000u);
    EXPECT_EQ(k.grid.distinct.size(), 1500u);
    EXPECT_EQ(k.block.distinct.size(), 16u);
    for (size_t r = 0; r < k.size(); ++r) {
        const int64_t i = k.correlation[r]; // the row's i, whatever its place after the sort
        ASSERT_EQ(k.start[r], 10 * ((i * 7) % 600000)) << r;
        ASSERT_EQ(k.grid[r], (ls::Dim3{uint32_t(1 + (i * 7919) % 500), uint32_t(1 + i % 3), 1}))
            << r;
        ASSERT_EQ(k.block[r],
                  (ls::Dim3{uint32_t(32 * (1 + (i / 1000) % 8)), 1, uint32_t(1 + i % 2)}))
            << r;
    }
}

// API calls' threads, names and results, and GPU operations' streams, are coded per read chunk
// and merged into the trace's: over three chunks of calls (in two processes, six threads) and two
// of kernels (on twenty streams), in an order the sort changes, every row keeps its own. With
// more than 65,536 distinct names the name column turns wide part way through the merge.
void expectCallsAndStreamsReadBack(int names) {
    TempDir dir;
    const std::string sql = cat({kStringIds, kKernelTable, kRuntimeTable,
                                 R"(
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < )" +
                                     std::to_string(names) + R"()
        INSERT INTO StringIds SELECT i, 'api' || i FROM n;
        INSERT INTO StringIds VALUES (0, 'k');
        WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 599999)
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, globalTid, correlationId, nameId,
                                                returnValue)
            SELECT 10 * ((i * 7) % 600000), 10 * ((i * 7) % 600000) + 5,
                   ((100 + i % 2) << 24) | (1000 + i % 3), i + 1, )" +
                                     "1 + (i * 13) % " + std::to_string(names) + R"(,
                   CASE WHEN i % 5 = 0 THEN NULL WHEN i % 7 = 0 THEN 2147483647
                        WHEN i % 11 = 0 THEN -3 ELSE i % 4 END
            FROM n;
        WITH RECURSIVE n(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM n WHERE j < 299999)
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, contextId, streamId,
                                               correlationId, globalPid, demangledName, shortName)
            SELECT 10 * ((j * 11) % 300000) + 3, 10 * ((j * 11) % 300000) + 5, j % 2,
                   1 + (j / 7) % 2, 7 + j % 5, j + 1, (100 + j % 2) << 24, 0, 0
            FROM n;
    )"});
    const auto t = load(dir, sql);
    ASSERT_TRUE(t);
    const auto& a = t->apiCalls;
    ASSERT_EQ(a.size(), 600000u);
    EXPECT_EQ(t->threads.size(), 6u);
    EXPECT_EQ(t->processes.size(), 2u);
    for (size_t r = 0; r < a.size(); ++r) {
        const int64_t i = int64_t(a.correlationOf(r)) - 1; // the row's i, wherever it sorted to
        ASSERT_EQ(a.start[r], 10 * ((i * 7) % 600000)) << r;
        const ls::Thread& th = t->threads[a.thread[r].value];
        ASSERT_EQ(th.tid, uint32_t(1000 + i % 3)) << r;
        ASSERT_EQ(t->processes[th.process.value].pid, uint32_t(100 + i % 2)) << r;
        ASSERT_EQ(t->str(a.name[r]), "api" + std::to_string(1 + (i * 13) % names)) << r;
        const int32_t result = i % 5 == 0    ? ls::kNoApiResult
                               : i % 7 == 0  ? 2147483647
                               : i % 11 == 0 ? -3
                                             : int32_t(i % 4);
        ASSERT_EQ(a.result[r], result) << r;
    }
    const auto& k = t->kernels;
    ASSERT_EQ(k.size(), 300000u);
    EXPECT_EQ(t->streams.size(), 20u);
    EXPECT_EQ(t->report.count(Anomaly::OrphanGpuOp), 0u);
    for (size_t r = 0; r < k.size(); ++r) {
        const int64_t j = int64_t(k.correlation[r]) - 1;
        ASSERT_EQ(k.start[r], 10 * ((j * 11) % 300000) + 3) << r;
        const ls::Stream& s = t->streamOf(k, r);
        ASSERT_EQ(t->processes[s.process.value].pid, uint32_t(100 + j % 2)) << r;
        ASSERT_EQ(s.device, uint32_t(j % 2)) << r;
        ASSERT_EQ(s.context, uint32_t(1 + (j / 7) % 2)) << r;
        ASSERT_EQ(s.stream, uint32_t(7 + j % 5)) << r;
        ASSERT_TRUE(k.launch[r].valid()) << r;
        ASSERT_EQ(a.correlationOf(k.launch[r].value), k.correlation[r]) << r;
    }
}

TEST(SchemaVariants, ApiCallsAndStreamsInSeveralChunksReadBack) {
    expectCallsAndStreamsReadBack(1000);
}

TEST(SchemaVariants, ApiCallsWithMoreThan65536NamesReadBackWide) {
    expectCallsAndStreamsReadBack(70000);
}

// The laziest useful export: kernels and their names, no runtime calls, no NVTX, no memcpy.
TEST(SchemaVariants, KernelsAndStringIdsOnlyLoadWithOrphansCounted) {
    TempDir dir;
    const auto t = load(dir, cat({kStringIds, kKernelTable, R"(
        INSERT INTO StringIds VALUES (1, 'void gemm<float, 128>(int, float*)'), (2, 'gemm');
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName, gridX, blockX, registersPerThread)
            VALUES (2000, 2500, 8, 1, 2, 64, 256, 40), (1000, 1300, 7, 1, 2, 32, 128, 40);
    )"}));
    ASSERT_TRUE(t);
    ASSERT_EQ(t->kernels.size(), 2u);
    EXPECT_EQ(t->kernels.start, (std::vector<int64_t>{1000, 2000})) << "sorted by start";
    EXPECT_EQ(t->str(t->kernels.name[0]), "void gemm<float, 128>(int, float*)");
    EXPECT_EQ(t->str(t->kernels.shortName[0]), "gemm");
    EXPECT_EQ(t->kernels.grid[1], (ls::Dim3{64, 1, 1}));
    EXPECT_EQ(t->kernels.block[1], (ls::Dim3{256, 1, 1}));
    EXPECT_EQ(t->kernels.registers[0], 40);
    EXPECT_EQ(t->kernels.smemConfig[0], 0u)
        << "no sharedMemoryExecuted (older exports): the carveout is unknown, which is no anomaly";
    EXPECT_FALSE(t->kernels.launch[0].valid());
    EXPECT_EQ(t->report.count(Anomaly::OrphanGpuOp), 2u);
    EXPECT_EQ(t->apiCalls.size(), 0u);
    EXPECT_EQ(t->ranges.size(), 0u);
    for (const char* table : {"CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS",
                              "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"})
        EXPECT_TRUE(hasDetail(*t, Anomaly::MissingTable, table)) << table;
    EXPECT_EQ(t->report.count(Anomaly::MissingColumn), 0u);
    EXPECT_EQ(t->report.count(Anomaly::ExtraColumns), 0u);
    ASSERT_EQ(t->devices.size(), 1u)
        << "a used device missing from TARGET_INFO_GPU is still listed";
    EXPECT_EQ(t->devices[0].name, "GPU 0");
    EXPECT_EQ(t->captureStart, 1000);
    EXPECT_EQ(t->captureEnd, 2500);
}

// Older exports write a CUDA backtrace row (eventClass 67) beside each call, with the same
// correlation id. Correlation ids are per process: process 200's id 5 is another call.
TEST(SchemaVariants, BacktraceRowIsDroppedAndEachCallCountedOnce) {
    TempDir dir;
    const auto t = load(dir, cat({kStringIds, kKernelTable, kRuntimeTable, R"(
        INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel'), (2, 'cudaLaunchKernel_v7000'), (3, 'k'), (4, 'cuLaunchKernelEx');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, eventClass, globalTid, correlationId, nameId) VALUES
            (100, 190, 67, (100 << 24) | 101, 5, 1),
            (100, 200, 0, (100 << 24) | 101, 5, 2),
            (150, 170, 1, (200 << 24) | 201, 5, 4);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, globalPid, demangledName, shortName) VALUES
            (300, 400, 5, 100 << 24, 3, 3),
            (350, 450, 5, 200 << 24, 3, 3);
    )"}));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->apiCalls.size(), 2u);
    EXPECT_EQ(t->report.count(Anomaly::DuplicateRuntimeRow), 1u);
    ASSERT_TRUE(t->kernels.launch[0].valid());
    ASSERT_TRUE(t->kernels.launch[1].valid());
    const auto call0 = t->kernels.launch[0].value, call1 = t->kernels.launch[1].value;
    EXPECT_EQ(t->str(t->apiCalls.name[call0]), "cudaLaunchKernel_v7000")
        << "the call is kept, not its backtrace row";
    EXPECT_EQ(t->apiCalls.end[call0], 200);
    EXPECT_EQ(t->apiCalls.kind[call0], ls::ApiKind::Runtime);
    EXPECT_EQ(t->str(t->apiCalls.name[call1]), "cuLaunchKernelEx")
        << "joined within the kernel's own process";
    EXPECT_EQ(t->apiCalls.kind[call1], ls::ApiKind::Driver);
    EXPECT_EQ(t->report.count(Anomaly::OrphanGpuOp), 0u);

    const auto rows = ls::apiSummary(*t);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].name, "cudaLaunchKernel") << "nsys 2022.4 strips _v7000";
    EXPECT_EQ(rows[0].stats.count, 1u);
    EXPECT_EQ(rows[0].stats.total, 100u);
}

TEST(SchemaVariants, UnknownColumnIsReportedAsExtraAndIgnored) {
    TempDir dir;
    const auto t = load(dir, cat({kStringIds, kRuntimeTable, R"(
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
            streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER,
            mangledName INTEGER, launchType INTEGER, registersPerThread INTEGER, gridX INTEGER, gridY INTEGER,
            gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER, staticSharedMemory INTEGER,
            dynamicSharedMemory INTEGER, quantumEntanglement INTEGER);
        INSERT INTO StringIds VALUES (1, 'k');
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 0, 1, 7, 1, 100 << 24, 1, 1, 1, 0, 16, 1, 1, 1, 32, 1, 1, 0, 0, 42);
    )"}));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->kernels.size(), 1u);
    EXPECT_EQ(t->report.count(Anomaly::ExtraColumns), 1u)
        << "mangledName and launchType are known, only the new one counts";
    EXPECT_TRUE(
        hasDetail(*t, Anomaly::ExtraColumns, "CUPTI_ACTIVITY_KIND_KERNEL.quantumEntanglement"));
}

TEST(SchemaVariants, MissingOptionalColumnsLoadWithEmptyValues) {
    TempDir dir;
    const auto t = load(dir, cat({kStringIds, R"(
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
            streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);
        INSERT INTO StringIds VALUES (1, 'kernel_without_short_name');
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 25, 0, 1, 7, 1, 100 << 24, 1);
    )"}));
    ASSERT_TRUE(t);
    ASSERT_EQ(t->kernels.size(), 1u);
    EXPECT_EQ(t->str(t->kernels.name[0]), "kernel_without_short_name");
    EXPECT_EQ(t->str(t->kernels.shortName[0]), "");
    EXPECT_EQ(t->kernels.registers[0], 0);
    EXPECT_EQ(t->kernels.duration(0), 15);
    EXPECT_TRUE(hasDetail(*t, Anomaly::MissingColumn, "CUPTI_ACTIVITY_KIND_KERNEL.shortName"));
    EXPECT_TRUE(hasDetail(*t, Anomaly::MissingColumn, "CUPTI_ACTIVITY_KIND_KERNEL.gridX"));
}

TEST(SchemaVariants, TableWithoutARequiredColumnIsSkippedNotFatal) {
    TempDir dir;
    const auto t = load(dir, cat({kStringIds, kRuntimeTable, R"(
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, correlationId INTEGER, demangledName INTEGER);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 1, 1);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId) VALUES (1, 5, 1, 1);
    )"}));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->kernels.size(), 0u);
    EXPECT_EQ(t->apiCalls.size(), 1u);
    EXPECT_TRUE(hasDetail(*t, Anomaly::MissingColumn, "CUPTI_ACTIVITY_KIND_KERNEL.end"));
}

TEST(SchemaVariants, NegativeDurationIsClampedAndCounted) {
    TempDir dir;
    const auto t = load(dir, cat({kStringIds, kKernelTable, kRuntimeTable, R"(
        INSERT INTO StringIds VALUES (1, 'k'), (2, 'cudaLaunchKernel');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId) VALUES (100, 90, 1, 2);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName)
            VALUES (500, 400, 1, 1, 1), (600, 700, 1, 1, 1);
    )"}));
    ASSERT_TRUE(t);
    ASSERT_EQ(t->kernels.size(), 2u);
    EXPECT_EQ(t->kernels.end[0], 500);
    EXPECT_EQ(t->kernels.duration(0), 0);
    EXPECT_EQ(t->kernels.duration(1), 100);
    EXPECT_EQ(t->apiCalls.end[0], 100);
    EXPECT_EQ(t->report.count(Anomaly::NegativeDuration), 2u);
}

TEST(SchemaVariants, NullStartIsSkippedAndUnknownNameIdCounted) {
    TempDir dir;
    const auto t = load(dir, cat({kStringIds, kKernelTable, R"(
        INSERT INTO StringIds VALUES (1, 'k');
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName)
            VALUES (NULL, 400, 1, 1, 1), (600, 700, 2, 99, 1);
    )"}));
    ASSERT_TRUE(t);
    ASSERT_EQ(t->kernels.size(), 1u);
    EXPECT_EQ(t->report.count(Anomaly::NullTimestamp), 1u);
    EXPECT_EQ(t->str(t->kernels.name[0]), "");
    EXPECT_TRUE(
        hasDetail(*t, Anomaly::UnknownStringId, "CUPTI_ACTIVITY_KIND_KERNEL.demangledName"));
}

TEST(SchemaVariants, OutOfRangeIdsAreClampedAndCounted) {
    TempDir dir;
    const auto t = load(dir, cat({kStringIds, kKernelTable, R"(
        INSERT INTO StringIds VALUES (1, 'k');
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, correlationId, demangledName, shortName)
            VALUES (10, 20, -1, 1 << 40, 1, 1);
    )"}));
    ASSERT_TRUE(t);
    ASSERT_EQ(t->kernels.size(), 1u);
    EXPECT_EQ(t->streamOf(t->kernels, 0).device, 0u);
    EXPECT_EQ(t->kernels.correlation[0], UINT32_MAX);
    EXPECT_EQ(t->report.count(Anomaly::ValueOutOfRange), 2u);
}

// Rows deleted from an export leave rowid gaps; the loader reads by rowid windows.
TEST(SchemaVariants, RowidGapsAreNotRows) {
    TempDir dir;
    const auto t = load(dir, cat({kStringIds, kKernelTable, R"(
        INSERT INTO StringIds VALUES (1, 'k');
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(rowid, start, end, correlationId, demangledName, shortName)
            VALUES (3, 30, 35, 1, 1, 1), (7, 10, 12, 2, 1, 1), (1000, 20, 29, 3, 1, 1), (1001, 40, 41, 4, 1, 1);
        DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid = 1000;
    )"}));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->kernels.start, (std::vector<int64_t>{10, 30, 40}));
    EXPECT_EQ(t->kernels.correlation, (std::vector<uint32_t>{2, 1, 4}));
    EXPECT_EQ(t->report.count(Anomaly::NullTimestamp), 0u);
    EXPECT_EQ(t->streams.size(), 1u);
}

// A rowid far beyond what the file could hold must not size the columns by the rowid span
// (that asked for gigabytes); such tables are read in row order instead.
TEST(SchemaVariants, SparseRowidsLoadWithoutSizingByTheSpan) {
    TempDir dir;
    const auto t = load(dir, cat({kStringIds, kKernelTable, R"(
        INSERT INTO StringIds VALUES (1, 'k');
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(rowid, start, end, correlationId, demangledName, shortName)
            VALUES (1, 30, 35, 1, 1, 1), (4000000000000, 10, 12, 2, 1, 1), (9000000000000000000, 20, 29, 3, 1, 1);
    )"}));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->kernels.start, (std::vector<int64_t>{10, 20, 30}));
    EXPECT_EQ(t->kernels.correlation, (std::vector<uint32_t>{2, 3, 1}));
}

TEST(SchemaVariants, MemcpyAndMemsetColumnsAreRead) {
    TempDir dir;
    const auto t = load(dir, cat({kStringIds, R"(
        CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
            streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
            streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, value INTEGER);
        INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (10, 20, 0, 1, 7, 1, 100 << 24, 4096, 1),
            (30, 40, 0, 1, 7, 2, 100 << 24, 8, 2), (50, 60, 1, 2, 9, 3, 100 << 24, 16, 8);
        INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (70, 80, 0, 1, 7, 4, 100 << 24, 1024, 255);
    )"}));
    ASSERT_TRUE(t);
    ASSERT_EQ(t->memcpys.size(), 3u);
    EXPECT_EQ(t->memcpys.bytes[0], 4096u);
    EXPECT_EQ(t->memcpys.kind, (std::vector<ls::CopyKind>{ls::CopyKind::HtoD, ls::CopyKind::DtoH,
                                                          ls::CopyKind::DtoD}));
    ASSERT_EQ(t->memsets.size(), 1u);
    EXPECT_EQ(t->memsets.value[0], 255);
    EXPECT_EQ(t->memsets.bytes[0], 1024u);
    EXPECT_EQ(t->streams.size(), 2u) << "(process, device, context, stream) 0/1/7 and 1/2/9";
    EXPECT_EQ(t->devices.size(), 2u);
    EXPECT_EQ(t->report.count(Anomaly::OrphanGpuOp), 4u);
}

} // namespace
