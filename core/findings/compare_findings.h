#pragma once
// Findings of a comparison: a trace against a reference run (the same model in a good
// configuration), the layer, the op and the kernel family that explain most of its extra GPU
// time per iteration, from run_diff.h's rows at those levels (`diff A B --by layer|op|family`).
#include "core/compare/run_diff.h"
#include "core/findings/finding.h"
#include "core/model/session.h"

namespace ls {

// compare_layer, compare_op, compare_family: one finding per level whose top row explains at
// least 1 % of an iteration, when the session's first rank takes more GPU time per iteration
// than the reference. Evidence: that row's kernels on the session's side.
std::vector<Finding> comparisonFindings(const Session& session, const DiffSide& reference,
                                        double iterationNs);

// findings(session) and the comparison's, costliest first.
FindingList findingsAgainst(const Session& session, const DiffSide& reference);

} // namespace ls
