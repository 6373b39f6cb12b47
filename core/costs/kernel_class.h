#pragma once
// What kind of work a kernel does, for the timeline's colours and legend: GEMM/convolution on
// Tensor Cores or not, attention, elementwise, reduction, communication. One ordered table of
// name patterns (kernel_class.cpp), checked after the Tensor Core verdict.
#include "core/model/trace.h"

#include <string_view>

namespace ls {

enum class KernelClass : uint8_t {
    GemmTensorCore,
    GemmNoTensorCore,
    Attention,
    Elementwise,
    Reduction,
    Communication,
    Other
};
inline constexpr int kKernelClassCount = 7;
std::string_view kernelClassName(KernelClass c);

KernelClass classifyKernel(std::string_view name, TcState tc);
// Per kernel of the trace, cached per distinct name.
std::vector<KernelClass> classifyKernels(const Trace& t);

} // namespace ls
