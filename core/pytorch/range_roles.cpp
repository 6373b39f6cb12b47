#include "core/pytorch/range_roles.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace ls {
namespace {

constexpr std::string_view kFrameworkPrefixes[] = {
    "aten::",
    "autograd::",
    "torch::",
    "c10d::",
    "nccl:",
    "NCCL:",
    "cuBLAS:",
    "cuDNN:",
    "Optimizer.",
    "ProfilerStep#",
    "record_param_comms",
    "DistributedDataParallel.",
    "cudaMemcpy",
    "cudaLaunch",
    "traceMarker",
};
constexpr std::string_view kBackwardWrapper = "autograd::engine::evaluate_function: ";
// GradScaler's ops are optimizer work wherever they run: unscale_ (the _amp_foreach_ check) inside
// Optimizer.step, update() after it and often outside any range.
constexpr std::string_view kOptimizerOps[] = {"Optimizer.step", "Optimizer.zero_grad",
                                              "_foreach_",      "_fused_adam",
                                              "_fused_sgd",     "_amp_update_scale_"};

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

} // namespace

std::string_view directionName(Direction d) {
    switch (d) {
    case Direction::Forward:
        return "forward";
    case Direction::Backward:
        return "backward";
    case Direction::Optimizer:
        return "optimizer";
    case Direction::Other:
        break;
    }
    return "other";
}

bool isFrameworkRange(std::string_view name, bool isPytorchMarker) {
    if (isPytorchMarker) return true;
    return std::any_of(std::begin(kFrameworkPrefixes), std::end(kFrameworkPrefixes),
                       [&](std::string_view p) { return startsWith(name, p); }) ||
           isBackwardNode(name);
}

bool isBackwardWrapper(std::string_view name) { return startsWith(name, kBackwardWrapper); }

bool isBackwardNode(std::string_view name) {
    if (name == "torch::autograd::AccumulateGrad") return true;
    size_t end = name.size();
    while (end > 0 && std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
    constexpr std::string_view suffix = "Backward";
    return end > suffix.size() && name.substr(end - suffix.size(), suffix.size()) == suffix &&
           name.find(' ') == std::string_view::npos;
}

bool isOptimizerOp(std::string_view name) {
    return std::any_of(std::begin(kOptimizerOps), std::end(kOptimizerOps),
                       [&](std::string_view p) { return name.find(p) != std::string_view::npos; });
}

bool userRangePhase(std::string_view name, Direction& phase) {
    // Whole words only: "FeedForward" or "optimized_mlp" name no phase.
    const std::string n = lower(name);
    size_t i = 0;
    while (i < n.size()) {
        while (i < n.size() && !std::isalpha(static_cast<unsigned char>(n[i]))) ++i;
        size_t j = i;
        while (j < n.size() && std::isalpha(static_cast<unsigned char>(n[j]))) ++j;
        const std::string_view word = std::string_view(n).substr(i, j - i);
        // "optimization": PaddlePaddle's optimizer span ("Optimization Step").
        if (word == "optimizer" || word == "optim" || word == "optimiser" || word == "optimization")
            phase = Direction::Optimizer;
        else if (word == "backward")
            phase = Direction::Backward;
        else if (word == "forward")
            phase = Direction::Forward;
        else {
            i = j;
            continue;
        }
        return true;
    }
    return false;
}

std::optional<int> iterationNumber(std::string_view name) {
    const std::string l = lower(name);
    // "inference N": a serving or benchmark loop's passes are its iterations, never layers.
    // "ProfileStep#N": PaddlePaddle's profiler steps.
    static constexpr std::string_view kWords[] = {
        "profilerstep#", "profilestep#", "train_step", "iteration", "inference", "iter", "step"};
    for (const auto word : kWords) {
        if (!startsWith(l, word)) continue;
        size_t i = word.size();
        while (i < l.size() &&
               (l[i] == ' ' || l[i] == '_' || l[i] == '#' || l[i] == '-' || l[i] == '='))
            ++i;
        size_t end = i;
        while (end < l.size() && std::isdigit(static_cast<unsigned char>(l[end])) && end - i < 9)
            ++end;
        if (end == i || (end < l.size() && std::isalnum(static_cast<unsigned char>(l[end]))))
            return std::nullopt;
        return std::stoi(l.substr(i, end - i));
    }
    return std::nullopt;
}

} // namespace ls
