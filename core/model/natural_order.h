#pragma once
// Orders names as people read them: runs of digits compare as numbers ("rank2" before "rank10",
// "2024.4.1" before "2024.10.1"), everything else byte by byte.
#include <string_view>

namespace ls {

bool naturalLess(std::string_view a, std::string_view b);

} // namespace ls
