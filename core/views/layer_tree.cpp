#include "core/views/layer_tree.h"

#include "core/pytorch/correlation.h"
#include "core/pytorch/iterations.h"
#include "core/pytorch/range_roles.h"
#include "core/views/ancestor_walk.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <tuple>
#include <unordered_map>

namespace ls {
namespace {

// The top user range of a kernel's stack, by name. What a push/pop range's chain of ancestors
// can give (the outermost candidate, the outermost candidate named otherwise, the outermost
// phase range) is made from its parent's, for the ranges the kernels and ops ask about (an
// AncestorWalk: not a pass over every range). Start/end ranges around a call come from the
// per-thread segment tree the assembly built (as rangesContaining finds them).
class TopRangeFinder {
  public:
    explicit TopRangeFinder(const Trace& t)
        : t_(t), r_(t.ranges), roles_(t.strings.size(), 0), walk_(t), opTop_(t.ops.size()),
          opDone_(t.ops.size(), 0) {
        // PyTorch profiler steps (ProfilerStep#N) head the tree when no user range does.
        for (uint32_t s = 0; s < t.strings.size() && !steps_; ++s)
            steps_ = t.strings.view(StringId(s)).starts_with(kProfilerStep);
    }

    // On the kernel's own stack.
    StringId ofKernel(uint32_t k, StringId layer) {
        const RangeId r = t_.kernelLinks.range[k];
        if (!r.valid()) return {};
        const ApiCallId call = t_.contextCall(k);
        Pick p;
        p.layer = layer;
        if (r_.kind[r.value] == RangeKind::PushPop) {
            // The innermost range is push/pop: it is the innermost push/pop range of the call.
            addChain(p, r);
            if (anyStartEnd_)
                addStartEnd(p, t_.apiCalls.thread[call.value], t_.apiCalls.start[call.value],
                            t_.apiCalls.end[call.value]);
        } else {
            for (RangeId s : rangesContaining(t_, call)) consider(p, s);
        }
        return result(p);
    }

    // On the stack around the forward op paired with backward node `node` (once per node).
    StringId ofPairedForwardOp(OpId node, StringId layer) {
        if (opDone_[node.value]) return opTop_[node.value];
        opDone_[node.value] = 1;
        const OpId f = t_.ops.paired[node.value];
        const RangeId e = t_.ops.extent[f.value];
        Pick p;
        p.layer = layer;
        if (r_.kind[e.value] == RangeKind::PushPop)
            addChain(p, e);
        else
            for (RangeId a = e; a.valid(); a = r_.parent[a.value]) consider(p, a);
        if (anyStartEnd_) addStartEnd(p, t_.rangeThread(e), r_.start[e.value], r_.end[e.value]);
        return opTop_[node.value] = result(p);
    }

    bool isPhase(StringId name) { return isPhase(name, roles_); }

  private:
    enum class Role : uint8_t { Unknown, Candidate, Phase, Other };

    // Over a range and its ancestors: the outermost candidate, the outermost candidate named
    // otherwise, the outermost phase range; and the ProfilerStep#N range around it.
    struct Chain {
        RangeId outer, other, phase, step;
    };

    // Range i's chain from its parent's (null at the top of its thread's stack).
    Chain chainBelow(const Chain* parent, RangeId i) {
        Chain c = parent ? *parent : Chain{};
        if (steps_ && !c.step.valid() && t_.str(r_.name[i.value]).starts_with(kProfilerStep))
            c.step = i;
        if (r_.kind[i.value] != RangeKind::PushPop) return c;
        const Role role = roleOf(i);
        if (role == Role::Candidate && !c.outer.valid())
            c.outer = i;
        else if (role == Role::Candidate && !c.other.valid() &&
                 r_.name[i.value] != r_.name[c.outer.value])
            c.other = i;
        else if (role == Role::Phase && !c.phase.valid())
            c.phase = i;
        return c;
    }

    bool isPhase(StringId name, std::vector<uint8_t>& roles) {
        uint8_t& v = roles[name.value];
        if (!(v & 0x10)) {
            Direction phase;
            v |= static_cast<uint8_t>(0x10 | (userRangePhase(t_.str(name), phase) ? 0x20 : 0));
        }
        return v & 0x20;
    }

    // The outermost candidate named otherwise than the layer, the outermost candidate, the
    // outermost phase range.
    struct Pick {
        StringId layer;
        RangeId other, any, phase, step;
    };

    // Candidate: a user range that may head the tree (no framework marker, no mark, no phase).
    // Phase: a user range naming one. Per name and marker flag: bits 0-1 (flag clear) and 2-3
    // (flag set) hold the Role; bit 4 says bit 5 holds isPhase.
    Role roleOf(RangeId r) { return roleOf(r, roles_); }
    Role roleOf(RangeId r, std::vector<uint8_t>& roles) {
        if (r_.kind[r.value] == RangeKind::Mark) return Role::Other;
        const StringId name = r_.name[r.value];
        const bool marker = r_.flags[r.value] & kPytorchMarker;
        const int shift = marker ? 2 : 0;
        uint8_t& v = roles[name.value];
        if (!((v >> shift) & 3)) {
            const Role role = isFrameworkRange(t_.str(name), marker) ? Role::Other
                              : isPhase(name, roles)                 ? Role::Phase
                                                                     : Role::Candidate;
            v |= static_cast<uint8_t>(static_cast<uint8_t>(role) << shift);
        }
        return static_cast<Role>((v >> shift) & 3);
    }

    // a lies outside b on one stack: earlier start, on a tie the longer, then the parent (lower
    // id).
    bool outside(RangeId a, RangeId b) const {
        if (!b.valid()) return true;
        return std::make_tuple(r_.start[a.value], r_.end[b.value], a.value) <
               std::make_tuple(r_.start[b.value], r_.end[a.value], b.value);
    }

    void consider(Pick& p, RangeId r) {
        if (!r.valid()) return;
        const Role role = roleOf(r);
        if (role == Role::Phase && outside(r, p.phase)) p.phase = r;
        if (role != Role::Candidate) return;
        if (outside(r, p.any)) p.any = r;
        if (r_.name[r.value] != p.layer && outside(r, p.other)) p.other = r;
    }

    // The push/pop range r and its ancestors.
    void addChain(Pick& p, RangeId r) {
        const Chain& c =
            walk_.of(r, [this](const Chain* parent, RangeId i) { return chainBelow(parent, i); });
        consider(p, c.outer);
        consider(p, c.other);
        consider(p, c.phase);
        if (c.step.valid()) p.step = c.step;
    }

    // The outermost candidate not named as the layer; else the layer's own range, unless a phase
    // range encloses it ("forward" > "layer0": a layer inside the phases, not an iteration).
    StringId result(const Pick& p) const {
        if (p.other.valid()) return r_.name[p.other.value];
        if (p.any.valid() && !(p.phase.valid() && outside(p.phase, p.any)))
            return r_.name[p.any.value];
        if (p.step.valid()) return r_.name[p.step.value];
        return {};
    }

    // Start/end ranges of thread th containing [s, e]: start <= s and end >= e. The tree holds
    // each subtree's latest end, so only subtrees that can still hold one are visited.
    void addStartEnd(Pick& p, ThreadId th, TimeNs s, TimeNs e) {
        if (!th.valid()) return;
        const auto [first, last] = t_.threadStartEnd.of(th);
        if (first == last) return;
        const size_t count = static_cast<size_t>(last - first);
        const size_t limit = static_cast<size_t>(
            std::upper_bound(first, last, s,
                             [&](TimeNs v, RangeId r) { return v < r_.start[r.value]; }) -
            first);
        if (limit == 0) return;
        const size_t leaves = Trace::startEndTreeLeaves(count);
        const TimeNs* tree = t_.startEndTree.data() + t_.startEndTreeBegin[th.value];
        stack_.assign(1, {1, 0, leaves}); // (node, first leaf, leaf count)
        while (!stack_.empty()) {
            const auto [node, lo, width] = stack_.back();
            stack_.pop_back();
            if (lo >= limit || tree[node] < e) continue;
            if (width == 1) {
                consider(p, first[lo]);
                continue;
            }
            // NOLINTNEXTLINE(modernize-use-emplace): an aggregate; clang 14 cannot emplace one
            stack_.push_back({2 * node + 1, lo + width / 2, width / 2});
            stack_.push_back({2 * node, lo, width / 2}); // NOLINT(modernize-use-emplace): as above
        }
    }

    const Trace& t_;
    const RangeColumns& r_;
    std::vector<uint8_t> roles_; // per name, see roleOf()
    AncestorWalk<Chain> walk_;
    bool steps_ = false; // the trace names a ProfilerStep#N range
    // Without start/end ranges no call's launch columns are read (three cache misses a kernel).
    const bool anyStartEnd_ = !t_.threadStartEnd.ids.empty();
    static constexpr std::string_view kProfilerStep = "ProfilerStep#";
    std::vector<StringId> opTop_; // per backward node: ofPairedForwardOp
    std::vector<uint8_t> opDone_;
    std::vector<std::tuple<size_t, size_t, size_t>> stack_;
};

// Nodes are found by (parent, kind, name or direction); kernels by their whole path.
struct NodeKey {
    uint32_t parent, label;
    LayerNodeKind kind;
    bool operator==(const NodeKey&) const = default;
};
struct PathKey {
    uint32_t top, layer, op;
    Direction dir;
    bool operator==(const PathKey&) const = default;
};
// Multiplicative mixing: the leaf table indexes by the hash's low bits.
inline size_t mix(uint64_t a, uint64_t b) {
    const uint64_t h = (a * 0x9E3779B97F4A7C15ull ^ b) * 0xD6E8FEB86659FD93ull;
    return static_cast<size_t>(h ^ (h >> 32));
}
struct NodeKeyHash {
    size_t operator()(const NodeKey& k) const {
        return mix((uint64_t(k.parent) << 8) | uint8_t(k.kind), k.label);
    }
};
struct PathKeyHash {
    size_t operator()(const PathKey& k) const {
        return mix((uint64_t(k.top) << 32) | k.layer, (uint64_t(k.op) << 8) | uint8_t(k.dir));
    }
};

class TreeBuilder {
  public:
    TreeBuilder() { node(0, LayerNodeKind::Root, StringId(), Direction::Other); }

    uint32_t leaf(const PathKey& key) {
        if (haveLast_ && key == last_) return lastLeaf_;
        LeafSlot& slot = leafSlot(key);
        if (!slot.used) {
            slot = {key, 0, true};
            ++leafCount_;
            uint32_t n = 0;
            if (key.top != StringId::kInvalid)
                n = node(n, LayerNodeKind::Range, StringId(key.top), Direction::Other);
            n = node(n, LayerNodeKind::Direction, StringId(), key.dir);
            if (key.layer != StringId::kInvalid)
                n = node(n, LayerNodeKind::Layer, StringId(key.layer), key.dir);
            slot.leaf = node(n, LayerNodeKind::Op, StringId(key.op), key.dir);
        }
        haveLast_ = true;
        last_ = key;
        return lastLeaf_ = slot.leaf;
    }

    LayerTree tree;

  private:
    uint32_t node(uint32_t parent, LayerNodeKind kind, StringId name, Direction dir) {
        const NodeKey key{
            parent, kind == LayerNodeKind::Direction ? static_cast<uint32_t>(dir) : name.value,
            kind};
        auto [it, added] = nodes_.try_emplace(key, static_cast<uint32_t>(tree.parent.size()));
        if (added) {
            tree.parent.push_back(parent);
            tree.kind.push_back(kind);
            tree.depth.push_back(
                kind == LayerNodeKind::Root ? 0 : static_cast<uint8_t>(tree.depth[parent] + 1));
            tree.name.push_back(name);
            tree.direction.push_back(dir);
        }
        return it->second;
    }

    // Leaves by path in an open-addressing table at most half full: asked once a kernel, where
    // std::unordered_map's modulo and node hops took a third of the tree's build.
    struct LeafSlot {
        PathKey key;
        uint32_t leaf = 0;
        bool used = false;
    };
    LeafSlot& leafSlot(const PathKey& key) {
        if (2 * (leafCount_ + 1) > leafSlots_.size()) {
            std::vector<LeafSlot> old(2 * leafSlots_.size());
            old.swap(leafSlots_);
            for (const LeafSlot& o : old)
                if (o.used) probe(o.key) = o;
        }
        return probe(key);
    }
    LeafSlot& probe(const PathKey& key) {
        const size_t mask = leafSlots_.size() - 1;
        size_t i = PathKeyHash{}(key)&mask;
        while (leafSlots_[i].used && !(leafSlots_[i].key == key)) i = (i + 1) & mask;
        return leafSlots_[i];
    }

    std::unordered_map<NodeKey, uint32_t, NodeKeyHash> nodes_;
    std::vector<LeafSlot> leafSlots_ = std::vector<LeafSlot>(1024); // a power of two
    size_t leafCount_ = 0;
    PathKey last_{};
    uint32_t lastLeaf_ = 0;
    bool haveLast_ = false;
};

void addUp(double& to, double v) { to = std::isnan(to) ? v : to + v; }

} // namespace

std::string_view layerNodeKindName(LayerNodeKind k) {
    switch (k) {
    case LayerNodeKind::Root:
        return "root";
    case LayerNodeKind::Range:
        return "range";
    case LayerNodeKind::Direction:
        return "direction";
    case LayerNodeKind::Layer:
        return "layer";
    case LayerNodeKind::Op:
        return "op";
    case LayerNodeKind::Rank:
        return "rank";
    }
    return "";
}

LayerTree buildLayerTree(const Trace& t) {
    const auto& links = t.kernelLinks;
    const auto n = static_cast<uint32_t>(t.kernels.size());
    TopRangeFinder tops(t);
    TreeBuilder b;
    std::vector<uint32_t> leafOf(n);
    // Detected iterations (no iteration ranges) head the paths of the kernels they hold, as
    // iteration ranges would: the tree, iter_sum and the navigator agree on the iterations.
    const bool detected = t.iterationRule == IterationRule::OptimizerSteps ||
                          t.iterationRule == IterationRule::RepeatingOps;
    std::vector<StringId> iterationName;
    if (detected)
        for (const IterationSpan& span : t.iterations)
            iterationName.push_back(t.strings.find(span.name));
    // A kernel launched inside the same push/pop range, op and layer as the one before it (an
    // op's several kernels: a sixth of them) goes where that one went, unless the path can also
    // depend on the launch's time (start/end ranges, detected iterations).
    const bool stackDecides = iterationName.empty() && t.threadStartEnd.ids.empty();
    // Kernels are by start, so nodes are created, and siblings listed, by their first kernel.
    for (uint32_t k = 0; k < n; ++k) {
        const OpId op = links.opInstance[k];
        if (stackDecides && k > 0 && links.range[k] == links.range[k - 1] &&
            links.range[k].valid() && t.ranges.kind[links.range[k].value] == RangeKind::PushPop &&
            op == links.opInstance[k - 1] && links.layer[k] == links.layer[k - 1] &&
            links.direction[k] == links.direction[k - 1]) {
            leafOf[k] = leafOf[k - 1];
            continue;
        }
        StringId layer = links.layer[k];
        StringId top;
        if (!iterationName.empty())
            if (const int it = iterationAt(t.iterations, kernelIterationTime(t, KernelId(k)));
                it >= 0)
                top = iterationName[static_cast<size_t>(it)];
        if (!top.valid()) top = tops.ofKernel(k, layer);
        if (!top.valid() && op.valid() && t.ops.direction[op.value] == Direction::Backward &&
            t.ops.paired[op.value].valid())
            top = tops.ofPairedForwardOp(op, layer);
        if (layer.valid() && (layer == top || tops.isPhase(layer))) layer = StringId();
        const StringId opName =
            op.valid() ? t.ranges.name[t.ops.range[op.value].value] : StringId();
        leafOf[k] = b.leaf({top.value, layer.value, opName.value, links.direction[k]});
    }

    LayerTree& tree = b.tree;
    const auto nodes = static_cast<uint32_t>(tree.size());
    tree.childBegin.assign(nodes + 1, 0);
    for (uint32_t i = 1; i < nodes; ++i) ++tree.childBegin[tree.parent[i] + 1];
    for (uint32_t i = 0; i < nodes; ++i) tree.childBegin[i + 1] += tree.childBegin[i];
    tree.children.resize(nodes - 1);
    {
        std::vector<uint32_t> fill(tree.childBegin.begin(), tree.childBegin.end() - 1);
        for (uint32_t i = 1; i < nodes; ++i)
            tree.children[fill[tree.parent[i]]++] = i; // by id: by first kernel
    }

    // Totals at the leaves, then folded up (children have larger ids than their parent).
    tree.kernels.assign(nodes, 0);
    tree.gpuTimeNs.assign(nodes, 0);
    tree.flops.assign(nodes, NAN);
    tree.flopsTimeNs.assign(nodes, 0);
    tree.tcUsedTimeNs.assign(nodes, 0);
    for (uint32_t k = 0; k < n; ++k) {
        const uint32_t leaf = leafOf[k];
        const auto ns = static_cast<uint64_t>(t.kernels.duration(k));
        ++tree.kernels[leaf];
        tree.gpuTimeNs[leaf] += ns;
        if (std::isfinite(t.metrics.flops[k])) {
            addUp(tree.flops[leaf], t.metrics.flops[k]);
            tree.flopsTimeNs[leaf] += ns;
        }
        if (t.metrics.tc[k] == TcState::Used) tree.tcUsedTimeNs[leaf] += ns;
    }
    for (uint32_t i = nodes; i-- > 1;) {
        const uint32_t p = tree.parent[i];
        tree.kernels[p] += tree.kernels[i];
        tree.gpuTimeNs[p] += tree.gpuTimeNs[i];
        if (!std::isnan(tree.flops[i])) addUp(tree.flops[p], tree.flops[i]);
        tree.flopsTimeNs[p] += tree.flopsTimeNs[i];
        tree.tcUsedTimeNs[p] += tree.tcUsedTimeNs[i];
    }

    // Kernel slices in preorder; every kernel sits in an op node, which has no children.
    tree.kernelBegin.assign(nodes, 0);
    tree.kernelEnd.assign(nodes, 0);
    std::vector<uint32_t> fill(nodes, 0);
    uint32_t cursor = 0;
    std::vector<uint32_t> stack{0};
    while (!stack.empty()) {
        const uint32_t i = stack.back();
        stack.pop_back();
        tree.kernelBegin[i] = fill[i] = cursor;
        tree.kernelEnd[i] = cursor + static_cast<uint32_t>(tree.kernels[i]);
        const auto c = layerTreeChildren(tree, i);
        if (c.empty()) cursor = tree.kernelEnd[i];
        stack.insert(stack.end(), c.rbegin(), c.rend());
    }
    tree.orderedKernels.resize(n);
    for (uint32_t k = 0; k < n; ++k) tree.orderedKernels[fill[leafOf[k]]++] = KernelId(k);
    tree.kernelNode = std::move(leafOf);
    return std::move(b.tree); // `tree` is a reference: returning it would copy every column
}

std::span<const uint32_t> layerTreeChildren(const LayerTree& tree, uint32_t node) {
    if (size_t(node) + 1 >= tree.childBegin.size()) return {};
    return {tree.children.data() + tree.childBegin[node],
            tree.childBegin[node + 1] - tree.childBegin[node]};
}

std::string_view layerNodeName(const Trace& t, const LayerTree& tree, uint32_t node) {
    if (node >= tree.size()) return {};
    switch (tree.kind[node]) {
    case LayerNodeKind::Root:
        return "All kernels";
    case LayerNodeKind::Direction:
        return directionName(tree.direction[node]);
    case LayerNodeKind::Op:
        return tree.name[node].valid() ? t.str(tree.name[node]) : "(no op)";
    case LayerNodeKind::Rank:
        return "rank"; // named by the session (which rank, which file)
    case LayerNodeKind::Range:
    case LayerNodeKind::Layer:
        break;
    }
    return t.str(tree.name[node]);
}

std::vector<KernelId> kernelsOfNode(const Trace& t, const LayerTree& tree, uint32_t node) {
    if (node >= tree.size()) return {};
    if (tree.kind[node] == LayerNodeKind::Layer) return kernelsOfLayer(t, tree.name[node]);
    std::vector<KernelId> out(tree.orderedKernels.begin() + tree.kernelBegin[node],
                              tree.orderedKernels.begin() + tree.kernelEnd[node]);
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace ls
