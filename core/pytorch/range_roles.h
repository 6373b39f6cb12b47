#pragma once
// What an NVTX range name means to the correlation: a framework marker (PyTorch op, autograd
// engine, communication library) or a user range (a layer, a phase), and which phase it names.
// The name lists are data, in range_roles.cpp.
#include "core/model/direction.h"

#include <optional>
#include <string_view>

namespace ls {

// True for ranges that frameworks emit (aten::…, autograd::…, NCCL:…, Optimizer.step#…);
// isPytorchMarker is the parser's verdict on the raw text.
bool isFrameworkRange(std::string_view normalizedName, bool isPytorchMarker);

// "autograd::engine::evaluate_function: AddmmBackward0": the autograd engine's wrapper around a
// backward node and the ops it runs for it.
bool isBackwardWrapper(std::string_view normalizedName);
// "AddmmBackward0", "torch::autograd::AccumulateGrad", older "AddmmBackward".
bool isBackwardNode(std::string_view normalizedName);
// Optimizer work: "Optimizer.step#AdamW.step", "aten::_foreach_add_", "aten::_fused_adamw_".
bool isOptimizerOp(std::string_view normalizedName);
// The phase a user range names, if any: "forward", "backward", "optimizer.step", "optim" …
bool userRangePhase(std::string_view name, Direction& phase);

// The number of an iteration range: "iteration 3", "iter_3", "step 12", "Step 4 rank 0",
// "ProfilerStep#4", "train_step 2" -> the number; anything else -> none.
std::optional<int> iterationNumber(std::string_view name);

} // namespace ls
