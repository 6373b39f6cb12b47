#pragma once
// Two runs compared by meaning, not by time: each side's kernels grouped by direction, layer,
// op (the k-th op of one name in a layer and direction, per iteration), kernel family, kernel
// name or iteration, and the groups of A and B matched by key. Times and FLOPs are per iteration
// (and per sample with perSample), so a one-iteration A compares with a five-iteration B.
// Layer rows use layer_sum's conventions (core/reports/nvtx_summary.h).
#include "core/model/direction.h"
#include "core/model/trace.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ls {

// One side: a trace, or one rank of it (the kernels of one process on one device).
struct DiffSide {
    std::shared_ptr<const Trace> trace;
    std::optional<ProcessId> process;
    std::optional<uint32_t> device;
    std::string label; // "A: gpt2_fp16.sqlite", "B: rank 1 of job/"
};

enum class DiffLevel : uint8_t { Direction, Layer, Op, Family, Kernel, Iteration };
std::string_view diffLevelName(DiffLevel l); // "direction", "layer", …
std::optional<DiffLevel> diffLevelByName(std::string_view name);

// Narrows both sides before grouping: the drill-down from a layer to its ops to their kernels.
struct DiffScope {
    std::optional<std::string> layer; // "" for kernels outside any layer
    std::optional<Direction> direction;
    std::optional<std::string> op; // an op row's key ("aten::linear #2")
    std::optional<std::string> family;
    bool empty() const { return !layer && !direction && !op && !family; }
};

struct DiffOptions {
    DiffLevel level = DiffLevel::Layer;
    DiffScope scope;
    bool perSample = false;
    // Samples per iteration of each side; 0: found from the shapes (batchSizeOf).
    int64_t batchA = 0, batchB = 0;
};

struct DiffSideTotals {
    uint64_t count = 0;     // kernels (op instances at the op level), over all iterations
    double gpuTimeNs = 0;   // per iteration (per sample with perSample)
    double flops = 0;       // known FLOPs, likewise normalized; NaN when none is known
    double flopsTimeNs = 0; // GPU time of the kernels with known FLOPs, likewise normalized
    double tcTimeNs = 0;    // GPU time of the kernels that used Tensor Cores, likewise normalized
    std::string shapes;     // op level: the first instance's input shapes
    double tflopsPerSecond() const;
    double tcShare() const; // 0..1 of gpuTimeNs; NaN when there is no time
};

struct DiffRow {
    std::string key;
    std::string direction; // directionName, or "" where the level has none (iteration, totals)
    DiffSideTotals a, b;
    double deltaNs() const { return b.gpuTimeNs - a.gpuTimeNs; }
    double ratio() const; // b / a; NaN when a is 0
    // The scope a drill-down from this row opens at the next level (layer -> op -> kernel).
    DiffScope scope;
};

struct DiffResult {
    DiffLevel level = DiffLevel::Layer;
    std::vector<DiffRow> rows;            // by |delta| descending, then key
    DiffRow total;                        // key "(total)"
    int iterationsA = 1, iterationsB = 1; // what times were divided by (1 without iteration ranges)
    int64_t batchA = 0, batchB = 0;       // samples per iteration; 0 when unknown
    std::string batchSourceA, batchSourceB; // "given", "shapes of N forward ops", "unknown"
    std::string verdict;                    // one line (core/compare/diff_verdict.h)
    std::vector<std::string> notes;         // why a normalization could not be applied, …
};

DiffResult diffRuns(const DiffSide& a, const DiffSide& b, const DiffOptions& options);

// The kernels of `side` that went into `row` of diffRuns(…, options) (its side's half of it), by
// id: what the GUI outlines in that side's timeline.
std::vector<KernelId> diffRowKernels(const DiffSide& side, const DiffOptions& options,
                                     const DiffRow& row);

// Samples per iteration from the forward ops' input shapes: an embedding's indices [batch,
// sequence], else a convolution's input [N, C, H, W], else the most common leading dimension of
// the ops' first 3-D or larger input. 0 when no op says.
struct BatchGuess {
    int64_t batch = 0;
    uint64_t ops = 0; // forward ops that gave that value
    std::string rule; // "embedding indices", …
};
BatchGuess batchSizeOf(const DiffSide& side);

} // namespace ls
