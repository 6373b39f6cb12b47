#pragma once
// The one place for platform calls.
#include <cstdint>

namespace ls::platform {

// Peak resident set size of this process in bytes (0 when unknown).
uint64_t peakRssBytes();

} // namespace ls::platform
