#include "core/model/dtype.h"

namespace ls {
namespace {

struct Token {
    std::string_view text;
    DType type;
};

// Checked in order: the first token found decides (bf16 before f16, tf32 before f32).
constexpr Token kKernelTokens[] = {
    {"e4m3", DType::FP8},      {"e5m2", DType::FP8},   {"BFloat16", DType::BF16},
    {"bfloat16", DType::BF16}, {"bf16", DType::BF16},  {"_tst_", DType::BF16},
    {"c10::Half", DType::F16}, {"__half", DType::F16}, {"half_t", DType::F16},
    {"float16", DType::F16},   {"_hsh_", DType::F16},  {"_hss_", DType::F16},
    {"_f16", DType::F16},      {"f16_", DType::F16},   {"fp16", DType::F16},
    {"h884", DType::F16},      {"h1688", DType::F16},  {"h16816", DType::F16},
    {"tf32", DType::TF32},     {"_f32", DType::F32},   {"f32_", DType::F32},
    {"sgemm", DType::F32},     {"float", DType::F32},  {"double", DType::F64},
};

// The name without its trailing parameter list: "(float *, double, int)" names argument types,
// not the tensors' (amp_update_scale_cuda_kernel takes doubles but works on float tensors).
std::string_view withoutParameters(std::string_view name) {
    int depth = 0;
    for (size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (c == '<')
            ++depth;
        else if (c == '>' && depth > 0)
            --depth;
        else if (c == '(' && depth == 0 && name.substr(i, 21) != "(anonymous namespace)")
            return name.substr(0, i);
    }
    return name;
}

} // namespace

std::string_view dtypeName(DType d) {
    switch (d) {
    case DType::F64:
        return "float64";
    case DType::F32:
        return "float32";
    case DType::TF32:
        return "tf32";
    case DType::F16:
        return "float16";
    case DType::BF16:
        return "bfloat16";
    case DType::FP8:
        return "float8";
    case DType::I64:
        return "int64";
    case DType::I32:
        return "int32";
    case DType::I8:
        return "int8";
    case DType::Unknown:
        break;
    }
    return "";
}

int dtypeBytes(DType d) {
    switch (d) {
    case DType::F64:
    case DType::I64:
        return 8;
    case DType::F32:
    case DType::TF32:
    case DType::I32:
        return 4;
    case DType::F16:
    case DType::BF16:
        return 2;
    case DType::FP8:
    case DType::I8:
        return 1;
    case DType::Unknown:
        break;
    }
    return 0;
}

DType dtypeFromName(std::string_view n) {
    if (n.substr(0, 6) == "torch.") n.remove_prefix(6);
    if (n == "float16" || n == "half" || n == "Half") return DType::F16;
    if (n == "bfloat16" || n == "BFloat16") return DType::BF16;
    if (n == "float32" || n == "float" || n == "Float") return DType::F32;
    if (n == "float64" || n == "double" || n == "Double") return DType::F64;
    if (n == "int64" || n == "long" || n == "Long") return DType::I64;
    if (n == "int32" || n == "int" || n == "Int") return DType::I32;
    if (n == "int8" || n == "uint8") return DType::I8;
    return DType::Unknown;
}

DType dtypeFromKernelName(std::string_view kernel) {
    kernel = withoutParameters(kernel);
    for (const auto& t : kKernelTokens)
        if (kernel.find(t.text) != std::string_view::npos) return t.type;
    return DType::Unknown;
}

} // namespace ls
