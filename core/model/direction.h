#pragma once
#include <cstdint>
#include <string_view>

namespace ls {

// Which part of a training step a kernel belongs to.
enum class Direction : uint8_t { Forward, Backward, Optimizer, Other };
std::string_view directionName(Direction d);

} // namespace ls
