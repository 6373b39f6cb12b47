#pragma once
// How findings write numbers: milliseconds with a precision that suits their size, percentages.
#include <string>

namespace ls {

std::string findingMs(double ns);      // 1234567 ns -> "1.23 ms"; 98765432 -> "98.8 ms"
std::string findingPercent(double pc); // 12.345 -> "12.3 %"

} // namespace ls
