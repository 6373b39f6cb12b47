#include "core/layer_tree.h"

#include "core/correlation.h"
#include "core/range_roles.h"

#include <cmath>
#include <unordered_map>

namespace ls {
namespace {

constexpr uint32_t kNone = 0xFFFFFFFF;

// Per distinct name: is it a user range that may head the tree (not a framework marker, not a
// phase like "forward")? 0 unknown, 1 yes, 2 no.
class TopRangeFinder {
public:
    explicit TopRangeFinder(const Trace& t) : t_(t), verdict_(t.strings.size(), 0) {}

    // The outermost user range at or above r that is not a phase and not the layer itself.
    StringId outermost(RangeId r, StringId layer) {
        StringId found;
        for (; r.valid(); r = t_.ranges.parent[r.value]) {
            const StringId name = t_.ranges.name[r.value];
            if (t_.ranges.kind[r.value] == RangeKind::Mark || name == layer || !candidate(r)) continue;
            found = name;
        }
        return found;
    }

private:
    bool candidate(RangeId r) {
        const StringId name = t_.ranges.name[r.value];
        auto& v = verdict_[name.value];
        if (!v) {
            Direction phase;
            const std::string_view text = t_.str(name);
            const bool framework = isFrameworkRange(text, t_.ranges.flags[r.value] & kPytorchMarker);
            v = framework || userRangePhase(text, phase) ? 2 : 1;
        }
        return v == 1;
    }

    const Trace& t_;
    std::vector<uint8_t> verdict_;
};

struct Builder {
    LayerTree tree;
    std::unordered_map<uint64_t, uint32_t> childOf; // (parent, key) -> node

    uint32_t add(uint32_t parent, LayerNodeKind kind, StringId name, Direction dir) {
        // Name ids stay far below 2^27 (the pool holds distinct names, not events).
        const uint64_t nameBits = name.valid() ? name.value : 0x7FFFFFF;
        const uint64_t key = (static_cast<uint64_t>(parent) << 32) | (static_cast<uint64_t>(kind) << 29) |
                             (static_cast<uint64_t>(dir) << 27) | nameBits;
        auto [it, added] = childOf.try_emplace(key, static_cast<uint32_t>(tree.parent.size()));
        if (added) {
            tree.parent.push_back(parent);
            tree.kind.push_back(kind);
            tree.name.push_back(name);
            tree.direction.push_back(dir);
        }
        return it->second;
    }
};

} // namespace

LayerTree buildLayerTree(const Trace& t) {
    const auto& links = t.kernelLinks;
    const size_t n = t.kernels.size();
    Builder b;
    b.add(0, LayerNodeKind::Root, StringId(), Direction::Other);
    b.tree.parent[0] = 0;
    TopRangeFinder tops(t);
    std::vector<uint32_t> leafOf(n);

    // Kernels are in start order, so nodes are created, and children listed, chronologically.
    for (uint32_t k = 0; k < n; ++k) {
        const Direction dir = links.direction[k];
        const StringId layer = links.layer[k];
        const OpId op = links.opInstance[k];
        StringId top = tops.outermost(links.range[k], layer);
        if (!top.valid() && op.valid() && dir == Direction::Backward && t.ops.paired[op.value].valid())
            top = tops.outermost(t.ops.extent[t.ops.paired[op.value].value], layer);

        uint32_t node = 0;
        if (top.valid()) node = b.add(node, LayerNodeKind::Range, top, Direction::Other);
        node = b.add(node, LayerNodeKind::Direction, StringId(), dir);
        Direction phase;
        if (layer.valid() && !userRangePhase(t.str(layer), phase)) node = b.add(node, LayerNodeKind::Layer, layer, dir);
        node = b.add(node, LayerNodeKind::Op, op.valid() ? t.ranges.name[t.ops.range[op.value].value] : StringId(), dir);
        leafOf[k] = node;
    }
    LayerTree& tree = b.tree;
    const size_t nodes = tree.size();

    // Children lists (CSR), in creation order.
    tree.childBegin.assign(nodes + 1, 0);
    for (uint32_t i = 1; i < nodes; ++i) ++tree.childBegin[tree.parent[i] + 1];
    for (size_t i = 0; i < nodes; ++i) tree.childBegin[i + 1] += tree.childBegin[i];
    tree.children.resize(nodes ? nodes - 1 : 0);
    {
        std::vector<uint32_t> fill(tree.childBegin.begin(), tree.childBegin.end() - 1);
        for (uint32_t i = 1; i < nodes; ++i) tree.children[fill[tree.parent[i]]++] = i;
    }

    // Totals: at the leaves, then up (a parent is always created before its children).
    tree.kernels.assign(nodes, 0);
    tree.gpuTimeNs.assign(nodes, 0);
    tree.flops.assign(nodes, NAN);
    tree.flopsTimeNs.assign(nodes, 0);
    tree.tcUsedTimeNs.assign(nodes, 0);
    auto addFlops = [](double& to, double v) { to = std::isnan(to) ? v : to + v; };
    for (uint32_t k = 0; k < n; ++k) {
        const uint32_t leaf = leafOf[k];
        const auto ns = static_cast<uint64_t>(t.kernels.duration(k));
        ++tree.kernels[leaf];
        tree.gpuTimeNs[leaf] += ns;
        if (std::isfinite(t.metrics.flops[k])) {
            addFlops(tree.flops[leaf], t.metrics.flops[k]);
            tree.flopsTimeNs[leaf] += ns;
        }
        if (t.metrics.tc[k] == TcState::Used) tree.tcUsedTimeNs[leaf] += ns;
    }
    for (uint32_t i = static_cast<uint32_t>(nodes); i-- > 1;) {
        const uint32_t p = tree.parent[i];
        tree.kernels[p] += tree.kernels[i];
        tree.gpuTimeNs[p] += tree.gpuTimeNs[i];
        if (!std::isnan(tree.flops[i])) addFlops(tree.flops[p], tree.flops[i]);
        tree.flopsTimeNs[p] += tree.flopsTimeNs[i];
        tree.tcUsedTimeNs[p] += tree.tcUsedTimeNs[i];
    }

    // Kernel slices in preorder: each subtree's kernels are contiguous.
    tree.kernelBegin.assign(nodes, 0);
    tree.kernelEnd.assign(nodes, 0);
    std::vector<uint32_t> preorder;
    preorder.reserve(nodes);
    std::vector<uint32_t> stack{0};
    while (!stack.empty()) {
        const uint32_t i = stack.back();
        stack.pop_back();
        preorder.push_back(i);
        const auto c = layerTreeChildren(tree, i);
        stack.insert(stack.end(), c.rbegin(), c.rend());
    }
    uint32_t cursor = 0;
    std::vector<uint32_t> fill(nodes, kNone);
    for (uint32_t i : preorder) {
        tree.kernelBegin[i] = cursor;
        tree.kernelEnd[i] = cursor + static_cast<uint32_t>(tree.kernels[i]);
        if (tree.kind[i] == LayerNodeKind::Op) {
            fill[i] = cursor;
            cursor += static_cast<uint32_t>(tree.kernels[i]);
        }
    }
    tree.orderedKernels.resize(n);
    for (uint32_t k = 0; k < n; ++k) tree.orderedKernels[fill[leafOf[k]]++] = KernelId(k);
    tree.kernelNode = std::move(leafOf);
    return tree;
}

std::span<const uint32_t> layerTreeChildren(const LayerTree& tree, uint32_t node) {
    if (node + 1 >= tree.childBegin.size()) return {};
    return std::span<const uint32_t>(tree.children.data() + tree.childBegin[node], tree.childBegin[node + 1] - tree.childBegin[node]);
}

std::string_view layerNodeName(const Trace& t, const LayerTree& tree, uint32_t node) {
    switch (tree.kind[node]) {
    case LayerNodeKind::Root: return "All kernels";
    case LayerNodeKind::Direction: return directionName(tree.direction[node]);
    case LayerNodeKind::Op: return tree.name[node].valid() ? t.str(tree.name[node]) : "(no op)";
    default: return t.str(tree.name[node]);
    }
}

std::vector<KernelId> kernelsOfNode(const Trace& t, const LayerTree& tree, uint32_t node) {
    if (node >= tree.size()) return {};
    if (tree.kind[node] == LayerNodeKind::Layer) return kernelsOfLayer(t, tree.name[node]);
    std::vector<KernelId> out(tree.orderedKernels.begin() + tree.kernelBegin[node], tree.orderedKernels.begin() + tree.kernelEnd[node]);
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace ls
