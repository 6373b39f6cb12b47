#include "core/import/paddle/paddle_categories.h"

#include <cctype>
#include <string>
#include <utility>

namespace ls {

PaddleCategory paddleCategory(std::string_view cat) {
    // Compared without case and underscores: "OperatorInner", "operator_inner", "operatorinner".
    std::string key;
    for (char c : cat)
        if (c != '_') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static constexpr std::pair<std::string_view, PaddleCategory> kTable[] = {
        // Ops and their inner phases (infer_meta, compute, node_creation) are framework markers:
        // a top-level one is an op instance, nested ones its phases (docs/summary-tables.md).
        {"operator", {PaddleRole::Kineto, "cpu_op"}},
        {"operatorinner", {PaddleRole::Kineto, "cpu_op"}},
        {"communication", {PaddleRole::Kineto, "cpu_op"}},
        {"cudaruntime", {PaddleRole::Kineto, "cuda_runtime"}},
        {"mluruntime", {PaddleRole::Kineto, "cuda_runtime"}},
        {"kernel", {PaddleRole::Kineto, "kernel"}},
        {"memcpy", {PaddleRole::Kineto, "gpu_memcpy"}},
        {"memset", {PaddleRole::Kineto, "gpu_memset"}},
        // User ranges: ProfileStep#N are the iterations, "Gradient Backward" and "Optimization
        // Step" name their phases, the data loader's span is a range of its own.
        {"userdefined", {PaddleRole::Kineto, "user_annotation"}},
        {"pythonuserdefined", {PaddleRole::Kineto, "user_annotation"}},
        {"profilestep", {PaddleRole::Kineto, "user_annotation"}},
        {"backward", {PaddleRole::Kineto, "user_annotation"}},
        {"optimization", {PaddleRole::Kineto, "user_annotation"}},
        {"dataloader", {PaddleRole::Kineto, "user_annotation"}},
        {"forward", {PaddleRole::LayerScope, {}}},
        {"allocate", {PaddleRole::Memory, {}}},
        {"free", {PaddleRole::Memory, {}}},
        {"reservedallocate", {PaddleRole::Memory, {}}},
        {"reservedfree", {PaddleRole::Memory, {}}},
        {"pythonop", {PaddleRole::NotModelled, {}}},
    };
    for (const auto& [name, category] : kTable)
        if (key == name) return category;
    return {};
}

} // namespace ls
