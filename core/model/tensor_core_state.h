#pragma once
// The three Tensor Core states a kernel can have (the vocabulary; the rules that decide them are
// in core/costs/tensor_core.h).
#include <cstdint>
#include <string_view>

namespace ls {

enum class TcState : uint8_t { NotApplicable, Used, NotUsed };

// "used", "not used", "n/a"
inline std::string_view tcStateName(TcState s) {
    switch (s) {
    case TcState::Used:
        return "used";
    case TcState::NotUsed:
        return "not used";
    case TcState::NotApplicable:
        break;
    }
    return "n/a";
}

} // namespace ls
