#pragma once
// Chrome-trace times are microseconds written in decimal ("4628894605263.866"). A double keeps
// about 16 significant digits, fewer than an epoch timestamp with nanoseconds has, so the text is
// read as a fixed-point number: ns = round(us x 1000), half away from zero, exactly.
#include <cstdint>
#include <optional>
#include <string_view>

namespace ls {

// nullopt when the text is not a JSON number or the result does not fit in int64.
std::optional<int64_t> microsTextToNs(std::string_view text);

} // namespace ls
