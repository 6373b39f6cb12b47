#pragma once
// Peak throughput of the GPU models a roofline is drawn against: dense FLOP/s per precision and
// unit (CUDA cores, Tensor Cores) and DRAM bandwidth, from NVIDIA's datasheets and architecture
// whitepapers (the sources, and the halving of sparse Tensor Core figures, are in
// device_peaks.cpp and docs/roofline.md).
#include "core/model/dtype.h"
#include "core/model/tensor_core_state.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace ls {

// All rates in FLOP/s and bytes/s; NaN where the GPU has no such unit or the source prints none.
struct DevicePeaks {
    std::string_view model;    // "H100 SXM", as the table names it
    double fp64 = 0, fp32 = 0; // CUDA cores
    double fp64Tc = 0, tf32Tc = 0, fp16Tc = 0, bf16Tc = 0, fp8Tc = 0; // Tensor Cores, dense
    double bandwidth = 0;                                             // DRAM
    std::string_view source; // document the figures come from
};

// One row per model: V100 SXM2/PCIe, A100 SXM 40/80 GB and PCIe 40/80 GB, H100 SXM/PCIe,
// H200 SXM, B200, AMD MI300X and MI210, L40S, GeForce RTX 3090/4090/5090, Jetson Nano.
const std::vector<DevicePeaks>& devicePeakTable();

// The row for a device name as the trace records it ("NVIDIA H200", "Tesla V100-SXM2-16GB",
// "NVIDIA A100-PG509-200"); memoryBytes tells an A100's 40 and 80 GB boards apart where the name
// does not. nullptr for a GPU the table does not know: the export has no clock rate, so its
// peaks cannot be estimated (docs/roofline.md).
const DevicePeaks* devicePeaks(std::string_view deviceName, uint64_t memoryBytes = 0);

// The compute roof for work of element type d with Tensor Core state tc. Tensor Core work takes
// the Tensor Core rate of its type (FP32 on Tensor Cores is TF32); other work the CUDA-core
// FP32 rate (FP64 its own), also for 16-bit and unknown types, as datasheets print no CUDA-core
// FP16 rate. NaN when the GPU has no unit for it (BF16 Tensor Cores on a V100, integers).
double computePeak(const DevicePeaks& p, DType d, TcState tc);

} // namespace ls
