// GPU idle time and its causes on the bundled sample and the five-iteration trace: per device
// busy + idle = span with busy equal to an interval sweep over SQL rows, every gap between two
// GPU operations found, and the largest gaps' causes checked by hand against SQL.
#include "core/load/load.h"
#include "core/reports/gpu_idle.h"
#include "core/reports/launch_bound.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <numeric>
#include <sqlite3.h>

namespace ls::test {
namespace {

struct Sweep {
    int64_t busy = 0, first = INT64_MAX, last = INT64_MIN, gaps = 0;
};

Sweep sqlSweep(const fs::path& file, uint32_t device) {
    const SqlReader db(file);
    std::vector<std::pair<int64_t, int64_t>> ops;
    for (const char* table : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                              "CUPTI_ACTIVITY_KIND_MEMSET"}) {
        if (!db.hasTable(table)) continue;
        db.each(std::string("SELECT start, end FROM ") + table +
                    " WHERE deviceId = " + std::to_string(device),
                [&](sqlite3_stmt* st) {
                    ops.emplace_back(SqlReader::int64(st, 0), SqlReader::int64(st, 1));
                });
    }
    std::sort(ops.begin(), ops.end());
    Sweep s;
    int64_t coveredTo = INT64_MIN;
    for (const auto& [start, end] : ops) {
        s.first = std::min(s.first, start);
        if (coveredTo != INT64_MIN && start > coveredTo) ++s.gaps;
        const int64_t from = std::max(start, coveredTo);
        if (end > from) s.busy += end - from;
        coveredTo = std::max(coveredTo, end);
    }
    s.last = coveredTo;
    return s;
}

// The gaps with the trace their names view.
struct LoadedIdle {
    std::shared_ptr<const Trace> trace;
    GpuIdle idle;
};

LoadedIdle idleOf(const fs::path& file) {
    LoadResult r = loadTrace(file.string());
    EXPECT_TRUE(r.ok());
    GpuIdle idle = gpuIdle(*r.trace);
    return {std::move(r.trace), std::move(idle)};
}

TEST(GpuIdle, BusyPlusIdleIsTheSpanAndBusyEqualsAnSqlSweep) {
    for (const fs::path& file :
         {sampleTrace(), sourceDir() / "tests/data/iterations/gpt2_fp16_5it_h100.sqlite"}) {
        const auto [trace, idle] = idleOf(file);
        ASSERT_EQ(idle.devices.size(), 1u) << file;
        const DeviceBusy& d = idle.devices.front();
        const Sweep s = sqlSweep(file, d.device);
        EXPECT_EQ(d.busy, s.busy) << file;
        EXPECT_EQ(d.first, s.first) << file;
        EXPECT_EQ(d.last, s.last) << file;
        EXPECT_EQ(static_cast<int64_t>(idle.gaps.size()), s.gaps) << file;
        const TimeNs idleNs =
            std::accumulate(idle.gaps.begin(), idle.gaps.end(), TimeNs(0),
                            [](TimeNs a, const GpuGap& g) { return a + g.duration(); });
        EXPECT_EQ(d.busy + idleNs, d.span()) << file;
        // The summary's rows add up to the same idle time, with shares adding to 100 %.
        TimeNs summed = 0;
        double percent = 0;
        for (const IdleRow& r : idleSummary(idle)) summed += r.idle, percent += r.percent;
        EXPECT_EQ(summed, idleNs);
        EXPECT_NEAR(percent, 100.0, 1e-6);
    }
}

// By hand on the sample: the longest gap (0.80 ms) opens while the main thread (tid 654) waits in
// cudaStreamSynchronize (27,606,132-27,740,930 ns in the export), the GradScaler's check before
// the optimizer, and it ends with the optimizer's first multi_tensor_apply kernel. The second
// (0.66 ms) is the autograd thread inside the backward of the cuDNN attention, launching nothing.
TEST(GpuIdle, TheSamplesLargestGapsHaveTheirCauses) {
    auto [trace, idle] = idleOf(sampleTrace());
    std::sort(idle.gaps.begin(), idle.gaps.end(),
              [](const GpuGap& a, const GpuGap& b) { return a.duration() > b.duration(); });
    const GpuGap& first = idle.gaps[0];
    EXPECT_EQ(first.start, 27718209);
    EXPECT_EQ(first.end, 28520058);
    EXPECT_EQ(first.cause, IdleCause::Synchronization);
    EXPECT_EQ(first.detail, "cudaStreamSynchronize_v3020");
    EXPECT_EQ(first.tid, 654u);
    EXPECT_NE(first.next.find("multi_tensor_apply_kernel"), std::string::npos);
    const SqlReader db(sampleTrace());
    EXPECT_EQ(db.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON "
                        "s.id = r.nameId WHERE s.value LIKE "
                        "'cudaStreamSynchronize%' AND r.start <= 27718209 AND r.end >= 27718209 "
                        "AND r.globalTid % 16777216 = 654"),
              1);
    const GpuGap& second = idle.gaps[1];
    EXPECT_EQ(second.cause, IdleCause::HostOps);
    EXPECT_EQ(second.detail,
              "autograd::engine::evaluate_function: ScaledDotProductCudnnAttentionBackward0");
    EXPECT_EQ(second.tid, 683u);
    EXPECT_EQ(idleCauseHtaName(second.cause), "host wait");
    // Back-to-back kernels whose launch call started before the previous kernel ended: launch
    // overhead.
    const auto launch = std::count_if(idle.gaps.begin(), idle.gaps.end(),
                                      [](const GpuGap& g) { return g.cause == IdleCause::Launch; });
    EXPECT_GT(launch, 50);
    for (const GpuGap& g : idle.gaps)
        if (g.cause == IdleCause::Launch) {
            EXPECT_LT(g.duration(), 20000) << g.start; // launch gaps are short
        }
}

TEST(GpuIdle, CliReportsHaveTheirColumns) {
    const CliResult sum = runCli({"summary", sampleTrace().string(), "--report", "idle_sum"});
    ASSERT_EQ(sum.rc, 0) << sum.err;
    const CsvTable rows = parseCsv(sum.out);
    EXPECT_EQ(
        formatCsvRow(rows.at(0)),
        "device,cause,hta_category,detail,gaps,idle_ns,idle_pct,device_busy_ns,device_span_ns");
    const CliResult gaps = runCli({"summary", sampleTrace().string(), "--report", "gaps"});
    ASSERT_EQ(gaps.rc, 0) << gaps.err;
    const CsvTable g = parseCsv(gaps.out);
    EXPECT_EQ(formatCsvRow(g.at(0)), "device,start_ns,end_ns,duration_ns,cause,detail,op,tid,next");
    EXPECT_EQ(g.size(), 101u); // the 100 largest
    EXPECT_EQ(g.at(1)[3], "801849");
}

// Launch-bound kernels (GPU time shorter than their launch call's CPU time): the summary's rows
// add up to what SQL counts over the file, and their kernel and launch times to SQL sums.
TEST(LaunchBound, RowsAddUpToAnSqlCountOverTheFile) {
    LoadResult r = loadTrace(sampleTrace().string());
    ASSERT_TRUE(r.ok());
    uint64_t bound = 0;
    TimeNs kernelTime = 0, launchTime = 0;
    for (const LaunchBoundRow& row : launchBoundSummary(*r.trace)) {
        EXPECT_LE(row.launchBound, row.kernels);
        EXPECT_LT(row.kernelTime, row.launchTime);
        bound += row.launchBound;
        kernelTime += row.kernelTime;
        launchTime += row.launchTime;
    }
    const SqlReader db(sampleTrace());
    const std::string join = " FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME "
                             "r ON r.correlationId = k.correlationId "
                             "WHERE k.end - k.start < r.end - r.start";
    EXPECT_EQ(static_cast<int64_t>(bound), db.scalar("SELECT count(*)" + join));
    EXPECT_EQ(kernelTime, db.scalar("SELECT sum(k.end - k.start)" + join));
    EXPECT_EQ(launchTime, db.scalar("SELECT sum(r.end - r.start)" + join));
    EXPECT_GT(bound, 100u);
}

} // namespace
} // namespace ls::test
