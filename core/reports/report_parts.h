#pragma once
// What each `summary --report` reads (core/model/load_parts.h): a summary of one table loads
// that table and the strings, nothing else; reports over the correlated model load everything.
#include <cstdint>
#include <string_view>

namespace ls {

uint32_t reportLoadParts(std::string_view report);

} // namespace ls
