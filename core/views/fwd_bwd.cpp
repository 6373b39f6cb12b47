#include "core/views/fwd_bwd.h"

#include "core/pytorch/range_roles.h"
#include "core/reports/nvtx_summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace ls {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

void addFlops(double& to, double v) { to = std::isnan(to) ? v : to + v; }

using RatioRows = std::map<std::string, FwdBwdRatioRow>;

FwdBwdRatioRow& ratioRow(RatioRows& rows, const std::string& key) {
    auto [it, added] = rows.try_emplace(key);
    if (added) {
        it->second.key = key;
        it->second.forwardFlops = it->second.backwardFlops = NAN;
    }
    return it->second;
}

// Rows by key with their ratio; without forward time the ratio is NaN, and such rows are left
// out when they only have backward work by accident of ranges (byLayer).
std::vector<FwdBwdRatioRow> finish(RatioRows& rows, bool dropWithoutForward) {
    std::vector<FwdBwdRatioRow> out;
    for (auto& [key, row] : rows) {
        if (dropWithoutForward && !row.forwardKernels) continue;
        row.ratio = row.forwardNs
                        ? static_cast<double>(row.backwardNs) / static_cast<double>(row.forwardNs)
                        : NAN;
        out.push_back(row);
    }
    return out;
}

// Lowest forward seq per process: a backward node below it paired with an op before the capture.
std::unordered_map<uint32_t, int64_t> lowestForwardSeq(const Trace& t) {
    std::unordered_map<uint32_t, int64_t> lowest;
    for (uint32_t o = 0; o < t.ops.size(); ++o) {
        if (t.ops.direction[o] == Direction::Backward) continue;
        const int32_t seq = t.ranges.seq[t.ops.range[o].value];
        if (seq < 0) continue;
        const uint32_t process = t.threads[t.rangeThread(t.ops.range[o]).value].process.value;
        auto [it, added] = lowest.try_emplace(process, seq);
        if (!added) it->second = std::min<int64_t>(it->second, seq);
    }
    return lowest;
}

} // namespace

FwdBwdPairs buildFwdBwdPairs(const Trace& t) {
    FwdBwdPairs p;
    const auto& ops = t.ops;
    const auto isNode = [&](uint32_t o) {
        return isBackwardWrapper(t.str(t.ranges.name[ops.extent[o].value])) ||
               isBackwardNode(t.str(t.ranges.name[ops.range[o].value]));
    };
    p.forwardRowOfOp.assign(ops.size(), kNone);
    p.backwardRowOfOp.assign(ops.size(), kNone);
    for (uint32_t o = 0; o < ops.size(); ++o) {
        OpSideRow row;
        row.op = OpId(o);
        row.flops = NAN;
        // Sides by what the op is, not by the phase it ran in: the loss scaling `aten::mul`
        // runs inside the user's "backward" range, yet it is the forward op of MulBackward0.
        if (isNode(o)) {
            p.backwardRowOfOp[o] = static_cast<uint32_t>(p.backward.size());
            p.backward.push_back(row);
            continue;
        }
        const OpId partner = ops.paired[o];
        if (ops.direction[o] == Direction::Forward || (partner.valid() && isNode(partner.value))) {
            p.forwardRowOfOp[o] = static_cast<uint32_t>(p.forward.size());
            p.forward.push_back(row);
        }
    }
    // Kernel totals per op instance (a kernel counts for its innermost op instance only).
    for (uint32_t k = 0; k < t.kernels.size(); ++k) {
        const OpId op = t.kernelLinks.opInstance[k];
        if (!op.valid()) continue;
        OpSideRow* row =
            p.forwardRowOfOp[op.value] != kNone    ? &p.forward[p.forwardRowOfOp[op.value]]
            : p.backwardRowOfOp[op.value] != kNone ? &p.backward[p.backwardRowOfOp[op.value]]
                                                   : nullptr;
        if (!row) continue;
        const auto ns = static_cast<uint64_t>(t.kernels.duration(k));
        ++row->kernels;
        row->gpuTimeNs += ns;
        if (std::isfinite(t.metrics.flops[k])) {
            addFlops(row->flops, t.metrics.flops[k]);
            row->flopsTimeNs += ns;
        }
        if (t.metrics.tc[k] == TcState::Used) row->tcTimeNs += ns;
        if (row->dtype == DType::Unknown) row->dtype = t.metrics.dtype[k];
    }
    // Pairs: each backward node names its forward op; a forward op lists every node naming it.
    for (uint32_t b = 0; b < p.backward.size(); ++b) {
        const OpId f = ops.paired[p.backward[b].op.value];
        if (!f.valid() || p.forwardRowOfOp[f.value] == kNone) continue;
        const uint32_t fr = p.forwardRowOfOp[f.value];
        p.backward[b].partners.push_back(fr);
        p.forward[fr].partners.push_back(b);
    }
    const auto lowest = lowestForwardSeq(t);
    for (auto& row : p.forward) {
        if (!row.partners.empty()) continue;
        row.unpairedReason =
            t.ranges.seq[ops.range[row.op.value].value] < 0
                ? "no seq: the op recorded no autograd node (no gradient flows through it)"
                : "seq without partner: no backward node with this seq in the capture";
    }
    for (auto& row : p.backward) {
        if (!row.partners.empty()) continue;
        const RangeId r = ops.range[row.op.value];
        const int32_t seq = t.ranges.seq[r.value];
        if (seq < 0) {
            row.unpairedReason = "no seq: the node carries none (AccumulateGrad, hooks)";
            continue;
        }
        const uint32_t process = t.threads[t.rangeThread(r).value].process.value;
        const auto it = lowest.find(process);
        row.unpairedReason =
            it == lowest.end() || seq < it->second
                ? "outside the capture: its forward op ran before the capture started"
                : "seq without partner: no forward op with this seq started before it";
    }
    return p;
}

// From layer_sum's rows, so the two always agree.
std::vector<FwdBwdRatioRow> fwdBwdByLayer(const Trace& t) {
    RatioRows rows;
    for (const GpuTimeRow& g : layerSummary(t)) {
        if ((g.direction != Direction::Forward && g.direction != Direction::Backward) ||
            g.name == "(none)")
            continue;
        auto& row = ratioRow(rows, g.name);
        const bool forward = g.direction == Direction::Forward;
        (forward ? row.forwardNs : row.backwardNs) += g.gpuTimeNs;
        (forward ? row.forwardKernels : row.backwardKernels) += g.kernels;
        if (g.kernelsWithFlops) addFlops(forward ? row.forwardFlops : row.backwardFlops, g.flops);
    }
    return finish(rows,
                  true); // a layer without forward kernels: the seed ops in a "backward" range
}

std::vector<FwdBwdRatioRow> fwdBwdByOpType(const Trace& t, const FwdBwdPairs& pairs) {
    RatioRows rows;
    for (const auto& f : pairs.forward) {
        auto& row =
            ratioRow(rows, std::string(t.str(t.ranges.name[t.ops.range[f.op.value].value])));
        row.forwardNs += f.gpuTimeNs;
        row.forwardKernels += f.kernels;
        if (std::isfinite(f.flops)) addFlops(row.forwardFlops, f.flops);
        for (uint32_t b : f.partners) {
            const auto& node = pairs.backward[b];
            row.backwardNs += node.gpuTimeNs;
            row.backwardKernels += node.kernels;
            if (std::isfinite(node.flops)) addFlops(row.backwardFlops, node.flops);
        }
    }
    return finish(rows, false);
}

} // namespace ls
