// diffRuns on the fp16 sample (batch 4) against the bf16 run (batch 8) of the same model: kernel
// rows against SQL sums over each file, layer rows against each file's layer_sum, family rows
// sharing the fp16/bf16 kernels, the per-sample FLOPs of the forward GEMMs equal on both sides,
// drill-down scopes, and the PyTorch profiler trace of the fp16 run aligning with its nsys trace.
#include "core/compare/diff_verdict.h"
#include "core/compare/run_diff.h"
#include "core/load/load.h"
#include "core/pytorch/iterations.h"
#include "core/reports/nvtx_summary.h"
#include "tests/support/test_support.h"

#include <cmath>
#include <map>
#include <sqlite3.h>

namespace ls::test {
namespace {

fs::path bf16Trace() { return sourceDir() / "tests/data/compare/gpt2_2layer_bf16_b8_h200.sqlite"; }

DiffSide side(const fs::path& file) {
    LoadResult r = loadTrace(file.string());
    EXPECT_TRUE(r.ok()) << file;
    return {r.trace, std::nullopt, std::nullopt, file.filename().string()};
}

const DiffSide& fp16() {
    static const DiffSide s = side(sampleTrace());
    return s;
}
const DiffSide& bf16() {
    static const DiffSide s = side(bf16Trace());
    return s;
}

DiffResult diff(DiffLevel level, bool perSample = false, DiffScope scope = {}) {
    DiffOptions o;
    o.level = level;
    o.perSample = perSample;
    o.scope = std::move(scope);
    return diffRuns(fp16(), bf16(), o);
}

const DiffRow* findRow(const DiffResult& r, std::string_view key, std::string_view direction) {
    for (const auto& row : r.rows)
        if (row.key == key && row.direction == direction) return &row;
    return nullptr;
}

TEST(RunDiff, ByKernelEqualsSqlSumsOverEachFile) {
    const DiffResult r = diff(DiffLevel::Kernel);
    ASSERT_EQ(r.iterationsA, 1);
    ASSERT_EQ(r.iterationsB, 1);
    std::map<std::string, std::pair<int64_t, int64_t>>
        ours[2]; // name -> (time, count), summed over directions
    for (const auto& row : r.rows) {
        ours[0][row.key].first += static_cast<int64_t>(row.a.gpuTimeNs);
        ours[0][row.key].second += static_cast<int64_t>(row.a.count);
        ours[1][row.key].first += static_cast<int64_t>(row.b.gpuTimeNs);
        ours[1][row.key].second += static_cast<int64_t>(row.b.count);
    }
    for (int s = 0; s < 2; ++s) {
        std::erase_if(ours[s], [](const auto& e) { return e.second.second == 0; });
        std::map<std::string, std::pair<int64_t, int64_t>> sql;
        SqlReader(s == 0 ? sampleTrace() : bf16Trace())
            .each("SELECT s.value, sum(k.end - k.start), count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                  "k JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value",
                  [&](sqlite3_stmt* st) {
                      sql[SqlReader::text(st, 0)] = {SqlReader::int64(st, 1),
                                                     SqlReader::int64(st, 2)};
                  });
        EXPECT_EQ(ours[s], sql) << (s == 0 ? "A" : "B");
        EXPECT_GT(sql.size(), 20u);
    }
    // Kernels only one side runs are rows with the other side's count 0.
    bool onlyA = false;
    for (const auto& row : r.rows) onlyA |= row.a.count > 0 && row.b.count == 0;
    EXPECT_TRUE(onlyA) << "the fp16 run's grad-scaler kernels have no bf16 counterpart";
}

TEST(RunDiff, ByLayerEqualsEachFilesLayerSum) {
    const DiffResult r = diff(DiffLevel::Layer);
    for (int s = 0; s < 2; ++s) {
        const Trace& t = *(s == 0 ? fp16() : bf16()).trace;
        const auto expected = layerSummary(t);
        size_t matched = 0;
        for (const GpuTimeRow& e : expected) {
            const DiffRow* row = findRow(r, e.name, directionName(e.direction));
            ASSERT_NE(row, nullptr) << e.name;
            const DiffSideTotals& ours = s == 0 ? row->a : row->b;
            EXPECT_EQ(ours.count, e.kernels) << e.name;
            EXPECT_EQ(ours.gpuTimeNs, static_cast<double>(e.gpuTimeNs)) << e.name;
            if (e.kernelsWithFlops) {
                EXPECT_DOUBLE_EQ(ours.flops, e.flops) << e.name;
            }
            ++matched;
        }
        size_t nonEmpty = 0;
        for (const auto& row : r.rows) nonEmpty += (s == 0 ? row.a.count : row.b.count) > 0;
        EXPECT_EQ(matched, nonEmpty);
    }
    EXPECT_DOUBLE_EQ(r.total.a.gpuTimeNs, 5902922);
    EXPECT_DOUBLE_EQ(r.total.b.gpuTimeNs, 8728206);
}

TEST(RunDiff, PerSampleForwardGemmFlopsAreEqualOnBothSides) {
    const DiffResult r = diff(DiffLevel::Family, true);
    EXPECT_EQ(r.batchA, 4);
    EXPECT_EQ(r.batchB, 8);
    const DiffRow* gemm = findRow(r, "GEMM (cuBLAS/CUTLASS)", "forward");
    ASSERT_NE(gemm, nullptr);
    EXPECT_GT(gemm->a.flops, 0);
    EXPECT_DOUBLE_EQ(gemm->a.flops, gemm->b.flops);
    // Without the per-sample view B does twice the forward GEMM work.
    const DiffResult perIteration = diff(DiffLevel::Family);
    const DiffRow* whole = findRow(perIteration, "GEMM (cuBLAS/CUTLASS)", "forward");
    ASSERT_NE(whole, nullptr);
    EXPECT_DOUBLE_EQ(whole->b.flops, 2 * whole->a.flops);
    EXPECT_DOUBLE_EQ(whole->a.gpuTimeNs, gemm->a.gpuTimeNs * 4);
}

TEST(RunDiff, FamiliesPairTheTwoPrecisions) {
    const DiffResult r = diff(DiffLevel::Family);
    for (const auto& [key, dir] : std::vector<std::pair<std::string, std::string>>{
             {"GEMM (cuBLAS/CUTLASS)", "forward"},
             {"GEMM (cuBLAS/CUTLASS)", "backward"},
             {"Attention (flash/SDPA)", "forward"},
             {"Attention (flash/SDPA)", "backward"},
             {"vectorized_elementwise_kernel<N, CUDAFunctor_add<T>, array<char*, N>>", "backward"},
             {"vectorized_elementwise_kernel<N, GeluCUDAKernelImpl::[lambda], array<char*, N>>",
              "forward"}}) {
        const DiffRow* row = findRow(r, key, dir);
        ASSERT_NE(row, nullptr) << key << " " << dir;
        EXPECT_GT(row->a.count, 0u) << key;
        EXPECT_GT(row->b.count, 0u) << key;
    }
    // Rows are ordered by |delta|, the totals row adds them up.
    for (size_t i = 1; i < r.rows.size(); ++i)
        EXPECT_GE(std::abs(r.rows[i - 1].deltaNs()), std::abs(r.rows[i].deltaNs()));
    double a = 0;
    for (const auto& row : r.rows) a += row.a.gpuTimeNs;
    EXPECT_DOUBLE_EQ(a, r.total.a.gpuTimeNs);
}

TEST(RunDiff, DrillDownFromLayerToOpsToKernelsKeepsTheTime) {
    const DiffResult layers = diff(DiffLevel::Layer);
    const DiffRow* layer0 = findRow(layers, "layer0", "backward");
    ASSERT_NE(layer0, nullptr);
    ASSERT_EQ(layer0->scope.layer, "layer0");
    const DiffResult ops = diff(DiffLevel::Op, false, layer0->scope);
    EXPECT_DOUBLE_EQ(ops.total.a.gpuTimeNs, layer0->a.gpuTimeNs);
    EXPECT_DOUBLE_EQ(ops.total.b.gpuTimeNs, layer0->b.gpuTimeNs);
    // Ops pair by name and ordinal: the same model has the same ops on both sides.
    for (const auto& row : ops.rows) {
        EXPECT_GT(row.a.count, 0u) << row.key;
        EXPECT_GT(row.b.count, 0u) << row.key;
        EXPECT_NE(row.key.find(" #"), std::string::npos) << row.key;
    }
    const DiffRow& first = ops.rows.front();
    const DiffResult kernels = diff(DiffLevel::Kernel, false, first.scope);
    EXPECT_DOUBLE_EQ(kernels.total.a.gpuTimeNs, first.a.gpuTimeNs);
    EXPECT_DOUBLE_EQ(kernels.total.b.gpuTimeNs, first.b.gpuTimeNs);
    // The kernels the GUI outlines for the layer row are the row's.
    DiffOptions o;
    o.level = DiffLevel::Layer;
    const auto ids = diffRowKernels(fp16(), o, *layer0);
    double sum = 0;
    for (KernelId k : ids) sum += static_cast<double>(fp16().trace->kernels.duration(k.value));
    EXPECT_EQ(ids.size(), layer0->a.count);
    EXPECT_DOUBLE_EQ(sum, layer0->a.gpuTimeNs);
}

TEST(RunDiff, OpsShowBothSidesShapes) {
    const DiffResult r = diff(DiffLevel::Op);
    const DiffRow* linear = findRow(r, "layer0 › aten::linear #1", "forward");
    ASSERT_NE(linear, nullptr);
    EXPECT_EQ(linear->a.shapes, "[[256, 4, 768], [2304, 768], [2304]]");
    EXPECT_EQ(linear->b.shapes, "[[256, 8, 768], [2304, 768], [2304]]");
}

TEST(RunDiff, PytorchProfilerTraceAlignsWithTheNsysTraceOfTheSameRun) {
    const fs::path kineto = sharedDir() / "traces/gpt2_2layer_fp16_h200.kineto.json.gz";
    LS_REQUIRE_FILE(kineto);
    const DiffSide k = side(kineto);
    EXPECT_EQ(findIterations(*k.trace).size(), 2u);
    for (DiffLevel level : {DiffLevel::Layer, DiffLevel::Family}) {
        DiffOptions o;
        o.level = level;
        const DiffResult r = diffRuns(fp16(), k, o);
        EXPECT_EQ(r.iterationsB, 2);
        for (const auto& row : r.rows) {
            EXPECT_GT(row.a.count, 0u) << row.key << " " << row.direction;
            EXPECT_EQ(row.b.count, 2 * row.a.count)
                << row.key << " " << row.direction; // two steps, same kernels
            if (level == DiffLevel::Layer && !std::isnan(row.a.flops)) {
                EXPECT_DOUBLE_EQ(row.a.flops, row.b.flops) << row.key;
            }
        }
        EXPECT_LT(std::abs(r.total.deltaNs()),
                  0.02 * r.total.a.gpuTimeNs); // same program, per iteration
    }
}

TEST(DiffVerdict, NamesTheGroupThatExplainsMostOfTheChange) {
    auto row = [](std::string family, std::string dir, std::string layer, double a, double b,
                  double aTc, double bTc) {
        DiffRow r;
        r.key = std::move(family);
        r.direction = std::move(dir);
        r.scope.layer = std::move(layer);
        r.a.gpuTimeNs = a;
        r.b.gpuTimeNs = b;
        r.a.tcTimeNs = a * aTc;
        r.b.tcTimeNs = b * bTc;
        return r;
    };
    const std::vector<DiffRow> rows = {
        row("GEMM (cuBLAS/CUTLASS)", "backward", "layer0", 20, 40, 1, 0),
        row("GEMM (cuBLAS/CUTLASS)", "backward", "layer1", 20, 30, 1, 0),
        row("softmax", "forward", "layer0", 30, 42, 0, 0),
        row("GEMM (cuBLAS/CUTLASS)", "forward", "layer0", 30, 30, 1, 1)};
    DiffRow total;
    total.a.gpuTimeNs = 100;
    total.b.gpuTimeNs = 142;
    EXPECT_EQ(diffVerdict(total, rows),
              "B is 1.42× slower per iteration; 71 % of the difference is backward GEMM "
              "(cuBLAS/CUTLASS) kernels of layer0 "
              "and layer1, which moved from Tensor Core kernels to SIMT kernels.");
    total.b.gpuTimeNs = 100.5;
    EXPECT_EQ(diffVerdict(total, rows, "per sample"),
              "B takes the same GPU time per sample as A (within 1 %).");
}

TEST(RunDiff, RealVerdictSaysBIsSlowerBecauseOfGemms) {
    const DiffResult r = diff(DiffLevel::Layer);
    EXPECT_EQ(r.verdict.rfind("B is 1.48× slower per iteration; ", 0), 0u) << r.verdict;
    EXPECT_NE(r.verdict.find("GEMM (cuBLAS/CUTLASS)"), std::string::npos) << r.verdict;
}

TEST(RunDiff, OneRankOfAFileHoldingSeveralGpus) {
    const fs::path nccl = thirdPartyTrace("nccl_8xv100.nvprof.nvvp");
    LS_REQUIRE_FILE(nccl);
    DiffSide whole = side(nccl);
    DiffSide dev0 = whole, dev1 = whole;
    const ls::Trace& t = *whole.trace;
    dev0.device = t.streamOf(t.kernels, 0).device;
    for (size_t k = 0; k < t.kernels.size(); ++k)
        if (t.streamOf(t.kernels, k).device != *dev0.device)
            dev1.device = t.streamOf(t.kernels, k).device;
    ASSERT_TRUE(dev1.device);
    DiffOptions o;
    o.level = DiffLevel::Kernel;
    const DiffResult r = diffRuns(dev0, dev1, o);
    uint64_t a = 0, b = 0;
    for (size_t k = 0; k < whole.trace->kernels.size(); ++k) {
        a += t.streamOf(t.kernels, k).device == *dev0.device;
        b += t.streamOf(t.kernels, k).device == *dev1.device;
    }
    EXPECT_EQ(r.total.a.count, a);
    EXPECT_EQ(r.total.b.count, b);
}

TEST(DiffCli, TableHasTheVerdictFirstAndCsvTheIssuesColumns) {
    const std::string a = sampleTrace().string(), b = bf16Trace().string();
    const CliResult table = runCli({"diff", a, b, "--format", "table", "--by", "direction"});
    ASSERT_EQ(table.rc, 0) << table.err;
    EXPECT_EQ(table.out.rfind("B is 1.48× slower per iteration", 0), 0u) << table.out;
    const CliResult csv = runCli({"diff", a, b, "--by", "family"});
    ASSERT_EQ(csv.rc, 0) << csv.err;
    const CsvTable rows = parseCsv(csv.out);
    ASSERT_GT(rows.size(), 3u);
    EXPECT_EQ(formatCsvRow(rows.front()),
              "key,direction,a_count,b_count,a_gpu_time_ns,b_gpu_time_ns,delta_ns,ratio,a_flops,b_"
              "flops,a_tflops_s,b_tflops_s,a_tc,b_tc");
    EXPECT_EQ(rows.back()[0], "(total)");
    EXPECT_EQ(rows.back()[4], "5902922");
    EXPECT_EQ(rows.back()[5], "8728206");
    EXPECT_NE(csv.err.find("slower"), std::string::npos); // the verdict, kept off the CSV
}

TEST(DiffCli, UsageAndInputErrors) {
    const std::string a = sampleTrace().string();
    EXPECT_EQ(runCli({"diff", a}).rc, 2);
    EXPECT_EQ(runCli({"diff", a, a, "--by", "module"}).rc, 2);
    EXPECT_EQ(runCli({"diff", a, a, "--batch-a", "0", "--per-sample"}).rc, 2);
    const CliResult missing = runCli({"diff", a, "/nonexistent/b.sqlite"});
    EXPECT_EQ(missing.rc, 3);
    EXPECT_NE(missing.err.find("b.sqlite"), std::string::npos);
    const CliResult noRank = runCli({"diff", a, a, "--a-rank", "7"});
    EXPECT_EQ(noRank.rc, 2);
    EXPECT_NE(noRank.err.find("no rank 7"), std::string::npos) << noRank.err;
}

} // namespace
} // namespace ls::test
