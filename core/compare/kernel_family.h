#pragma once
// A kernel's family: its name one level up, so that the same work at another precision, tile
// size or library version compares as one row. Known libraries fold to a named family ("GEMM
// (cuBLAS/CUTLASS)", "Attention (flash/SDPA)", "NCCL all_reduce"); any other kernel folds its
// demangled name: return type, parameters and namespaces dropped, element types to T, integer
// template arguments and tile sizes to N, lambda instances dropped (docs/compare.md). The rules
// are data, in kernel_family.cpp.
#include <string>
#include <string_view>

namespace ls {

std::string kernelFamily(std::string_view demangledName);

} // namespace ls
