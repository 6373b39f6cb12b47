// Roofline points: on a hand-built trace, every number worked out by hand (a compute-bound and a
// memory-bound point, a kernel without FLOPs left out); on real traces, each point's intensity
// and FLOP rate equal sums recomputed here from the kernel and metric columns, and the roof of
// one point equals min(peak, intensity × bandwidth) with the H200 figures written out.
#include "core/load/load.h"
#include "core/reports/roofline.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <cmath>

namespace ls::test {
namespace {

// Four kernels on one H200: k0 and k3 fp16 GEMMs on Tensor Cores (group "gemm"), k1 an fp32
// elementwise kernel (group "add"), k2 a kernel without a FLOP count.
Trace handBuilt() {
    Trace t;
    t.devices.push_back({0, "NVIDIA H200", 132, 0, 9, 0});
    const size_t n = 4;
    t.kernels.start = {0, 3'000'000, 5'000'000, 6'000'000};
    t.kernels.end = {1'500'000, 4'000'000, 5'500'000, 6'500'000}; // 1.5 ms, 1 ms, 0.5 ms, 0.5 ms
    t.streams.push_back({ProcessId(0), 0, 1, 7});
    t.kernels.streamIndex.assign(n, StreamId(0));
    t.metrics.flops =
        ls::ValueDict16Column<double>::of(std::vector<double>{0.75e12, 1e9, NAN, 0.25e12}, n);
    t.metrics.bytes =
        ls::ValueDict16Column<double>::of(std::vector<double>{0.6e9, 4e9, 1e6, 0.4e9}, n);
    t.metrics.dtype = {DType::F16, DType::F32, DType::F32, DType::F16};
    t.metrics.tc = {TcState::Used, TcState::NotUsed, TcState::NotUsed, TcState::Used};
    return t;
}

RooflineGroupOf handGroups() {
    return [](uint32_t k) { return RooflineGroup{k == 1 ? "add" : "gemm", Direction::Other}; };
}

TEST(Roofline, HandBuiltPointsByHand) {
    const Trace t = handBuilt();
    const auto points = roofline(t, handGroups());
    ASSERT_EQ(points.size(), 2u);

    const RooflinePoint& gemm = points[0]; // 2 ms, the larger
    EXPECT_EQ(gemm.group.name, "gemm");
    EXPECT_EQ(gemm.kernels, 2u);
    EXPECT_EQ(gemm.gpuTimeNs, 2'000'000u);
    EXPECT_DOUBLE_EQ(gemm.flops, 1e12);
    EXPECT_DOUBLE_EQ(gemm.bytes, 1e9);
    EXPECT_DOUBLE_EQ(gemm.intensity(), 1000);       // 1e12 FLOP / 1e9 B
    EXPECT_DOUBLE_EQ(gemm.achieved(), 5e14);        // 1e12 FLOP / 2 ms
    EXPECT_DOUBLE_EQ(gemm.computeRoof(), 989.5e12); // H200 FP16 Tensor Core, 1,979 sparse halved
    EXPECT_DOUBLE_EQ(gemm.roof(), 989.5e12);        // 1000 × 4.8e12 B/s = 4.8e15 is above it
    EXPECT_NEAR(gemm.percentOfRoof(), 100 * 5e14 / 989.5e12, 1e-9);
    EXPECT_EQ(gemm.bound(), RooflineBound::Compute);
    ASSERT_NE(gemm.peaks, nullptr);
    EXPECT_EQ(gemm.peaks->model, "H200 SXM");

    const RooflinePoint& add = points[1];
    EXPECT_EQ(add.group.name, "add");
    EXPECT_EQ(add.kernels, 1u); // k2 has no FLOP count
    EXPECT_DOUBLE_EQ(add.intensity(), 0.25);
    EXPECT_DOUBLE_EQ(add.achieved(), 1e12);
    EXPECT_DOUBLE_EQ(add.computeRoof(), 67e12);  // H200 FP32
    EXPECT_DOUBLE_EQ(add.roof(), 0.25 * 4.8e12); // memory: 1.2 TFLOP/s
    EXPECT_NEAR(add.percentOfRoof(), 100 * 1e12 / 1.2e12, 1e-9);
    EXPECT_EQ(add.bound(), RooflineBound::Memory);
}

TEST(Roofline, UnknownGpuHasNoRoof) {
    Trace t = handBuilt();
    t.devices[0].name = "Some Future GPU";
    const auto points = roofline(t, handGroups());
    ASSERT_FALSE(points.empty());
    EXPECT_EQ(points[0].peaks, nullptr);
    EXPECT_EQ(points[0].gpu, "Some Future GPU");
    EXPECT_DOUBLE_EQ(points[0].intensity(), 1000); // the point is still known
    EXPECT_TRUE(std::isnan(points[0].roof()));
    EXPECT_TRUE(std::isnan(points[0].percentOfRoof()));
    EXPECT_EQ(points[0].bound(), RooflineBound::Unknown);
}

// Sums over the kernels of a point, recomputed from the columns without the report's grouping code.
struct Sums {
    uint64_t kernels = 0, timeNs = 0;
    double flops = 0, bytes = 0;
};

void expectPointsAreColumnSums(const Trace& t, RooflineGrouping g) {
    const auto groupOf = rooflineGroupOf(t, g);
    const auto points = roofline(t, groupOf);
    ASSERT_FALSE(points.empty());
    uint64_t priced = 0;
    for (uint32_t k = 0; k < t.kernels.size(); ++k)
        priced += std::isfinite(t.metrics.flops[k]) && std::isfinite(t.metrics.bytes[k]);
    uint64_t covered = 0;
    for (const RooflinePoint& p : points) {
        Sums s;
        for (uint32_t k = 0; k < t.kernels.size(); ++k) {
            if (!std::isfinite(t.metrics.flops[k]) || !std::isfinite(t.metrics.bytes[k])) continue;
            if (t.metrics.dtype[k] != p.dtype || t.metrics.tc[k] != p.tc) continue;
            const RooflineGroup grp = groupOf(k);
            if (grp.name != p.group.name || grp.direction != p.group.direction) continue;
            ++s.kernels;
            s.timeNs += static_cast<uint64_t>(t.kernels.end[k] - t.kernels.start[k]);
            s.flops += t.metrics.flops[k];
            s.bytes += t.metrics.bytes[k];
        }
        SCOPED_TRACE(p.group.name);
        EXPECT_EQ(p.kernels, s.kernels);
        EXPECT_EQ(p.gpuTimeNs, s.timeNs);
        EXPECT_NEAR(p.intensity(), s.flops / s.bytes, 1e-9 * std::abs(s.flops / s.bytes));
        EXPECT_NEAR(p.achieved(), s.flops / (static_cast<double>(s.timeNs) * 1e-9),
                    1e-9 * p.achieved());
        covered += p.kernels;
    }
    EXPECT_EQ(covered, priced); // every kernel with FLOPs and bytes is in exactly one point
    for (size_t i = 1; i < points.size(); ++i)
        EXPECT_GE(points[i - 1].gpuTimeNs, points[i].gpuTimeNs);
}

std::shared_ptr<const Trace> load(const fs::path& file) {
    LoadResult r = loadTrace(file.string());
    EXPECT_TRUE(r.ok()) << file;
    return r.trace;
}

TEST(Roofline, SamplePointsAreColumnSums) {
    const auto t = load(sampleTrace());
    ASSERT_TRUE(t);
    expectPointsAreColumnSums(*t, RooflineGrouping::Op);
    expectPointsAreColumnSums(*t, RooflineGrouping::Layer);
    expectPointsAreColumnSums(*t, RooflineGrouping::Kernel);
}

TEST(Roofline, Bf16TracePointsAreColumnSums) {
    const auto t = load(sourceDir() / "tests/data/compare/gpt2_2layer_bf16_b8_h200.sqlite");
    ASSERT_TRUE(t);
    expectPointsAreColumnSums(*t, RooflineGrouping::Op);
    expectPointsAreColumnSums(*t, RooflineGrouping::Layer);
}

TEST(Roofline, SampleRoofByHand) {
    const auto t = load(sampleTrace()); // fp16 autocast on an H200
    ASSERT_TRUE(t);
    const auto points = roofline(*t, RooflineGrouping::Op);
    const RooflinePoint* gemm = nullptr;
    for (const RooflinePoint& p : points)
        if (p.dtype == DType::F16 && p.tc == TcState::Used) {
            gemm = &p;
            break;
        }
    ASSERT_NE(gemm, nullptr) << "no fp16 Tensor Core point in the sample";
    const double peak = 989.5e12;    // H200 FP16 Tensor Core, dense (datasheet 1,979 with sparsity)
    const double bandwidth = 4.8e12; // H200 HBM3e
    const double intensity = gemm->flops / gemm->bytes;
    const double roof = std::min(peak, intensity * bandwidth);
    EXPECT_DOUBLE_EQ(gemm->roof(), roof);
    EXPECT_EQ(gemm->bound(),
              intensity * bandwidth < peak ? RooflineBound::Memory : RooflineBound::Compute);
    const double achieved = gemm->flops / (static_cast<double>(gemm->gpuTimeNs) * 1e-9);
    EXPECT_NEAR(gemm->percentOfRoof(), 100 * achieved / roof, 1e-9);
    EXPECT_GT(gemm->percentOfRoof(), 0);
    EXPECT_LE(gemm->percentOfRoof(), 100.0)
        << "a rate above the datasheet peak means wrong FLOPs or peaks";
}

} // namespace
} // namespace ls::test

namespace ls::test {
namespace {

// The CLI's roofline report: its header, one row per point, FLOPs equal to the points' (whole
// numbers), and --by refused with other reports or an unknown grouping.
TEST(RooflineCli, ReportHasOneRowPerPointAndChecksItsOption) {
    const CliResult r =
        runCli({"summary", sampleTrace().string(), "--report", "roofline", "--by", "layer"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const CsvTable rows = parseCsv(r.out);
    ASSERT_GT(rows.size(), 3u);
    const auto& h = rows.front();
    const size_t flops = static_cast<size_t>(std::find(h.begin(), h.end(), "flops") - h.begin());
    ASSERT_LT(flops, h.size());
    for (size_t i = 1; i < rows.size(); ++i)
        if (!rows[i][flops].empty()) {
            EXPECT_EQ(rows[i][flops].find_first_not_of("0123456789"), std::string::npos)
                << rows[i][flops];
        }
    EXPECT_EQ(
        runCli({"summary", sampleTrace().string(), "--report", "roofline", "--by", "module"}).rc,
        2);
    EXPECT_EQ(
        runCli({"summary", sampleTrace().string(), "--report", "kern_sum", "--by", "layer"}).rc, 2);
}

} // namespace
} // namespace ls::test
