#pragma once
// The hierarchy the GUI's layer tree dock shows. Each kernel goes down one path, outermost first:
//   top user range ("iteration 2", "step 3 rank 0") → direction → layer ("layer0") → op
// ("aten::linear", "AddmmBackward0", "(no op)"); a level that does not apply is skipped. Nodes
// with the same name under the same parent merge (two iterations are two top nodes, all
// aten::addmm instances of layer0's forward one op node). Siblings are in order of their first
// kernel's start. Backward kernels run by the autograd engine outside any user range take the top
// range of their paired forward op (their layer already is the forward op's,
// core/pytorch/correlation.h).
//
// Top range: on the kernel's NVTX stack (push/pop and start/end, as rangeStack), the outermost
// user range (not a framework marker, not a mark) whose name is no phase ("forward",
// "optimizer") and is not the kernel's layer. Where the only such range is the layer itself, it
// heads the path (and the layer level is skipped) unless a phase range encloses it: DDP's
// "step 3 rank 0" around ops without layer ranges is a top range, "forward" > "layer0" without
// an iteration range gives forward → layer0. Layer: kernelLinks.layer, skipped when absent, a
// phase, or equal to the top range. A trace without iteration ranges whose iterations were
// detected at load (core/pytorch/iterations.h: "step 3") takes the detected iteration holding
// the kernel's launch as its top instead.
#include "core/model/trace.h"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace ls {

// Rank: one trace of a session, only in a session's combined tree
// (core/views/session_layer_tree.h).
enum class LayerNodeKind : uint8_t { Root, Range, Direction, Layer, Op, Rank };
std::string_view
layerNodeKindName(LayerNodeKind k); // "root", "range", "direction", "layer", "op", "rank"

// Struct of arrays; node 0 is the root and a parent always has a smaller id than its children.
struct LayerTree {
    std::vector<uint32_t> parent; // the root's parent is 0
    std::vector<LayerNodeKind> kind;
    std::vector<uint8_t> depth; // root 0, at most 4
    std::vector<StringId> name; // Range, Layer, Op nodes (invalid for "(no op)"); see layerNodeName
    std::vector<Direction> direction; // Direction nodes and the nodes below them; Other above
    // Children of n, in order of their first kernel's start: children[childBegin[n] .. childBegin[n
    // + 1]).
    std::vector<uint32_t> childBegin;
    std::vector<uint32_t> children;
    // Totals over each node's subtree (layer_sum's conventions, core/reports/nvtx_summary.h).
    std::vector<uint64_t> kernels, gpuTimeNs;
    std::vector<double> flops;          // sum of the known FLOP counts; NaN when none is known
    std::vector<uint64_t> flopsTimeNs;  // GPU time of the kernels with a known FLOP count
    std::vector<uint64_t> tcUsedTimeNs; // GPU time of the kernels that used Tensor Cores
    // Kernel ids in tree order (preorder, by id within a leaf): the kernels of n's subtree are
    // orderedKernels[kernelBegin[n] .. kernelEnd[n]).
    std::vector<KernelId> orderedKernels;
    std::vector<uint32_t> kernelBegin, kernelEnd;
    std::vector<uint32_t> kernelNode; // per kernel: the op node (leaf) it went to

    size_t size() const { return parent.size(); }
};

// O(kernels + ranges) plus one stack query per kernel whose thread has start/end ranges.
LayerTree buildLayerTree(const Trace& t);

std::span<const uint32_t> layerTreeChildren(const LayerTree& tree, uint32_t node);
// Range, layer and op names, "forward"/"backward"/"optimizer"/"other", "(no op)", "All kernels".
std::string_view layerNodeName(const Trace& t, const LayerTree& tree, uint32_t node);
// The kernels a click on the node shows, by id: a Layer node gives all the layer's kernels in
// both directions and every top range (kernelsOfLayer, as `layerscope-cli kernels --layer`),
// any other node its subtree's kernels.
std::vector<KernelId> kernelsOfNode(const Trace& t, const LayerTree& tree, uint32_t node);

} // namespace ls
