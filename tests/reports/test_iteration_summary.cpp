// iter_sum and the iterations found at load, on a trace recorded for this project with five
// captured iterations (train.py --layers 2 --seq 256 --batch 4 --iters 7 --capture 2 --ncapture 5
// on an H100; the loop calls torch.cuda.synchronize() after each iteration range, so most of an
// iteration's GPU work runs after its range has ended): one row per iteration range with kernel
// counts equal to SQL; the GPU span and busy time of the work launched inside each range equal
// an interval sweep over SQL rows joined to their launch calls; forward + backward + optimizer
// equal the projection of the range within 1 %; and on a copy with the iteration ranges deleted
// (made here with SQL), the detected steps hold the same kernels.
#include "core/load/load.h"
#include "core/pytorch/iterations.h"
#include "core/reports/iteration_summary.h"
#include "core/views/layer_tree.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <sqlite3.h>

namespace ls::test {
namespace {

fs::path fiveIterations() {
    return sourceDir() / "tests/data/iterations/gpt2_fp16_5it_h100.sqlite";
}

std::shared_ptr<const Trace> load(const fs::path& file) {
    LoadResult r = loadTrace(file.string());
    EXPECT_TRUE(r.ok()) << file;
    return r.trace;
}

struct SqlIteration {
    std::string name;
    int64_t start, end, kernels;
};

std::vector<SqlIteration> sqlIterations(const fs::path& file, const char* pattern = "iteration %") {
    std::vector<SqlIteration> out;
    SqlReader db(file);
    db.each("SELECT text, start, end FROM NVTX_EVENTS WHERE text LIKE '" + std::string(pattern) +
                "' ORDER BY start",
            [&](sqlite3_stmt* st) {
                out.push_back(
                    {SqlReader::text(st, 0), SqlReader::int64(st, 1), SqlReader::int64(st, 2), 0});
            });
    for (auto& it : out)
        it.kernels = db.scalar(
            "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
            "ON r.correlationId = k.correlationId AND r.globalTid / 16777216 % 16777216 = "
            "k.globalPid / 16777216 % 16777216 "
            "WHERE r.start >= " +
            std::to_string(it.start) + " AND r.start <= " + std::to_string(it.end));
    return out;
}

// The GPU work launched inside [from, to] (its launch call starts there, any thread of the
// process), from SQL: its first start, last end, and busy time (a sweep over its kernel, copy
// and set rows).
struct SqlGpuWork {
    int64_t start = INT64_MAX, end = INT64_MIN, busy = 0;
};
SqlGpuWork sqlLaunchedWork(const SqlReader& db, int64_t from, int64_t to) {
    SqlGpuWork w;
    std::vector<std::pair<int64_t, int>> events;
    for (const char* table : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                              "CUPTI_ACTIVITY_KIND_MEMSET"}) {
        if (!db.hasTable(table)) continue;
        db.each(std::string("SELECT g.start, g.end FROM ") + table +
                    " g JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = g.correlationId "
                    "AND r.globalTid / 16777216 % 16777216 = g.globalPid / 16777216 % 16777216 "
                    "WHERE r.start >= " +
                    std::to_string(from) + " AND r.start <= " + std::to_string(to),
                [&](sqlite3_stmt* st) {
                    const int64_t s = SqlReader::int64(st, 0), e = SqlReader::int64(st, 1);
                    w.start = std::min(w.start, s);
                    w.end = std::max(w.end, e);
                    events.emplace_back(s, +1);
                    events.emplace_back(e, -1);
                });
    }
    std::sort(events.begin(), events.end());
    int64_t prev = 0;
    int open = 0;
    for (const auto& [time, delta] : events) {
        if (open > 0) w.busy += time - prev;
        open += delta;
        prev = time;
    }
    return w;
}

// nvtx_gpu_proj's span of a range: the first start to the last end of the kernels launched on
// the range's own thread inside it (NVIDIA's projection).
int64_t sqlProjection(const SqlReader& db, const std::string& rangeName) {
    return db.scalar("SELECT max(k.end) - min(k.start) FROM NVTX_EVENTS n JOIN "
                     "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.globalTid = n.globalTid "
                     "AND r.start >= n.start AND r.end <= n.end JOIN CUPTI_ACTIVITY_KIND_KERNEL k "
                     "ON k.correlationId = r.correlationId "
                     "AND r.globalTid / 16777216 % 16777216 = k.globalPid / 16777216 % 16777216 "
                     "WHERE n.text = '" +
                     rangeName + "'");
}

TEST(IterationSummary, OneRowPerIterationRangeWithSqlKernelCountsAndBusyTime) {
    const auto t = load(fiveIterations());
    const auto expected = sqlIterations(fiveIterations());
    ASSERT_EQ(expected.size(), 5u);
    EXPECT_EQ(t->iterationRule, IterationRule::Ranges);
    const IterationSummary s = iterationSummary(*t);
    ASSERT_EQ(s.rows.size(), expected.size());
    const SqlReader db(fiveIterations());
    for (size_t i = 0; i < expected.size(); ++i) {
        const IterationRow& r = s.rows[i];
        EXPECT_EQ(r.name, expected[i].name);
        EXPECT_EQ(r.start, expected[i].start);
        EXPECT_EQ(r.end, expected[i].end);
        EXPECT_EQ(static_cast<int64_t>(r.kernels), expected[i].kernels) << r.name;
        const SqlGpuWork work = sqlLaunchedWork(db, r.start, r.end);
        EXPECT_EQ(r.gpuStart, work.start) << r.name;
        EXPECT_EQ(r.gpuEnd, work.end) << r.name;
        EXPECT_EQ(r.busy, work.busy) << r.name;
        EXPECT_EQ(r.busy + r.idle, r.duration()) << r.name;
        EXPECT_LE(r.forward + r.backward + r.optimizer, r.busy + 1000)
            << "one stream: directions barely overlap";
        EXPECT_GT(r.forward, 0);
        EXPECT_GT(r.backward, 0);
        EXPECT_GT(r.optimizer, 0);
        EXPECT_EQ(r.duration(), sqlProjection(db, r.name))
            << r.name; // nvtx_gpu_proj's span of the range
    }
    EXPECT_EQ(s.median.kernels, 214u);
}

// The synchronize-after-range pattern on a GPU-bound step, recorded for this project on an H200
// (tests/data/iterations/README.md): each iteration range lasts ~38 ms on the CPU while the work it
// queued runs ~424 ms on the GPU, ending ~385 ms after the range. The iteration is that work:
// its span is the range's projection, its phases cover it within 1 % (the GPU never waits), and
// backward (launched by the autograd thread) and optimizer time are in it.
TEST(IterationSummary, GpuBoundStepIsMeasuredOnTheGpuNotOnItsCpuRange) {
    const fs::path file = sourceDir() / "tests/data/iterations/gpt4_bf16_b128_sync_h200.sqlite";
    const auto t = load(file);
    const auto expected = sqlIterations(file);
    ASSERT_EQ(expected.size(), 3u);
    const IterationSummary s = iterationSummary(*t);
    ASSERT_EQ(s.rows.size(), expected.size());
    const SqlReader db(file);
    for (size_t i = 0; i < expected.size(); ++i) {
        const IterationRow& r = s.rows[i];
        SCOPED_TRACE(r.name);
        EXPECT_EQ(static_cast<int64_t>(r.kernels), expected[i].kernels);
        const SqlGpuWork work = sqlLaunchedWork(db, r.start, r.end);
        EXPECT_EQ(r.gpuStart, work.start);
        EXPECT_EQ(r.gpuEnd, work.end);
        EXPECT_EQ(r.busy, work.busy);
        EXPECT_GT(r.gpuEnd - r.end, 300'000'000) << "most of the work runs after the range";
        const int64_t projection = sqlProjection(db, r.name);
        EXPECT_EQ(r.duration(), projection);
        const double phases = static_cast<double>(r.forward + r.backward + r.optimizer);
        EXPECT_NEAR(phases, static_cast<double>(projection),
                    0.01 * static_cast<double>(projection));
        EXPECT_GT(r.backward, r.duration() / 3) << "backward is most of a training step";
        EXPECT_GT(r.optimizer, 0);
        EXPECT_EQ(r.idle, r.duration() - r.busy);
        EXPECT_LT(r.idle, r.duration() / 100);
    }
    // The PyTorch profiler's trace of the same program: ProfilerStep#N (which also holds the
    // synchronize) around iteration N; the phases cover the GPU span there too.
    const auto k =
        load(sourceDir() / "tests/data/iterations/gpt4_bf16_b128_sync_h200.kineto.json.gz");
    const IterationSummary ks = iterationSummary(*k);
    ASSERT_EQ(ks.rows.size(), 2u);
    for (const IterationRow& r : ks.rows) {
        SCOPED_TRACE(r.name);
        EXPECT_NEAR(static_cast<double>(r.forward + r.backward + r.optimizer),
                    static_cast<double>(r.duration()), 0.01 * static_cast<double>(r.duration()));
        EXPECT_GT(r.backward, r.duration() / 3);
    }
}

TEST(IterationSummary, DetectsTheSameStepsWhenTheIterationRangesAreDeleted) {
    TempDir dir;
    const fs::path copy = dir / "no_iteration_ranges.sqlite";
    fs::copy_file(fiveIterations(), copy);
    fs::permissions(copy, fs::perms::owner_read | fs::perms::owner_write);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(copy.string().c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "DELETE FROM NVTX_EVENTS WHERE text LIKE 'iteration %'", nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);

    const auto t = load(copy);
    EXPECT_EQ(t->iterationRule, IterationRule::OptimizerSteps);
    EXPECT_GT(t->iterationConfidence, 0.9);
    EXPECT_EQ(t->report.count(Anomaly::IterationsDetected), 5u);
    const auto expected = sqlIterations(fiveIterations());
    const IterationSummary s = iterationSummary(*t);
    ASSERT_EQ(s.rows.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(static_cast<int64_t>(s.rows[i].kernels), expected[i].kernels) << i;
        // Each detected step ends with its optimizer run, inside the recorded iteration range.
        EXPECT_GT(s.rows[i].end, expected[i].start);
        EXPECT_LE(s.rows[i].end, expected[i].end);
    }
    // The layer tree's top level is the same detected steps, with the same kernels: one top node
    // per step, named as iter_sum names it, holding SQL's kernel count of the recorded range.
    const LayerTree tree = buildLayerTree(*t);
    std::vector<uint32_t> tops;
    for (uint32_t i = tree.childBegin[0]; i < tree.childBegin[1]; ++i)
        if (tree.kind[tree.children[i]] == LayerNodeKind::Range) tops.push_back(tree.children[i]);
    ASSERT_EQ(tops.size(), expected.size());
    for (size_t i = 0; i < tops.size(); ++i) {
        EXPECT_EQ(layerNodeName(*t, tree, tops[i]), s.rows[i].name);
        EXPECT_EQ(static_cast<int64_t>(tree.kernels[tops[i]]), expected[i].kernels)
            << s.rows[i].name;
    }
    // And on the trace with its ranges, the ranges head the tree with the same counts.
    const auto withRanges = load(fiveIterations());
    const LayerTree original = buildLayerTree(*withRanges);
    ASSERT_EQ(original.childBegin[1] - original.childBegin[0], expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        const uint32_t node = original.children[original.childBegin[0] + i];
        EXPECT_EQ(layerNodeName(*withRanges, original, node), expected[i].name);
        EXPECT_EQ(static_cast<int64_t>(original.kernels[node]), expected[i].kernels);
    }
}

// Inference without iteration ranges, recorded for this project (tests/data/iterations/README.md):
// five forward passes of a 2-layer GPT, each in an NVTX range "request N" that no iteration rule
// reads, so the ranges are the test's ground truth for the repeating-op detection.
TEST(IterationSummary, DetectsInferencePassesFromTheRepeatingOpSequence) {
    const fs::path file = sourceDir() / "tests/data/iterations/gpt2_infer_fp16_5pass_h100.sqlite";
    const auto t = load(file);
    EXPECT_EQ(t->iterationRule, IterationRule::RepeatingOps);
    EXPECT_GT(t->iterationConfidence, 0.95);
    const auto requests = sqlIterations(file, "request %");
    ASSERT_EQ(requests.size(), 5u);
    const IterationSummary s = iterationSummary(*t);
    ASSERT_EQ(s.rows.size(), requests.size());
    const SqlReader db(file);
    for (size_t i = 0; i < requests.size(); ++i) {
        SCOPED_TRACE(requests[i].name);
        EXPECT_EQ(s.rows[i].name, "pass " + std::to_string(i));
        EXPECT_GE(s.rows[i].start, requests[i].start); // the pass's ops lie inside its request
        EXPECT_LE(s.rows[i].end, requests[i].end);
        EXPECT_EQ(static_cast<int64_t>(s.rows[i].kernels), requests[i].kernels);
        EXPECT_EQ(s.rows[i].busy, sqlLaunchedWork(db, s.rows[i].start, s.rows[i].end).busy);
        EXPECT_EQ(s.rows[i].backward + s.rows[i].optimizer, 0) << "inference: forward only";
    }
    // The layer tree heads each pass's kernels with it.
    const LayerTree tree = buildLayerTree(*t);
    std::vector<uint32_t> passes;
    for (uint32_t i = tree.childBegin[0]; i < tree.childBegin[1]; ++i)
        if (layerNodeName(*t, tree, tree.children[i]).starts_with("pass "))
            passes.push_back(tree.children[i]);
    ASSERT_EQ(passes.size(), requests.size());
    for (size_t i = 0; i < passes.size(); ++i)
        EXPECT_EQ(static_cast<int64_t>(tree.kernels[passes[i]]), requests[i].kernels);
}

TEST(IterationSummary, RangesOfPytorchProfilerAndDdpTraces) {
    const fs::path kineto = sourceDir() / "tests/data/kineto/gpt2_2layer_fp16_h200.kineto.json.gz";
    const auto k = load(kineto);
    ASSERT_EQ(k->iterations.size(), 2u); // ProfilerStep#1/#2 around iteration N: counted once
    for (const auto& r : iterationSummary(*k).rows) EXPECT_EQ(r.kernels, 214u) << r.name;
    const fs::path ddp = sharedDir() / "traces/ddp_bf16_h200x2_rank0.sqlite";
    LS_REQUIRE_FILE(ddp);
    const auto d = load(ddp);
    const IterationSummary s = iterationSummary(*d);
    ASSERT_EQ(s.rows.size(), 2u);
    EXPECT_EQ(s.rows[0].name, "step 3 rank 0");
    EXPECT_GT(s.rows[0].comm, 0); // DDP's all-reduce
}

TEST(IterationSummary, OutliersAreBeyondOneAndAHalfInterquartileRanges) {
    EXPECT_EQ(iqrOutliers({10, 11, 12, 13, 100}), (std::vector<size_t>{4}));
    EXPECT_EQ(iqrOutliers({10, 10, 10}), std::vector<size_t>{}); // too few to judge
    // q1 = 24.42, q3 = 24.95 (interpolated): 26.6 and 23.17 lie beyond the fences.
    EXPECT_EQ(iqrOutliers({26.60, 24.42, 23.17, 24.41, 24.95}), (std::vector<size_t>{0, 2}));
}

TEST(IterationSummary, CliReportHasTheIssuesColumnsAndAMedianRow) {
    const CliResult r = runCli({"summary", fiveIterations().string(), "--report", "iter_sum"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const CsvTable rows = parseCsv(r.out);
    ASSERT_EQ(rows.size(), 7u);
    EXPECT_EQ(formatCsvRow(rows[0]), "iteration,start_ns,end_ns,gpu_start_ns,gpu_end_ns,gpu_"
                                     "duration_ns,kernels,gpu_busy_ns,gpu_busy_pct,"
                                     "forward_ns,backward_ns,optimizer_ns,comm_ns,idle_ns,outlier");
    EXPECT_EQ(rows[6][0], "median");
    EXPECT_EQ(rows[6][6], "214");
}

} // namespace
} // namespace ls::test
