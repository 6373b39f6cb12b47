#pragma once
// GPU time of all kernels split by one attribute (direction, Tensor Core state, layer), for the
// Summary tab's charts. Each share knows the filter expression that shows its kernels.
#include "core/model/trace.h"

#include <string>
#include <vector>

namespace ls {

struct TimeShare {
    std::string label;
    uint64_t kernels = 0;
    uint64_t gpuTimeNs = 0;
    std::string filter; // kernel filter expression selecting exactly these kernels
};

// Every direction / state that occurs, in their enum order.
std::vector<TimeShare> gpuTimeByDirection(const Trace& t);
std::vector<TimeShare> gpuTimeByTensorCores(const Trace& t);
// By layer (both directions), largest first; kernels outside every layer are one share per
// direction, "(outside layers) · forward".
std::vector<TimeShare> gpuTimeByLayer(const Trace& t);

// Quotes a value for a filter expression: "a \"b\"".
std::string quoteFilterValue(std::string_view v);

} // namespace ls
