#pragma once
// What Paddle's event types are in any trace: the steps (ProfileStep), the model phases
// (Dataloader, Forward, Backward, Optimization), operators and their inner phases, user ranges
// and communication ops, told from the model's ranges, ops and iterations
// (docs/summary-tables.md). Shared by the five summary tables.
#include "core/model/trace.h"
#include "core/reports/intervals.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ls {

enum class ModelPhase : uint8_t { Dataloader, Forward, Backward, Optimization, Others, Count };
inline constexpr size_t kModelPhases = static_cast<size_t>(ModelPhase::Count);
std::string_view modelPhaseName(ModelPhase p); // "Dataloader" … "Others"

struct PhaseRange {
    RangeId range;
    ModelPhase phase;
};

struct HostRoles {
    // The iterations, or the whole capture as one step when the trace names none.
    std::vector<IterationSpan> steps;
    bool wholeTraceStep = false;
    // Outermost ranges of each phase (a phase range inside another of its phase is not counted
    // again): user ranges naming forward/backward/optimizer, Paddle's Forward events and the
    // PyTorch profiler's nn.Module scopes (their outermost is the model's forward call), and
    // ranges named like a data loader.
    std::vector<PhaseRange> phases;
    // Per range: 1 when it is a framework marker inside an op instance (an inner phase).
    std::vector<uint8_t> inner;
    // Per range: 1 for a user range that is none of the above (UserDefined).
    std::vector<uint8_t> userDefined;
    // Per op instance: the outermost op instance around it, itself when top-level. The
    // correlation makes an op instance of every carrier of its own seq (autocast's aten::addmm
    // inside aten::linear); as Paddle's ops, the tables count the outermost ones as ops and the
    // nested ones as their inner phases.
    std::vector<uint32_t> topOp;
    // Per op instance: 1 when its name says it communicates (allreduce, broadcast, nccl …).
    std::vector<uint8_t> commOp;
    // Per kernel: 1 for communication kernels (NCCL, NVSHMEM, RCCL).
    std::vector<uint8_t> commKernel;
    // Per GPU op (kernels, then copies, then sets): the step it was launched in (-1 none) and the
    // model row its time goes to (Dataloader when launched inside a data loader range, else the
    // kernel's direction, else Others).
    std::vector<int> kernelStep, copyStep, setStep;
    std::vector<ModelPhase> kernelPhase, copyPhase, setPhase;
    TimeNs stepsCpuTime = 0; // the ratio base of every table
};

HostRoles hostRoles(const Trace& t);

// The union of [start, end) of rows of c.
template <typename Cols> std::vector<Interval> gpuUnion(const Cols& c) {
    std::vector<Interval> v;
    v.reserve(c.size());
    for (size_t i = 0; i < c.size(); ++i) v.push_back({c.start[i], c.end[i]});
    return unionOf(std::move(v));
}

} // namespace ls
