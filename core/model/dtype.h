#pragma once
// Element types, read from a marker ("float16") or inferred from a kernel name.
#include <cstdint>
#include <string_view>

namespace ls {

enum class DType : uint8_t { Unknown, F64, F32, TF32, F16, BF16, FP8, I64, I32, I8 };
enum class DTypeSource : uint8_t { None, Marker, KernelName };

std::string_view dtypeName(DType d);
int dtypeBytes(DType d); // 0 when unknown
// "float16", "torch.bfloat16", "Half" ... as markers and dict args write them.
DType dtypeFromName(std::string_view name);
// From the type tokens cuBLAS, cuDNN, CUTLASS and ATen put in kernel names (hsh, bf16, c10::Half,
// float, ...); Unknown when the name says nothing.
DType dtypeFromKernelName(std::string_view kernel);

} // namespace ls
