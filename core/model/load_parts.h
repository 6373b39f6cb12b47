#pragma once
// The parts of a trace a command needs. A report over kernels reads only the kernel table and
// its names; `api_sum` only the API calls. A part left out is permission to skip it, never a
// promise that it is absent: an importer that cannot skip a table reads it anyway.
#include <cstdint>

namespace ls {

enum LoadPart : uint32_t {
    kLoadKernels = 1u << 0,
    kLoadMemory = 1u << 1,      // memcpy, memset and GPU memory usage events
    kLoadApiCalls = 1u << 2,    // CUDA runtime and driver calls
    kLoadNvtx = 1u << 3,        // NVTX ranges and marks
    kLoadOsRuntime = 1u << 4,   // OS runtime calls
    kLoadCorrelation = 1u << 5, // NVTX nesting, kernel ranges, ops, layers, forward/backward
    kLoadCosts = 1u << 6,       // FLOPs, bytes, Tensor Core verdicts
    kLoadIterations = 1u << 7,
    // NVTX ranges' names and PyTorch marker fields (op name, seq, op id, shapes): parsing and
    // interning 8M marker texts is a fifth of a load, and nvtx_gpu_proj re-reads raw texts.
    kLoadNvtxNames = 1u << 8,
    kLoadEverything = (1u << 9) - 1,
};

// The parts `wanted` cannot be computed without: costs and iterations stand on the correlation,
// which stands on kernels, API calls and NVTX with names; names come with their ranges.
constexpr uint32_t closeLoadParts(uint32_t wanted) {
    if (wanted & (kLoadCosts | kLoadIterations)) wanted |= kLoadCorrelation;
    if (wanted & kLoadCorrelation)
        wanted |= kLoadKernels | kLoadApiCalls | kLoadNvtx | kLoadNvtxNames;
    if (wanted & kLoadNvtxNames) wanted |= kLoadNvtx;
    return wanted;
}

// What a trace loaded or read for `wanted` (closed) holds: names come with their ranges unless an
// importer left them out on purpose (the nsys reader, clearing kLoadNvtxNames itself).
constexpr uint32_t heldLoadParts(uint32_t wanted) {
    return (wanted & kLoadNvtx) ? wanted | kLoadNvtxNames : wanted;
}

} // namespace ls
