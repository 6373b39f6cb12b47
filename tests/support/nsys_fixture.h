#pragma once
// SQL text for small Nsight Systems-shaped fixtures: the tables the loader reads, with column
// names as nsys 2025 exports them and defaults so a fixture row names only what a test is about.
// Process 100 has threads 101 and 102; process 200 has thread 201 (globalTid = pid << 24 | tid).
#include "core/load/load.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

namespace ls::test::fixture {

inline constexpr std::string_view kPid100 = "1677721600"; // 100 << 24
inline constexpr std::string_view kTid101 = "1677721701"; // 100 << 24 | 101
inline constexpr std::string_view kTid102 = "1677721702"; // 100 << 24 | 102
inline constexpr std::string_view kPid200 = "3355443200"; // 200 << 24
inline constexpr std::string_view kTid201 = "3355443401"; // 200 << 24 | 201

inline constexpr std::string_view kStringIds =
    "CREATE TABLE StringIds(id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);\n";

inline constexpr std::string_view kKernelTable = R"(
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(
  start INTEGER, end INTEGER, deviceId INTEGER DEFAULT 0, contextId INTEGER DEFAULT 1,
  streamId INTEGER DEFAULT 7, correlationId INTEGER, globalPid INTEGER DEFAULT 1677721600,
  demangledName INTEGER, shortName INTEGER, mangledName INTEGER, registersPerThread INTEGER DEFAULT 32,
  gridX INTEGER DEFAULT 1, gridY INTEGER DEFAULT 1, gridZ INTEGER DEFAULT 1,
  blockX INTEGER DEFAULT 128, blockY INTEGER DEFAULT 1, blockZ INTEGER DEFAULT 1,
  staticSharedMemory INTEGER DEFAULT 0, dynamicSharedMemory INTEGER DEFAULT 0);
)";

inline constexpr std::string_view kRuntimeTable = R"(
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(
  start INTEGER, end INTEGER, eventClass INTEGER DEFAULT 0, globalTid INTEGER DEFAULT 1677721701,
  correlationId INTEGER, nameId INTEGER, returnValue INTEGER DEFAULT 0, callchainId INTEGER);
)";

inline constexpr std::string_view kNvtxTable = R"(
CREATE TABLE NVTX_EVENTS(
  start INTEGER, end INTEGER, eventType INTEGER DEFAULT 59, rangeId INTEGER, category INTEGER,
  color INTEGER, text TEXT, globalTid INTEGER DEFAULT 1677721701, endGlobalTid INTEGER,
  textId INTEGER, domainId INTEGER DEFAULT 0);
)";

inline std::string cat(std::initializer_list<std::string_view> parts) {
    std::string s;
    for (auto p : parts) s += p;
    return s;
}

// Writes the fixture to dir/name.sqlite and loads it; fails the test when the load fails.
inline std::shared_ptr<const Trace> load(const TempDir& dir, std::string_view sql,
                                         std::string_view name = "fixture") {
    const auto file = dir / (std::string(name) + ".sqlite");
    writeSqliteFixture(file, sql);
    auto r = loadTrace(file.string());
    EXPECT_TRUE(r.ok()) << (r.error ? r.error->reason : std::string());
    return r.trace;
}

inline bool hasDetail(const Trace& t, Anomaly a, std::string_view detail) {
    const auto& d = t.report.details(a);
    return std::find(d.begin(), d.end(), detail) != d.end();
}

} // namespace ls::test::fixture
