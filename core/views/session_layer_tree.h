#pragma once
// The layer trees of several traces (every rank of a session) under one root: a Rank node per
// trace, its tree below it. Node names stay in their trace's string pool (trace, local say
// where); kernels are session row ids (core/views/session_kernel_table.h), so a node's kernels
// fill the session's kernel table directly.
#include "core/views/layer_tree.h"

#include <vector>

namespace ls {

struct SessionLayerTree {
    LayerTree tree; // node 0 the root, 1..P the tables' Rank nodes, then each trace's nodes
    std::vector<uint32_t> trace; // per node: the trace it comes from (the root: 0)
    std::vector<uint32_t> local; // per node: its id in that trace's tree (a Rank node: 0, the root)
    std::vector<uint32_t> kernelBase; // per trace: session row id of its kernel 0
};

// trees[p] is trace p's tree; kernelBase[p] the session row id of its kernel 0.
SessionLayerTree combineLayerTrees(const std::vector<const LayerTree*>& trees,
                                   const std::vector<uint32_t>& kernelBase);

// As kernelsOfNode, as session row ids: a Layer node gives its trace's kernels of that layer,
// a Rank node its trace's kernels, the root every kernel.
std::vector<KernelId> kernelsOfSessionNode(const SessionLayerTree& s,
                                           const std::vector<const Trace*>& traces, uint32_t node);

} // namespace ls
