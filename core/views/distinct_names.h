#pragma once
// Short kernel names that tell kernels apart. A short name ("Kernel2", "elementwise_kernel")
// is what fits on a chart axis or a timeline bar, but three different cuBLAS/CUTLASS GEMMs all
// read "Kernel2". Where a short name is shared by several full names in the view, each gets the
// part of its template arguments that distinguishes it: element type, tile and layout for GEMMs
// ("Kernel2 ·f16 128x128 tn"), else the words only it has ("vectorized_elementwise_kernel
// ·CUDAFunctor_add Half").
#include <string>
#include <string_view>
#include <vector>

namespace ls {

// shortNames[i] is the short name of fullNames[i]; the result keeps the order.
std::vector<std::string> distinctShortNames(const std::vector<std::string_view>& fullNames,
                                            const std::vector<std::string_view>& shortNames);

} // namespace ls
