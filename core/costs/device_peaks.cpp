#include "core/costs/device_peaks.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace ls {
namespace {

constexpr double kNone = NAN;
constexpr double tflops(double t) { return t * 1e12; }
constexpr double gbps(double g) { return g * 1e9; }

// Sources (docs/roofline.md lists them with the pages the figures were checked against):
constexpr std::string_view kV100 = "NVIDIA Tesla V100 GPU Accelerator datasheet, "
                                   "https://images.nvidia.com/content/technologies/volta/pdf/"
                                   "volta-v100-datasheet-update-us-1165301-r5.pdf";
constexpr std::string_view kA100 = "NVIDIA A100 Tensor Core GPU datasheet, "
                                   "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/"
                                   "a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf";
constexpr std::string_view kH100 =
    "NVIDIA H100 Tensor Core GPU datasheet, "
    "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet";
constexpr std::string_view kH200 =
    "NVIDIA H200 Tensor Core GPU specifications, https://www.nvidia.com/en-us/data-center/h200/";
constexpr std::string_view kL40S =
    "NVIDIA L40S datasheet, https://resources.nvidia.com/en-us-l40s/l40s-datasheet-28413";
constexpr std::string_view kGa102 =
    "NVIDIA Ampere GA102 GPU Architecture whitepaper (GeForce RTX 3090), "
    "https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf";
constexpr std::string_view kAda =
    "NVIDIA Ada GPU Architecture whitepaper (GeForce RTX 4090), "
    "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf";
constexpr std::string_view kB200 = "NVIDIA HGX B200 specifications (8 GPUs; per GPU here), "
                                   "https://www.nvidia.com/en-us/data-center/hgx/";
constexpr std::string_view kRtx5090 =
    "NVIDIA GeForce RTX 5090 specifications, "
    "https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5090/";
constexpr std::string_view kMi300x =
    "AMD Instinct MI300X data sheet, "
    "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html";
constexpr std::string_view kMi210 =
    "AMD Instinct MI210 data sheet, "
    "https://www.amd.com/en/products/accelerators/instinct/mi200/mi210.html";
constexpr std::string_view kNano = "NVIDIA Jetson Nano module datasheet (DA-09366-001), "
                                   "https://developer.nvidia.com/embedded/jetson-nano";

// Dense figures. Datasheets from Ampere on print Tensor Core rates "with sparsity" (2:4
// structured); where a source prints only that figure it is halved here (H100, H200; the A100,
// L40S and GeForce sources print dense and sparse side by side). GeForce Tensor Core rates are
// those "with FP32 accumulate", which is how PyTorch's GEMMs run.
// One row per GPU, columns aligned for reading: kept out of clang-format.
// clang-format off
const std::vector<DevicePeaks> kTable = {
    // model         fp64          fp32          fp64Tc       tf32Tc              fp16Tc               bf16Tc               fp8Tc                bandwidth
    {"V100 SXM2", tflops(7.8), tflops(15.7), kNone, kNone, tflops(125), kNone, kNone, gbps(900), kV100},
    {"V100 PCIe", tflops(7), tflops(14), kNone, kNone, tflops(112), kNone, kNone, gbps(900), kV100},
    {"A100 SXM 40GB", tflops(9.7), tflops(19.5), tflops(19.5), tflops(156), tflops(312), tflops(312), kNone, gbps(1555), kA100},
    {"A100 SXM 80GB", tflops(9.7), tflops(19.5), tflops(19.5), tflops(156), tflops(312), tflops(312), kNone, gbps(2039), kA100},
    {"A100 PCIe 40GB", tflops(9.7), tflops(19.5), tflops(19.5), tflops(156), tflops(312), tflops(312), kNone, gbps(1555), kA100},
    {"A100 PCIe 80GB", tflops(9.7), tflops(19.5), tflops(19.5), tflops(156), tflops(312), tflops(312), kNone, gbps(1935), kA100},
    // H100 and H200: sparse 989 / 1,979 / 1,979 / 3,958 (SXM) and 756 / 1,513 / 1,513 / 3,026 (PCIe) halved.
    {"H100 SXM", tflops(34), tflops(67), tflops(67), tflops(494.5), tflops(989.5), tflops(989.5), tflops(1979), gbps(3350), kH100},
    {"H100 PCIe", tflops(26), tflops(51), tflops(51), tflops(378), tflops(756.5), tflops(756.5), tflops(1513), gbps(2000), kH100},
    {"H200 SXM", tflops(34), tflops(67), tflops(67), tflops(494.5), tflops(989.5), tflops(989.5), tflops(1979), gbps(4800), kH200},
    // B200: the HGX B200 page prints the 8-GPU board (FP64 296 TFLOPS, FP32 600, sparse TF32 18
    // PFLOPS, FP16/BF16 36, FP8 72, 64 TB/s): divided by 8, sparse rates halved.
    {"B200", tflops(37), tflops(75), tflops(37), tflops(1125), tflops(2250), tflops(2250), tflops(4500), gbps(8000), kB200},
    // AMD's matrix cores are the Tensor Core column (dense rates as the data sheet prints them).
    {"MI300X", tflops(81.7), tflops(163.4), tflops(163.4), tflops(653.7), tflops(1307.4), tflops(1307.4), tflops(2614.9), gbps(5300), kMi300x},
    // MI210 (CDNA 2): no TF32 or FP8; its FP32 matrix rate is the Tensor Core FP32 column.
    {"MI210", tflops(22.6), tflops(22.6), tflops(45.3), tflops(45.3), tflops(181), tflops(181), kNone, gbps(1638.4), kMi210},
    // L40S and the GeForce cards: FP64 is not printed (1/64 of FP32 on these chips); left unknown.
    {"L40S", kNone, tflops(91.6), kNone, tflops(183), tflops(362.05), tflops(362.05), tflops(733), gbps(864), kL40S},
    {"GeForce RTX 3090", kNone, tflops(35.6), kNone, tflops(35.6), tflops(71), tflops(71), kNone, gbps(936), kGa102},
    {"GeForce RTX 4090", kNone, tflops(82.6), kNone, tflops(82.6), tflops(165.2), tflops(165.2), tflops(330.3), gbps(1008), kAda},
    // RTX 5090 (compute capability 12.0): NVIDIA prints only sparse Tensor Core rates and not at
    // FP32 accumulate, which GeForce parts run at a lower rate: left unknown rather than guessed.
    {"GeForce RTX 5090", kNone, tflops(104.8), kNone, kNone, kNone, kNone, kNone, gbps(1792), kRtx5090},
    // No Tensor Cores. The datasheet prints 472 GFLOPS for FP16, which Maxwell GM20B runs as half2 at
    // twice the FP32 rate: FP32 is 236 GFLOPS (128 cores × 2 × 921.6 MHz).
    {"Jetson Nano", kNone, 236e9, kNone, kNone, kNone, kNone, kNone, gbps(25.6), kNano},
};
// clang-format on

const DevicePeaks& row(std::string_view model) {
    return *std::find_if(kTable.begin(), kTable.end(),
                         [&](const DevicePeaks& p) { return p.model == model; });
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool has(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

constexpr uint64_t kGiB = uint64_t(1) << 30;

} // namespace

const std::vector<DevicePeaks>& devicePeakTable() { return kTable; }

const DevicePeaks* devicePeaks(std::string_view deviceName, uint64_t memoryBytes) {
    const std::string n = lower(deviceName);
    // Variants with other clocks or memory (H100 NVL, H200 NVL, V100S, RTX 3090 Ti, RTX 4090 D,
    // laptop parts) are not in the table: better no roof than a wrong one.
    if (has(n, "nvl") || has(n, "laptop") || has(n, "mobile")) return nullptr;
    if (has(n, "h200")) return &row("H200 SXM");
    if (has(n, "h100")) {
        if (has(n, "pcie")) return &row("H100 PCIe");
        if (has(n, "sxm") || has(n, "hbm3")) return &row("H100 SXM"); // "NVIDIA H100 80GB HBM3"
        return nullptr;
    }
    if (has(n, "a100")) {
        // "A100-SXM4-40GB", "A100-SXM4-80GB", "A100-PCIE-40GB", "A100 80GB PCIe", and board numbers
        // such as "A100-PG509-200" (an SXM4 board): the memory size decides where the name is
        // silent.
        const bool big = has(n, "80gb") || (!has(n, "40gb") && memoryBytes > 48 * kGiB);
        if (has(n, "pcie")) return &row(big ? "A100 PCIe 80GB" : "A100 PCIe 40GB");
        return &row(big ? "A100 SXM 80GB" : "A100 SXM 40GB");
    }
    if (has(n, "v100") && !has(n, "v100s")) {
        if (has(n, "pcie")) return &row("V100 PCIe");
        if (has(n, "sxm2")) return &row("V100 SXM2");
        return nullptr;
    }
    if (has(n, "b200") && !has(n, "gb200"))
        return &row("B200");                     // GB200 runs its B200s at other clocks
    if (has(n, "mi300x")) return &row("MI300X"); // "AMD Instinct MI300X VF" too: the same chip
    if (has(n, "mi210")) return &row("MI210");
    if (has(n, "rtx 5090") && !has(n, "5090 d")) return &row("GeForce RTX 5090");
    if (has(n, "l40s")) return &row("L40S");
    if (has(n, "rtx 3090") && !has(n, "3090 ti")) return &row("GeForce RTX 3090");
    if (has(n, "rtx 4090") && !has(n, "4090 d")) return &row("GeForce RTX 4090");
    if (has(n, "jetson nano") || has(n, "tegra x1"))
        return &row("Jetson Nano"); // CUDA calls its GPU "NVIDIA Tegra X1"
    return nullptr;
}

double computePeak(const DevicePeaks& p, DType d, TcState tc) {
    if (tc == TcState::Used) {
        switch (d) {
        case DType::F64:
            return std::isnan(p.fp64Tc) ? p.fp64 : p.fp64Tc;
        case DType::F32:
        case DType::TF32:
            return p.tf32Tc;
        case DType::F16:
            return p.fp16Tc;
        case DType::BF16:
            return p.bf16Tc;
        case DType::FP8:
            return p.fp8Tc;
        default:
            return kNone;
        }
    }
    switch (d) {
    case DType::F64:
        return p.fp64;
    case DType::I64:
    case DType::I32:
    case DType::I8:
        return kNone;
    default:
        return p.fp32;
    }
}

} // namespace ls
