#include "core/views/session_layer_tree.h"

#include "core/pytorch/correlation.h"

#include <algorithm>
#include <cmath>

namespace ls {

SessionLayerTree combineLayerTrees(const std::vector<const LayerTree*>& trees,
                                   const std::vector<uint32_t>& kernelBase) {
    SessionLayerTree s;
    s.kernelBase = kernelBase;
    LayerTree& c = s.tree;
    const auto traceCount = static_cast<uint32_t>(trees.size());
    // first[p]: combined id of trace p's node 1.
    std::vector<uint32_t> first(traceCount);
    uint32_t next = 1 + traceCount;
    for (uint32_t p = 0; p < traceCount; ++p) {
        first[p] = next;
        next += static_cast<uint32_t>(trees[p]->size()) - 1;
    }
    auto combined = [&](uint32_t p, uint32_t n) { return n == 0 ? 1 + p : first[p] + n - 1; };
    auto add = [&](uint32_t parent, LayerNodeKind kind, uint8_t depth, StringId name, Direction dir,
                   uint32_t trace, uint32_t local) {
        c.parent.push_back(parent);
        c.kind.push_back(kind);
        c.depth.push_back(depth);
        c.name.push_back(name);
        c.direction.push_back(dir);
        s.trace.push_back(trace);
        s.local.push_back(local);
    };
    add(0, LayerNodeKind::Root, 0, StringId(), Direction::Other, 0, 0);
    for (uint32_t p = 0; p < traceCount; ++p)
        add(0, LayerNodeKind::Rank, 1, StringId(), Direction::Other, p, 0);
    for (uint32_t p = 0; p < traceCount; ++p) {
        const LayerTree& t = *trees[p];
        for (uint32_t n = 1; n < t.size(); ++n)
            add(combined(p, t.parent[n]), t.kind[n], static_cast<uint8_t>(t.depth[n] + 1),
                t.name[n], t.direction[n], p, n);
    }

    // Children: the root's are the Rank nodes, every other node's are its trace's, renumbered.
    c.childBegin.push_back(0);
    for (uint32_t p = 0; p < traceCount; ++p) c.children.push_back(1 + p);
    c.childBegin.push_back(static_cast<uint32_t>(c.children.size()));
    for (uint32_t n = 1; n < s.trace.size(); ++n) {
        const LayerTree& t = *trees[s.trace[n]];
        for (uint32_t child : layerTreeChildren(t, s.local[n]))
            c.children.push_back(combined(s.trace[n], child));
        c.childBegin.push_back(static_cast<uint32_t>(c.children.size()));
    }

    // Totals and kernel ranges: a trace's nodes keep theirs, shifted to the trace's place in the
    // concatenated kernel order; the root sums the traces.
    const size_t nodes = s.trace.size();
    c.kernels.assign(nodes, 0);
    c.gpuTimeNs.assign(nodes, 0);
    c.flops.assign(nodes, NAN);
    c.flopsTimeNs.assign(nodes, 0);
    c.tcUsedTimeNs.assign(nodes, 0);
    c.kernelBegin.assign(nodes, 0);
    c.kernelEnd.assign(nodes, 0);
    uint32_t ordered = 0;
    for (uint32_t p = 0; p < traceCount; ++p) {
        const LayerTree& t = *trees[p];
        for (uint32_t n = 0; n < t.size(); ++n) {
            const uint32_t id = combined(p, n);
            c.kernels[id] = t.kernels[n];
            c.gpuTimeNs[id] = t.gpuTimeNs[n];
            c.flops[id] = t.flops[n];
            c.flopsTimeNs[id] = t.flopsTimeNs[n];
            c.tcUsedTimeNs[id] = t.tcUsedTimeNs[n];
            c.kernelBegin[id] = ordered + t.kernelBegin[n];
            c.kernelEnd[id] = ordered + t.kernelEnd[n];
        }
        c.kernels[0] += t.kernels[0];
        c.gpuTimeNs[0] += t.gpuTimeNs[0];
        if (std::isfinite(t.flops[0]))
            c.flops[0] = std::isfinite(c.flops[0]) ? c.flops[0] + t.flops[0] : t.flops[0];
        c.flopsTimeNs[0] += t.flopsTimeNs[0];
        c.tcUsedTimeNs[0] += t.tcUsedTimeNs[0];
        for (KernelId k : t.orderedKernels)
            c.orderedKernels.push_back(KernelId(kernelBase[p] + k.value));
        for (uint32_t leaf : t.kernelNode) c.kernelNode.push_back(combined(p, leaf));
        ordered += static_cast<uint32_t>(t.orderedKernels.size());
    }
    c.kernelEnd[0] = ordered;
    return s;
}

std::vector<KernelId> kernelsOfSessionNode(const SessionLayerTree& s,
                                           const std::vector<const Trace*>& traces, uint32_t node) {
    const LayerTree& c = s.tree;
    if (node >= c.size()) return {};
    std::vector<KernelId> out;
    if (c.kind[node] == LayerNodeKind::Layer) {
        const uint32_t p = s.trace[node];
        for (KernelId k : kernelsOfLayer(*traces[p], c.name[node]))
            out.push_back(KernelId(s.kernelBase[p] + k.value));
        return out;
    }
    out.assign(c.orderedKernels.begin() + c.kernelBegin[node],
               c.orderedKernels.begin() + c.kernelEnd[node]);
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace ls
