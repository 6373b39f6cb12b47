#pragma once
// The layer tree the GUI's left dock shows: per kernel a path of top user range ("iteration 2")
// → direction → layer → op, merged by name under each parent, with per-node totals. Backward
// kernels (launched on the autograd thread, outside any user range) take the top range and the
// layer of their paired forward op. Levels that do not apply are skipped.
#include "core/trace.h"

#include <span>
#include <string_view>
#include <vector>

namespace ls {

enum class LayerNodeKind : uint8_t { Root, Range, Direction, Layer, Op };

// Struct of arrays, node 0 is the root. Children are in order of their first kernel's start.
struct LayerTree {
    std::vector<uint32_t> parent;
    std::vector<LayerNodeKind> kind;
    std::vector<StringId> name;      // Range, Layer, Op nodes; "(no op)" for kernels without one
    std::vector<Direction> direction; // Direction nodes and everything below them
    std::vector<uint32_t> childBegin; // children of n: children[childBegin[n] .. childBegin[n + 1])
    std::vector<uint32_t> children;
    // Totals over the node's subtree.
    std::vector<uint64_t> kernels, gpuTimeNs;
    std::vector<double> flops;            // sum of known FLOPs; NaN when none is known
    std::vector<uint64_t> flopsTimeNs;    // GPU time of the kernels with known FLOPs (for TFLOP/s)
    std::vector<uint64_t> tcUsedTimeNs;   // GPU time of kernels that used Tensor Cores
    // Kernel ids ordered so that every subtree is one slice: node n holds
    // orderedKernels[kernelBegin[n] .. kernelEnd[n]).
    std::vector<KernelId> orderedKernels;
    std::vector<uint32_t> kernelBegin, kernelEnd;
    std::vector<uint32_t> kernelNode; // per kernel: the leaf it went to

    size_t size() const { return parent.size(); }
};

LayerTree buildLayerTree(const Trace& t);

std::span<const uint32_t> layerTreeChildren(const LayerTree& tree, uint32_t node);
// Display name: the range/layer/op name, the direction's name, "All kernels" for the root.
std::string_view layerNodeName(const Trace& t, const LayerTree& tree, uint32_t node);
// The kernels a click on the node shows, by id: a Layer node gives all the layer's kernels in
// both directions (as `layerscope-cli kernels --layer`), any other node its subtree's kernels.
std::vector<KernelId> kernelsOfNode(const Trace& t, const LayerTree& tree, uint32_t node);

} // namespace ls
