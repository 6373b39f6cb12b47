// The peak table against the figures NVIDIA prints (written out here by hand, sparse Tensor Core
// figures halved here where the source prints only those), and the lookup by the device names
// real traces record: the bundled ones in tests/data and, when present, the ones in ../shared.
#include "core/costs/device_peaks.h"
#include "core/load/load.h"
#include "tests/support/test_support.h"

#include <cmath>

namespace ls::test {
namespace {

const DevicePeaks& model(std::string_view name) {
    for (const DevicePeaks& p : devicePeakTable())
        if (p.model == name) return p;
    ADD_FAILURE() << "no row " << name;
    static const DevicePeaks none{};
    return none;
}

// Figures in TFLOPS and GB/s as the sources print them; NaN: not printed / no such unit.
struct Expected {
    std::string_view model;
    double fp64, fp32, tf32Tc, fp16Tc, bf16Tc, fp8Tc, bandwidthGBs;
};
constexpr double kNo = NAN;

void expectRow(const Expected& e) {
    SCOPED_TRACE(std::string(e.model));
    const DevicePeaks& p = model(e.model);
    auto same = [](double table, double tflopsOrGbs, double scale, const char* what) {
        if (std::isnan(tflopsOrGbs))
            EXPECT_TRUE(std::isnan(table)) << what << " should be unknown, is " << table;
        else
            EXPECT_DOUBLE_EQ(table, tflopsOrGbs * scale) << what;
    };
    same(p.fp64, e.fp64, 1e12, "fp64");
    same(p.fp32, e.fp32, 1e12, "fp32");
    same(p.tf32Tc, e.tf32Tc, 1e12, "tf32 tensor");
    same(p.fp16Tc, e.fp16Tc, 1e12, "fp16 tensor");
    same(p.bf16Tc, e.bf16Tc, 1e12, "bf16 tensor");
    same(p.fp8Tc, e.fp8Tc, 1e12, "fp8 tensor");
    same(p.bandwidth, e.bandwidthGBs, 1e9, "bandwidth");
    EXPECT_FALSE(p.source.empty());
}

TEST(DevicePeaks, VoltaMatchesTheV100Datasheet) {
    // NVIDIA Tesla V100 datasheet: SXM2 7.8 / 15.7 / 125 Tensor TFLOPS, PCIe 7 / 14 / 112, 900
    // GB/s. Volta has no sparsity, no TF32, BF16 or FP8.
    expectRow({"V100 SXM2", 7.8, 15.7, kNo, 125, kNo, kNo, 900});
    expectRow({"V100 PCIe", 7, 14, kNo, 112, kNo, kNo, 900});
}

TEST(DevicePeaks, AmpereMatchesTheA100Datasheet) {
    // NVIDIA A100 datasheet (dense | sparse printed side by side): FP64 9.7, FP32 19.5,
    // TF32 156 | 312, BF16 and FP16 312 | 624; 40GB 1,555 GB/s, 80GB PCIe 1,935, 80GB SXM 2,039.
    expectRow({"A100 SXM 40GB", 9.7, 19.5, 156, 312, 312, kNo, 1555});
    expectRow({"A100 SXM 80GB", 9.7, 19.5, 156, 312, 312, kNo, 2039});
    expectRow({"A100 PCIe 40GB", 9.7, 19.5, 156, 312, 312, kNo, 1555});
    expectRow({"A100 PCIe 80GB", 9.7, 19.5, 156, 312, 312, kNo, 1935});
    EXPECT_DOUBLE_EQ(model("A100 SXM 80GB").fp64Tc, 19.5e12);
}

TEST(DevicePeaks, HopperHalvesTheSparseDatasheetFigures) {
    // NVIDIA H100 datasheet, "* With sparsity": SXM TF32 989, BF16/FP16 1,979, FP8 3,958;
    // PCIe 756 / 1,513 / 3,026. H200 page: as H100 SXM, 4.8 TB/s.
    const double h = 0.5;
    expectRow({"H100 SXM", 34, 67, 989 * h, 1979 * h, 1979 * h, 3958 * h, 3350});
    expectRow({"H100 PCIe", 26, 51, 756 * h, 1513 * h, 1513 * h, 3026 * h, 2000});
    expectRow({"H200 SXM", 34, 67, 989 * h, 1979 * h, 1979 * h, 3958 * h, 4800});
    EXPECT_DOUBLE_EQ(model("H200 SXM").fp64Tc, 67e12);
}

TEST(DevicePeaks, AdaAndGeForceUseDenseFp32AccumulateFigures) {
    // L40S datasheet: FP32 91.6, TF32 183 | 366*, BF16/FP16 362.05 | 733*, FP8 733 | 1,466*, 864
    // GB/s.
    expectRow({"L40S", kNo, 91.6, 183, 362.05, 362.05, 733, 864});
    // GA102 whitepaper, RTX 3090: FP32 35.6, TF32 35.6/71, FP16 and BF16 with FP32 accumulate
    // 71/142, 936 GB/s.
    expectRow({"GeForce RTX 3090", kNo, 35.6, 35.6, 71, 71, kNo, 936});
    // Ada whitepaper, RTX 4090: FP32 82.6, TF32 82.6/165.2, FP16/BF16 (FP32 acc.) 165.2/330.4, FP8
    // (FP32 acc.) 330.3/660.6, 1,008 GB/s.
    expectRow({"GeForce RTX 4090", kNo, 82.6, 82.6, 165.2, 165.2, 330.3, 1008});
    // Jetson Nano datasheet: 472 GFLOPS FP16 (half2, twice FP32), 25.6 GB/s, no Tensor Cores.
    expectRow({"Jetson Nano", kNo, 0.236, kNo, kNo, kNo, kNo, 25.6});
}

TEST(DevicePeaks, BlackwellAndMi300xFromTheirSpecificationPages) {
    // HGX B200 (8 GPUs): FP64 296, FP32 600 TFLOPS, TF32 18, FP16/BF16 36, FP8 72 PFLOPS (sparse),
    // 64 TB/s: per GPU 37, 75, and dense 1,125, 2,250, 2,250, 4,500 TFLOPS, 8,000 GB/s.
    expectRow({"B200", 37, 75, 18000.0 / 8 / 2, 36000.0 / 8 / 2, 36000.0 / 8 / 2, 72000.0 / 8 / 2,
               64000.0 / 8});
    // AMD MI300X data sheet: FP64 vector 81.7, FP32 vector 163.4, TF32 653.7, FP16 and BF16
    // 1,307.4, FP8 2,614.9 TFLOPS (dense), 5.3 TB/s.
    expectRow({"MI300X", 81.7, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 5300});
    // MI210: FP64 22.6 (matrix 45.3), FP32 22.6 (matrix 45.3), FP16 and BF16 181, 1.6384 TB/s.
    expectRow({"MI210", 22.6, 22.6, 45.3, 181, 181, kNo, 1638.4});
    EXPECT_DOUBLE_EQ(model("MI210").fp64Tc, 45.3e12);
    // RTX 5090: FP32 104.8 TFLOPS, 1,792 GB/s; Tensor Core rates at FP32 accumulate not printed.
    expectRow({"GeForce RTX 5090", kNo, 104.8, kNo, kNo, kNo, kNo, 1792});
}

TEST(DevicePeaks, NamesAsTracesRecordThem) {
    struct Case {
        std::string_view name;
        uint64_t memory;
        std::string_view model; // empty: unknown
    };
    const Case cases[] = {
        {"NVIDIA H200", 0, "H200 SXM"},
        {"NVIDIA H100 80GB HBM3", 0, "H100 SXM"},
        {"NVIDIA H100 PCIe", 0, "H100 PCIe"},
        {"NVIDIA A100-SXM4-80GB", 0, "A100 SXM 80GB"},
        {"NVIDIA A100-SXM4-40GB", 0, "A100 SXM 40GB"},
        {"NVIDIA A100-PCIE-40GB", 0, "A100 PCIe 40GB"},
        {"NVIDIA A100 80GB PCIe", 0, "A100 PCIe 80GB"},
        {"NVIDIA A100-PG509-200", 42297524224, "A100 SXM 40GB"}, // HTA's A100 trace, totalGlobalMem
        {"NVIDIA A100-PG509-200", 85899345920, "A100 SXM 80GB"},
        {"Tesla V100-SXM2-16GB", 0, "V100 SXM2"},
        {"Tesla V100-SXM2-32GB", 0, "V100 SXM2"},
        {"Tesla V100-PCIE-16GB", 0, "V100 PCIe"},
        {"NVIDIA L40S", 0, "L40S"},
        {"NVIDIA GeForce RTX 3090", 0, "GeForce RTX 3090"},
        {"NVIDIA GeForce RTX 4090", 0, "GeForce RTX 4090"},
        {"NVIDIA Tegra X1", 0, "Jetson Nano"},
        {"NVIDIA B200", 0, "B200"},
        {"NVIDIA GB200", 0, ""},
        {"AMD Instinct MI300X", 0, "MI300X"},
        {"AMD Instinct MI300X VF", 0, "MI300X"}, // TraceLens's MI300X traces
        {"AMD Instinct MI210", 0, "MI210"},
        {"AMD Radeon Graphics", 0,
         ""}, // what an MI250 calls itself in HTA's ROCm 6.2 trace: no model
        {"NVIDIA GeForce RTX 5090", 0, "GeForce RTX 5090"},
        {"NVIDIA H100 NVL", 0, ""},
        {"NVIDIA H200 NVL", 0, ""},
        {"NVIDIA GeForce RTX 3090 Ti", 0, ""},
        {"NVIDIA GeForce RTX 4090 Laptop GPU", 0, ""},
        {"Tesla V100S-PCIE-32GB", 0, ""},
        {"NVIDIA GeForce RTX 2080", 0, ""},
        {"", 0, ""},
    };
    for (const Case& c : cases) {
        const DevicePeaks* p = devicePeaks(c.name, c.memory);
        if (c.model.empty()) {
            EXPECT_EQ(p, nullptr) << c.name;
        } else {
            EXPECT_NE(p, nullptr) << c.name;
            if (p) {
                EXPECT_EQ(p->model, c.model) << c.name;
            }
        }
    }
}

TEST(DevicePeaks, ComputePeakFollowsTypeAndTensorCores) {
    const DevicePeaks& h200 = model("H200 SXM");
    EXPECT_DOUBLE_EQ(computePeak(h200, DType::BF16, TcState::Used), 989.5e12);
    EXPECT_DOUBLE_EQ(computePeak(h200, DType::F16, TcState::Used), 989.5e12);
    EXPECT_DOUBLE_EQ(computePeak(h200, DType::F32, TcState::Used),
                     494.5e12); // FP32 on Tensor Cores is TF32
    EXPECT_DOUBLE_EQ(computePeak(h200, DType::FP8, TcState::Used), 1979e12);
    EXPECT_DOUBLE_EQ(computePeak(h200, DType::F64, TcState::Used), 67e12);
    EXPECT_DOUBLE_EQ(computePeak(h200, DType::F32, TcState::NotUsed), 67e12);
    EXPECT_DOUBLE_EQ(computePeak(h200, DType::BF16, TcState::NotApplicable), 67e12);
    EXPECT_DOUBLE_EQ(computePeak(h200, DType::Unknown, TcState::NotApplicable), 67e12);
    EXPECT_DOUBLE_EQ(computePeak(h200, DType::F64, TcState::NotUsed), 34e12);
    EXPECT_TRUE(std::isnan(computePeak(h200, DType::Unknown, TcState::Used)));
    EXPECT_TRUE(std::isnan(computePeak(h200, DType::I8, TcState::NotUsed)));
    const DevicePeaks& v100 = model("V100 SXM2");
    EXPECT_TRUE(std::isnan(
        computePeak(v100, DType::BF16, TcState::Used))); // Volta has no BF16 Tensor Cores
    EXPECT_DOUBLE_EQ(computePeak(v100, DType::F64, TcState::Used),
                     7.8e12); // nor FP64 ones: the CUDA-core rate
}

// Every device of a real trace resolves to the expected row by the name the importer stored.
struct TraceDevice {
    fs::path path;
    std::string_view model;
};

void expectDevices(const TraceDevice& c) {
    LS_REQUIRE_FILE(c.path);
    LoadResult r = loadTrace(c.path.string());
    ASSERT_TRUE(r.ok()) << c.path;
    ASSERT_FALSE(r.trace->devices.empty()) << c.path;
    for (const Device& d : r.trace->devices) {
        const DevicePeaks* p = devicePeaks(d.name, d.memoryBytes);
        ASSERT_NE(p, nullptr) << c.path << ": " << d.name;
        EXPECT_EQ(p->model, c.model) << c.path << ": " << d.name;
    }
}

TEST(DevicePeaks, BundledTracesResolve) {
    expectDevices({sampleTrace(), "H200 SXM"});
    expectDevices({sourceDir() / "tests/data/iterations/gpt2_fp16_5it_h100.sqlite", "H100 SXM"});
    expectDevices(
        {sourceDir() / "tests/data/kineto/gpt2_2layer_fp16_stack_h100.kineto.json.gz", "H100 SXM"});
}

TEST(DevicePeaks, SharedTracesResolve) {
    const fs::path t = sharedDir() / "traces/third-party";
    if (!fs::exists(t)) GTEST_SKIP() << t.string() << " absent";
    expectDevices({t / "cloverleaf_perlmutter.nsys.sqlite", "A100 SXM 80GB"});
    expectDevices({t / "saxpy_mpi_perlmutter.nsys.sqlite", "A100 SXM 40GB"});
    expectDevices({t / "pyprof_lstm_v100.nvprof.sql", "V100 SXM2"});
    expectDevices({t / "ortmodule_v100.nvprof.nvvp", "V100 PCIe"});
    expectDevices(
        {t / "kineto/HTA__critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz",
         "A100 SXM 40GB"});
    expectDevices(
        {t / "kineto/HTA__ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
         "V100 SXM2"});
}

} // namespace
} // namespace ls::test
