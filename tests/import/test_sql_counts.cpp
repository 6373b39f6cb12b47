// The loaded model holds what SQL counts in the same export, for every real Nsight Systems trace:
// events per kind, API calls once per (process, correlation id), NVTX ranges, threads,
// processes, streams and devices, each kernel's launching call, and the load report's counters.
#include "core/load/load.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sqlite3.h>

namespace {

using namespace ls::test;

const char* const kGpuTables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                  "CUPTI_ACTIVITY_KIND_MEMSET"};
const char* const kRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME";
const char* const kNvtx = "NVTX_EVENTS";
const char* const kUsedNvtxTypes = "eventType IN (34, 59, 60)"; // mark, push/pop, start/end

class SqlCounts : public ::testing::TestWithParam<TraceCase> {
  protected:
    void SetUp() override {
        LS_REQUIRE_FILE(GetParam().path);
        auto r = ls::loadTrace(GetParam().path.string());
        ASSERT_TRUE(r.ok()) << r.error->reason;
        trace = r.trace;
        sql = std::make_unique<SqlReader>(GetParam().path);
        ASSERT_TRUE(sql->ok());
    }

    int64_t countRows(const std::string& table, const std::string& where = "") const {
        if (!sql->hasTable(table)) return 0;
        return sql->scalar("SELECT count(*) FROM " + table +
                           (where.empty() ? "" : " WHERE " + where));
    }

    // SELECT DISTINCT cols FROM each GPU table that exists, joined with UNION.
    std::string gpuUnion(const std::string& cols) const {
        std::string q;
        for (const char* t : kGpuTables) {
            if (!sql->hasTable(t)) continue;
            if (!q.empty()) q += " UNION ";
            q += "SELECT DISTINCT " + cols + " FROM " + t;
        }
        return q;
    }

    bool isTrace(const char* name) const { return GetParam().name == name; }

    std::shared_ptr<const ls::Trace> trace;
    std::unique_ptr<SqlReader> sql;
};

TEST_P(SqlCounts, EventsPerKind) {
    EXPECT_EQ(trace->kernels.size(), countRows(kGpuTables[0]));
    EXPECT_EQ(trace->memcpys.size(), countRows(kGpuTables[1]));
    EXPECT_EQ(trace->memsets.size(), countRows(kGpuTables[2])) << "0 when the table is absent";
    EXPECT_EQ(
        trace->apiCalls.size(),
        sql->scalar(
            std::string(
                "SELECT count(*) FROM (SELECT DISTINCT globalTid >> 24, correlationId FROM ") +
            kRuntime + ")"))
        << "one call per (process, correlation id)";
    EXPECT_EQ(trace->ranges.size(), countRows(kNvtx, kUsedNvtxTypes));
    size_t marks = 0;
    for (auto k : trace->ranges.kind) marks += k == ls::RangeKind::Mark;
    EXPECT_EQ(marks, countRows(kNvtx, "eventType = 34"));
    if (isTrace("gpt2_2layer_fp16_h200")) { // the numbers shared/traces/README.md gives
        EXPECT_EQ(trace->kernels.size(), 214u);
        EXPECT_EQ(trace->apiCalls.size(), 482u);
    }
}

TEST_P(SqlCounts, ThreadsProcessesStreamsAndDevices) {
    std::string threads = std::string("SELECT DISTINCT globalTid FROM ") + kRuntime;
    std::string processes =
        gpuUnion("globalPid >> 24") + " UNION SELECT globalTid >> 24 FROM " + kRuntime;
    if (sql->hasTable(kNvtx)) {
        threads +=
            std::string(" UNION SELECT globalTid FROM ") + kNvtx + " WHERE " + kUsedNvtxTypes;
        processes +=
            std::string(" UNION SELECT globalTid >> 24 FROM ") + kNvtx + " WHERE " + kUsedNvtxTypes;
    }
    EXPECT_EQ(trace->threads.size(), sql->scalar("SELECT count(*) FROM (" + threads + ")"));
    EXPECT_EQ(trace->processes.size(), sql->scalar("SELECT count(*) FROM (" + processes + ")"));
    EXPECT_EQ(trace->streams.size(),
              sql->scalar("SELECT count(*) FROM (" +
                          gpuUnion("globalPid >> 24, deviceId, contextId, streamId") + ")"));

    std::set<int64_t> referenced, model, listed, targetInfo;
    sql->each(gpuUnion("deviceId"),
              [&](sqlite3_stmt* st) { referenced.insert(SqlReader::int64(st, 0)); });
    for (const auto* ops : std::initializer_list<const ls::GpuOpColumns*>{
             &trace->kernels, &trace->memcpys, &trace->memsets})
        for (size_t i = 0; i < ops->size(); ++i) model.insert(trace->streamOf(*ops, i).device);
    EXPECT_EQ(model, referenced) << "devices the GPU operations run on";
    for (const auto& d : trace->devices) listed.insert(d.id);
    for (int64_t id : referenced)
        EXPECT_TRUE(listed.count(id)) << "device " << id << " is used but not listed";
    if (sql->hasTable("TARGET_INFO_GPU"))
        sql->each("SELECT DISTINCT id FROM TARGET_INFO_GPU",
                  [&](sqlite3_stmt* st) { targetInfo.insert(SqlReader::int64(st, 0)); });
    targetInfo.insert(referenced.begin(), referenced.end());
    EXPECT_EQ(listed, targetInfo) << "devices: TARGET_INFO_GPU plus any used GPU it lacks";
}

// Each range's packed source row is its NVTX_EVENTS row, and its thread (from the per-thread
// grouping, the column itself is not kept) is that row's globalTid; start times agree.
TEST_P(SqlCounts, EveryRangeKnowsItsSourceRowAndThread) {
    if (!sql->hasTable(kNvtx)) GTEST_SKIP() << "no NVTX table";
    struct Row {
        int64_t start, tid;
        std::optional<int64_t> end; // none: unended
    };
    std::map<int64_t, Row> byRowid;
    sql->each(std::string("SELECT rowid, start, globalTid, end, eventType FROM ") + kNvtx +
                  " WHERE " + kUsedNvtxTypes,
              [&](sqlite3_stmt* st) {
                  const int64_t start = SqlReader::int64(st, 1);
                  std::optional<int64_t> end = start; // a mark
                  if (SqlReader::int64(st, 4) != 34)  // not a mark
                      end = sqlite3_column_type(st, 3) == SQLITE_NULL
                                ? std::nullopt
                                : std::optional(std::max(start, SqlReader::int64(st, 3)));
                  byRowid[SqlReader::int64(st, 0)] = {start, SqlReader::int64(st, 2), end};
              });
    const auto& r = trace->ranges;
    ASSERT_EQ(trace->rangeSourceRows.size(), r.size());
    EXPECT_TRUE(r.importThread.empty() && r.importSourceRow.empty()) << "released at assembly";
    std::set<uint32_t> seen;
    for (uint32_t i = 0; i < r.size(); ++i) {
        const uint32_t row = trace->rangeSourceRows.at(i);
        const auto it = byRowid.find(row);
        ASSERT_NE(it, byRowid.end()) << "range " << i << " row " << row;
        EXPECT_TRUE(seen.insert(row).second) << "row " << row << " twice";
        EXPECT_EQ(r.start[i], it->second.start) << "range " << i;
        EXPECT_EQ(r.end[i], it->second.end.value_or(std::max(trace->captureEnd, r.start[i])))
            << "range " << i << " (an unended one ends at the capture end)";
        const auto& th = trace->threads[trace->rangeThread(ls::RangeId(i)).value];
        EXPECT_EQ(th.tid, static_cast<uint32_t>(it->second.tid & 0xFFFFFF)) << "range " << i;
        EXPECT_EQ(trace->processes[th.process.value].pid,
                  static_cast<uint32_t>((it->second.tid >> 24) & 0xFFFFFF))
            << "range " << i;
        if (HasFailure()) return;
    }
}

// Each kernel's launch is the runtime row of its process with its correlation id (the call, not
// the backtrace row of older exports), whatever the API's name.
TEST_P(SqlCounts, KernelLaunchesJoinTheRuntimeRowOfTheirProcess) {
    const auto& k = trace->kernels;
    size_t i = 0, joined = 0;
    sql->each(
        std::string("SELECT k.start, k.correlationId, (SELECT s.value FROM ") + kRuntime +
            " r JOIN StringIds s ON s.id = r.nameId WHERE r.correlationId = k.correlationId"
            " AND (r.globalTid >> 24) = (k.globalPid >> 24) ORDER BY r.eventClass = 67 LIMIT 1)"
            " FROM CUPTI_ACTIVITY_KIND_KERNEL k ORDER BY k.start, k.rowid",
        [&](sqlite3_stmt* st) {
            if (i >= k.size()) {
                ++i;
                return;
            }
            EXPECT_EQ(k.start[i], SqlReader::int64(st, 0)) << "kernel " << i;
            EXPECT_EQ(k.correlation[i], SqlReader::int64(st, 1)) << "kernel " << i;
            const ls::ApiCallId call = k.launch[i];
            if (SqlReader::isNull(st, 2)) {
                EXPECT_FALSE(call.valid()) << "kernel " << i << " has no runtime row but a launch";
            } else if (call.valid()) {
                ++joined;
                EXPECT_EQ(trace->str(trace->apiCalls.name[call.value]), SqlReader::text(st, 2))
                    << "kernel " << i;
                EXPECT_EQ(trace->apiCalls.correlationOf(call.value), k.correlation[i]);
                const auto thread = trace->apiCalls.thread[call.value];
                EXPECT_EQ(trace->threads[thread.value].process, trace->streamOf(k, i).process)
                    << "kernel " << i;
                const auto [first, last] = trace->apiKernels.of(call);
                EXPECT_NE(std::find(first, last, ls::KernelId(static_cast<uint32_t>(i))), last)
                    << "apiKernels lacks kernel " << i;
            } else {
                ADD_FAILURE() << "kernel " << i << " has a runtime row (" << SqlReader::text(st, 2)
                              << ") but no launch";
            }
            ++i;
        });
    EXPECT_EQ(i, k.size());
    EXPECT_GT(joined, 0u);
}

TEST_P(SqlCounts, LoadReportCountersMatchSql) {
    const auto& report = trace->report;
    const int64_t runtimeRows = countRows(kRuntime);
    EXPECT_EQ(report.count(ls::Anomaly::DuplicateRuntimeRow),
              runtimeRows - static_cast<int64_t>(trace->apiCalls.size()));
    EXPECT_EQ(report.count(ls::Anomaly::DuplicateRuntimeRow),
              isTrace("saxpy_mpi_perlmutter.nsys") ? 38u : 0u);

    int64_t orphans = 0;
    for (const char* t : kGpuTables)
        orphans += countRows(t, std::string("NOT EXISTS (SELECT 1 FROM ") + kRuntime +
                                    " r WHERE r.correlationId = " + t +
                                    ".correlationId AND (r.globalTid >> 24) = (" + t +
                                    ".globalPid >> 24))");
    EXPECT_EQ(report.count(ls::Anomaly::OrphanGpuOp), orphans);
    EXPECT_EQ(report.count(ls::Anomaly::UnendedRange),
              countRows(kNvtx, "eventType IN (59, 60) AND end IS NULL"));

    const auto& missing = report.details(ls::Anomaly::MissingTable);
    for (const char* t : {kGpuTables[0], kGpuTables[1], kGpuTables[2], kRuntime, kNvtx}) {
        const bool reported = std::find(missing.begin(), missing.end(), t) != missing.end();
        EXPECT_EQ(reported, !sql->hasTable(t)) << t;
    }
    EXPECT_EQ(report.count(ls::Anomaly::MissingTable), missing.size());
    if (isTrace("cloverleaf_perlmutter.nsys")) {
        EXPECT_NE(std::find(missing.begin(), missing.end(), "NVTX_EVENTS"), missing.end());
        EXPECT_TRUE(trace->ranges.size() == 0);
    }
}

INSTANTIATE_TEST_SUITE_P(Traces, SqlCounts, ::testing::ValuesIn(goldenTraces()), traceParamName);

} // namespace
