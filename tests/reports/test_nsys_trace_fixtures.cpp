// nvtx_gpu_proj, gpu_trace and api_trace on small SQL fixtures: the cases the golden traces do not
// hold (identical ranges, a start/end range ending on another thread, an unended range, a graph
// launch, unified-memory copies, zero durations, failed calls, unnamed threads). The expected
// rows are what nsys stats 2022.4 prints for the same fixture, except where a comment says.
#include "tests/support/nsys_fixture.h"

#include <gtest/gtest.h>

namespace {

using namespace ls::test;
using namespace ls::test::fixture;

constexpr std::string_view kMemoryTables = R"(
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER, end INTEGER, deviceId INTEGER DEFAULT 0, contextId INTEGER DEFAULT 1,
  streamId INTEGER DEFAULT 7, correlationId INTEGER, globalPid INTEGER DEFAULT 1677721600, bytes INTEGER,
  copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start INTEGER, end INTEGER, deviceId INTEGER DEFAULT 0, contextId INTEGER DEFAULT 1,
  streamId INTEGER DEFAULT 7, correlationId INTEGER, globalPid INTEGER DEFAULT 1677721600, bytes INTEGER,
  value INTEGER DEFAULT 0, memKind INTEGER);
CREATE TABLE TARGET_INFO_GPU(id INTEGER, name TEXT);
INSERT INTO TARGET_INFO_GPU VALUES (0, 'Test GPU');
CREATE TABLE ThreadNames(nameId INTEGER, priority INTEGER, globalTid INTEGER);
INSERT INTO StringIds VALUES (90, 'main thread'), (91, 'cudaLaunchKernel_v7000'), (92, 'cudaGraphLaunch_v10000'),
                             (93, 'cudaMemcpyAsync_v3020'), (94, 'k1'), (95, 'k2');
INSERT INTO ThreadNames VALUES (90, 5, 1677721701);
)";

std::vector<std::string> csvLines(const CliResult& r) {
    EXPECT_EQ(r.rc, 0) << r.err;
    return splitLines(r.out);
}

// Thread 101: outer [0, 1000] holds a [100, 200] (one launch), twins b and b2 [400, 500] (one
// graph launch of two kernels), start/end range se [105, 450], a start/end range ending on thread
// 102 (left out), nogpu (no work) and an unended range from 880 (ends at 1000, the last NVTX time).
constexpr std::string_view kProjection = R"(
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId) VALUES
    (110, 120, 1, 91), (410, 420, 2, 92), (900, 910, 3, 93);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName) VALUES
    (300, 350, 1, 94), (600, 650, 2, 94), (660, 700, 2, 95);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(start, end, correlationId, bytes, copyKind, srcKind, dstKind) VALUES
    (920, 990, 3, 4096, 1, 1, 2);
INSERT INTO NVTX_EVENTS(rowid, start, end, eventType, text, endGlobalTid) VALUES
    (1, 0, 1000, 59, 'outer', NULL), (2, 100, 200, 59, 'a', NULL), (3, 400, 500, 59, 'b', NULL),
    (4, 400, 500, 59, 'b2', NULL), (5, 105, 450, 60, 'se', NULL), (6, 0, 1000, 60, 'elsewhere', 1677721702),
    (7, 700, 800, 59, 'nogpu', NULL), (8, 880, NULL, 59, 'unended', NULL);
)";

TEST(NvtxGpuProjectionFixture, NestingCyclesGraphLaunchesAndUnendedRangesAsNsys2022) {
    TempDir dir;
    const auto file = dir / "projection.sqlite";
    writeSqliteFixture(file, cat({kStringIds, kKernelTable, kRuntimeTable, kNvtxTable,
                                  kMemoryTables, kProjection}));
    const auto lines = csvLines(runCli({"summary", file.string(), "--report", "nvtx_gpu_proj"}));
    // b and b2 are each other's parent (tightness 0): a cycle no root reaches, so no level,
    // parent id or stack; each counts the other as its child.
    EXPECT_EQ(lines, (std::vector<std::string>{
                         "Name,Projected Start (ns),Projected Duration (ns),Orig Start (ns),Orig "
                         "Duration (ns),Style,PID,TID,"
                         "NumGPUOps,Lvl,NumChild,RangeId,ParentId,RangeStack",
                         "outer,300,690,0,1000,PushPop,100,101,3,0,3,1,None,:1",
                         "a,300,50,100,100,PushPop,100,101,1,1,0,2,1,:1:2",
                         "b,600,100,400,100,PushPop,100,101,1,None,1,3,None,None",
                         "b2,600,100,400,100,PushPop,100,101,1,None,1,4,None,None",
                         "se,300,400,105,345,StartEnd,100,101,2,1,0,5,1,:1:5",
                         "unended,920,70,880,120,PushPop,100,101,1,1,0,8,1,:1:8",
                     }));
}

// Where nsys 2024's nvtx_gpu_proj_trace changed 2022.4's rules, ours follows 2024: a domain named
// through textId prefixes its ranges (2022.4: "r"), and an unended range ends at the last range
// time (200), not at a later mark (2022.4: 500, Orig Duration 400, so u was no child of r and
// both had level 0).
TEST(NvtxGpuProjectionFixture, FollowsNsys2024ForDomainTextIdsAndUnendedRangesPastMarks) {
    TempDir dir;
    const auto file = dir / "newer.sqlite";
    writeSqliteFixture(file,
                       cat({kStringIds, kKernelTable, kRuntimeTable, kNvtxTable, kMemoryTables, R"(
        INSERT INTO StringIds VALUES (80, 'Dom');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId) VALUES (110, 120, 1, 91);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName) VALUES (300, 350, 1, 94);
        INSERT INTO NVTX_EVENTS(rowid, start, end, eventType, text, textId, domainId) VALUES
            (1, -5, NULL, 75, NULL, 80, 1), (2, 0, 200, 59, 'r', NULL, 1), (3, 100, NULL, 59, 'u', NULL, 0),
            (4, 500, NULL, 34, 'mark', NULL, 0);
    )"}));
    const auto lines = csvLines(runCli({"summary", file.string(), "--report", "nvtx_gpu_proj"}));
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[1], "Dom:r,300,50,0,200,PushPop,100,101,1,0,1,2,None,:2");
    EXPECT_EQ(lines[2], "u,300,50,100,100,PushPop,100,101,1,1,0,3,2,:2:3");
}

TEST(GpuTraceFixture, MemoryKindsUnifiedCopiesZeroDurationsAndSets) {
    TempDir dir;
    const auto file = dir / "gputrace.sqlite";
    writeSqliteFixture(file,
                       cat({kStringIds, kKernelTable, kRuntimeTable, kNvtxTable, kMemoryTables, R"(
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, staticSharedMemory, dynamicSharedMemory)
            VALUES (100, 150, 1, 94, 1400, 2600);
        INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(start, end, correlationId, bytes, copyKind, srcKind, dstKind) VALUES
            (100, 100, 2, 1000, 11, 4, 4), (200, 300, 3, 3000000, 20, 9, NULL);
        INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET(start, end, correlationId, bytes, memKind, deviceId) VALUES (250, 251, 4, 4, 2, 3);
    )"}));
    const auto lines = csvLines(runCli({"summary", file.string(), "--report", "gpu_trace"}));
    EXPECT_EQ(lines,
              (std::vector<std::string>{
                  "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem "
                  "(MB),DymSMem (MB),"
                  "Bytes (MB),Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name",
                  "100,50,1,1,1,1,128,1,1,32,0.001,0.003,None,,None,None,Test GPU (0),1,7,k1",
                  // zero duration: SQLite's x / 0 is NULL
                  "100,0,2,None,None,None,None,None,None,None,None,None,0.001,None,Managed,Managed,"
                  "Test GPU (0),1,7,"
                  "[CUDA Unified Memory memcpy HtoD]",
                  // copy and memory kinds nsys does not name: None
                  "200,100,3,None,None,None,None,None,None,None,None,None,3.000,30000000.000,None,"
                  "None,Test GPU (0),1,7,None",
                  // device 3 has no TARGET_INFO_GPU row. nsys prints " (3)" (SQLite's printf
                  // of a NULL name); ours names it as the rest of Layerscope does
                  "250,1,4,None,None,None,None,None,None,None,None,None,0.000,4000.000,Device,None,"
                  "GPU 3 (3),1,7,[CUDA memset]",
              }));
}

TEST(ApiTraceFixture, ResultsPrioritiesAndUnnamedThreads) {
    TempDir dir;
    const auto file = dir / "apitrace.sqlite";
    writeSqliteFixture(file,
                       cat({kStringIds, kKernelTable, kRuntimeTable, kNvtxTable, kMemoryTables, R"(
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId, returnValue, globalTid) VALUES
            (10, 20, 1, 91, 0, 1677721701), (30, 45, 2, 93, 700, 1677721702), (50, 51, 3, 92, NULL, 1677721701);
    )"}));
    const auto lines = csvLines(runCli({"summary", file.string(), "--report", "api_trace"}));
    EXPECT_EQ(
        lines,
        (std::vector<std::string>{
            "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name",
            "10,10,cudaLaunchKernel,0,1,100,101,5,main thread",
            "30,15,cudaMemcpyAsync,700,2,100,102,None,None",            // no ThreadNames row
            "50,1,cudaGraphLaunch_v10000,None,3,100,101,5,main thread", // "_v10000": 2022.4 strips
                                                                        // six characters only
        }));
}

} // namespace
