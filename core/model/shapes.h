#pragma once
// Tensor shapes as emit_nvtx records them ("[[8, 768], [768, 3072], []]"); [] marks a scalar or a
// non-tensor argument and counts as no tensor.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace ls {

using Shape = std::vector<int64_t>;
using Shapes = std::vector<Shape>;

// nullopt when the text is not a list of integer lists.
std::optional<Shapes> parseShapes(std::string_view text);
double numel(const Shape& s); // 0 for an empty shape (no tensor)
// Numpy broadcast of the non-empty shapes; nullopt when they do not broadcast.
std::optional<Shape> broadcastShape(const Shapes& shapes);

} // namespace ls
