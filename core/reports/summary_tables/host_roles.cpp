#include "core/reports/summary_tables/host_roles.h"

#include "core/costs/collective.h"
#include "core/pytorch/iterations.h"
#include "core/pytorch/range_roles.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace ls {
namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool isDataloaderName(std::string_view name) {
    return lower(name).find("dataloader") != std::string::npos;
}

// Paddle's communication ops (_CommunicationOpName: allreduce, broadcast, rpc) and the names
// the collective rules know (c10d::allreduce_, nccl:all_reduce).
bool isCommOpName(std::string_view name) {
    if (collectiveOfOp(name) != Collective::None) return true;
    const std::string l = lower(name);
    for (std::string_view w : {"allreduce", "all_reduce", "broadcast", "rpc", "nccl", "allgather",
                               "all_gather", "reduce_scatter", "reducescatter", "alltoall"})
        if (l.find(w) != std::string::npos) return true;
    return false;
}

// The model phase a range opens, if any; Others for none.
ModelPhase phaseOf(const Trace& t, uint32_t r) {
    const auto& rs = t.ranges;
    if (rs.kind[r] == RangeKind::Mark) return ModelPhase::Others;
    const std::string_view name = t.str(rs.name[r]);
    if (rs.flags[r] & kModuleScope) return ModelPhase::Forward;
    if (isFrameworkRange(name, rs.flags[r] & kPytorchMarker)) return ModelPhase::Others;
    if (isDataloaderName(name)) return ModelPhase::Dataloader;
    Direction d = Direction::Other;
    if (!userRangePhase(name, d)) return ModelPhase::Others;
    switch (d) {
    case Direction::Forward:
        return ModelPhase::Forward;
    case Direction::Backward:
        return ModelPhase::Backward;
    case Direction::Optimizer:
        return ModelPhase::Optimization;
    default:
        return ModelPhase::Others;
    }
}

int stepOf(const HostRoles& h, TimeNs at) {
    if (h.wholeTraceStep) return 0;
    return iterationAt(h.steps, at);
}

} // namespace

std::string_view modelPhaseName(ModelPhase p) {
    static constexpr std::string_view kNames[] = {"Dataloader", "Forward", "Backward",
                                                  "Optimization", "Others"};
    return kNames[std::min<size_t>(static_cast<size_t>(p), 4)];
}

HostRoles hostRoles(const Trace& t) {
    HostRoles h;
    h.steps = t.iterations;
    if (h.steps.empty()) {
        h.wholeTraceStep = true;
        h.steps.push_back({0, "(whole trace)", t.captureStart, t.captureEnd});
    }
    for (const auto& s : h.steps) h.stepsCpuTime += s.end - s.start;

    const auto& rs = t.ranges;
    const size_t n = rs.size();
    h.inner.assign(n, 0);
    h.userDefined.assign(n, 0);
    std::vector<uint8_t> isExtent(n, 0);
    for (RangeId e : t.ops.extent) isExtent[e.value] = 1;
    // Ranges of a thread are in preorder (by start, longer first): a range's descendants follow
    // it while their depth is greater. One walk per thread keeps the open ranges' phases and
    // whether an op is open.
    for (size_t th = 0; th + 1 < t.threadRangeBegin.size(); ++th) {
        struct Open {
            uint8_t depth;
            ModelPhase phase;
            bool op;
        };
        std::vector<Open> stack;
        for (uint32_t r = t.threadRangeBegin[th]; r < t.threadRangeBegin[th + 1]; ++r) {
            while (!stack.empty() && stack.back().depth >= rs.depth[r]) stack.pop_back();
            bool inOp = false;
            bool phaseOpen[kModelPhases] = {};
            for (const auto& o : stack) {
                inOp = inOp || o.op;
                phaseOpen[static_cast<size_t>(o.phase)] = true;
            }
            const ModelPhase phase = phaseOf(t, r);
            const bool marker = rs.flags[r] & kPytorchMarker;
            if (phase != ModelPhase::Others && !phaseOpen[static_cast<size_t>(phase)] && !inOp)
                h.phases.push_back({RangeId(r), phase});
            const std::string_view name = t.str(rs.name[r]);
            if (marker && inOp && rs.kind[r] != RangeKind::Mark) h.inner[r] = 1;
            const bool framework = isFrameworkRange(name, marker);
            if (!framework && !inOp && phase == ModelPhase::Others &&
                rs.kind[r] != RangeKind::Mark && !iterationNumber(name))
                h.userDefined[r] = 1;
            stack.push_back({rs.depth[r], phase, isExtent[r] != 0});
        }
    }
    std::sort(h.phases.begin(), h.phases.end(), [&](const PhaseRange& a, const PhaseRange& b) {
        return rs.start[a.range.value] < rs.start[b.range.value];
    });

    std::vector<uint32_t> opOfRange(n, UINT32_MAX);
    for (uint32_t o = 0; o < t.ops.size(); ++o) opOfRange[t.ops.extent[o].value] = o;
    h.topOp.resize(t.ops.size());
    for (uint32_t o = 0; o < t.ops.size(); ++o) {
        h.topOp[o] = o;
        for (RangeId r = rs.parent[t.ops.extent[o].value]; r.valid(); r = rs.parent[r.value])
            if (opOfRange[r.value] != UINT32_MAX) h.topOp[o] = opOfRange[r.value];
    }
    h.commOp.assign(t.ops.size(), 0);
    for (size_t o = 0; o < t.ops.size(); ++o)
        h.commOp[o] = isCommOpName(t.str(rs.name[t.ops.range[o].value]));
    const auto& k = t.kernels;
    h.commKernel.assign(k.size(), 0);
    std::vector<int8_t> commByName(t.strings.size(), -1);
    for (size_t i = 0; i < k.size(); ++i) {
        int8_t& c = commByName[k.name[i].value];
        if (c < 0) {
            const std::string_view name = t.str(k.name[i]);
            c = collectiveOfKernel(name) != Collective::None ||
                lower(name).find("nccl") != std::string::npos;
        }
        h.commKernel[i] = static_cast<uint8_t>(c);
    }

    // Data loader windows (union), for the GPU work launched inside them.
    std::vector<Interval> loader;
    for (const auto& p : h.phases)
        if (p.phase == ModelPhase::Dataloader)
            loader.push_back({rs.start[p.range.value], rs.end[p.range.value]});
    loader = unionOf(std::move(loader));
    auto inLoader = [&](TimeNs at) {
        auto it = std::upper_bound(loader.begin(), loader.end(), at,
                                   [](TimeNs v, const Interval& iv) { return v < iv.start; });
        return it != loader.begin() && at <= std::prev(it)->end;
    };
    auto place = [&](const auto& c, std::vector<int>& step, std::vector<ModelPhase>& phase,
                     bool kernels) {
        step.resize(c.size());
        phase.resize(c.size());
        for (size_t i = 0; i < c.size(); ++i) {
            const TimeNs at = kernels ? kernelIterationTime(t, KernelId(static_cast<uint32_t>(i)))
                                      : gpuOpIterationTime(t, c, i);
            step[i] = stepOf(h, at);
            ModelPhase p = ModelPhase::Others;
            if (c.launch[i].valid() && inLoader(at))
                p = ModelPhase::Dataloader;
            else if (kernels && i < t.kernelLinks.direction.size()) {
                switch (t.kernelLinks.direction[i]) {
                case Direction::Forward:
                    p = ModelPhase::Forward;
                    break;
                case Direction::Backward:
                    p = ModelPhase::Backward;
                    break;
                case Direction::Optimizer:
                    p = ModelPhase::Optimization;
                    break;
                default:
                    break;
                }
            }
            phase[i] = p;
        }
    };
    place(t.kernels, h.kernelStep, h.kernelPhase, true);
    place(t.memcpys, h.copyStep, h.copyPhase, false);
    place(t.memsets, h.setStep, h.setPhase, false);
    return h;
}

} // namespace ls
