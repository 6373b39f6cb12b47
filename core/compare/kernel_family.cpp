#include "core/compare/kernel_family.h"

#include "core/costs/collective.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace ls {
namespace {

struct FamilyRule {
    std::string_view pattern; // lower-case substring of the demangled name
    std::string_view family;
};

// First match wins: attention before GEMM (flash kernels are wgmma GEMMs inside), convolution
// before GEMM (implicit-GEMM convolutions say gemm). cuDNN's flash attention runs two helpers
// beside its fprop/bprop kernels (compute_dot_do_o, convert_dq_to_16bits).
constexpr std::array kLibraryFamilies = {
    FamilyRule{"flash", "Attention (flash/SDPA)"},
    FamilyRule{"fmha", "Attention (flash/SDPA)"},
    FamilyRule{"sdpa", "Attention (flash/SDPA)"},
    FamilyRule{"attention", "Attention (flash/SDPA)"},
    FamilyRule{"compute_dot_do_o", "Attention (flash/SDPA)"},
    FamilyRule{"convert_dq_to_16bits", "Attention (flash/SDPA)"},
    FamilyRule{"implicit_convolve", "Convolution (cuDNN/CUTLASS)"},
    FamilyRule{"convolve", "Convolution (cuDNN/CUTLASS)"},
    FamilyRule{"conv2d", "Convolution (cuDNN/CUTLASS)"},
    FamilyRule{"dgrad", "Convolution (cuDNN/CUTLASS)"},
    FamilyRule{"wgrad", "Convolution (cuDNN/CUTLASS)"},
    FamilyRule{"_fprop", "Convolution (cuDNN/CUTLASS)"},
    FamilyRule{"gemm", "GEMM (cuBLAS/CUTLASS)"},
    FamilyRule{"nvjet", "GEMM (cuBLAS/CUTLASS)"},
    FamilyRule{"cutlass", "GEMM (cuBLAS/CUTLASS)"},
    FamilyRule{"cublas", "GEMM (cuBLAS/CUTLASS)"},
    FamilyRule{"gemv", "GEMM (cuBLAS/CUTLASS)"},
    FamilyRule{"splitkreduce", "GEMM (cuBLAS/CUTLASS)"},
    FamilyRule{"xmma", "GEMM (cuBLAS/CUTLASS)"},
};

// Namespaces that say nothing about the work; dropped for a readable family.
constexpr std::array<std::string_view, 12> kNamespaces = {
    "(anonymous namespace)::",
    "<unnamed>::",
    "at::native::",
    "at::cuda::",
    "at::",
    "c10::",
    "std::",
    "cub::",
    "thrust::",
    "binary_internal::",
    "detail::",
    "native::",
};

// Element types, whole or as a part of an identifier between underscores, become T.
constexpr std::array<std::string_view, 22> kElementTypes = {
    "half",   "float",         "double",      "bfloat16", "float16",  "fp16",   "bf16",   "f16",
    "fp32",   "f32",           "tf32",        "fp8",      "e4m3",     "e5m2",   "e4m3fn", "float8",
    "__half", "__nv_bfloat16", "nv_bfloat16", "__nv_fp8", "bf16bf16", "f16f16",
};

// Integer casts in template arguments: "(int)8", "(unsigned long)3", "(bool)1".
constexpr std::array<std::string_view, 9> kIntegerCasts = {
    "(int)",  "(unsigned int)", "(long)", "(unsigned long)", "(long long)", "(unsigned long long)",
    "(bool)", "(short)",        "(char)",
};

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

void replaceAll(std::string& s, std::string_view from, std::string_view to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

// The demangled name without its return type and parameter list.
std::string_view signatureHead(std::string_view name) {
    if (name.starts_with("void ")) name.remove_prefix(5);
    int depth = 0;
    for (size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (c == '<')
            ++depth;
        else if (c == '>')
            --depth;
        else if (c == '(' && depth == 0 && name.compare(i, 21, "(anonymous namespace)") != 0)
            return name.substr(0, i);
    }
    return name;
}

bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The end of the group opened at s[i] (one of ( [ {), or s.size() when it never closes.
size_t closingOf(const std::string& s, size_t i) {
    const char open = s[i], close = open == '(' ? ')' : open == '[' ? ']' : '}';
    int depth = 0;
    for (size_t j = i; j < s.size(); ++j) {
        if (s[j] == open)
            ++depth;
        else if (s[j] == close && --depth == 0)
            return j;
    }
    return s.size();
}

// Lambdas in either demangler's spelling ("[lambda(float) (instance 3)]" from Nsight Systems,
// "{lambda(float)#1}" from the PyTorch profiler) become "[lambda]"; other parenthesized groups
// (a function's parameters inside a template argument) go, and so does the call operator
// between nested lambdas ("::operator ()() const").
std::string dropParentheses(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if ((s[i] == '[' || s[i] == '{') && s.compare(i + 1, 6, "lambda") == 0) {
            out += "[lambda]";
            i = closingOf(s, i);
        } else if (s[i] == '(') {
            i = closingOf(s, i);
        } else {
            out += s[i];
        }
    }
    return out;
}

// After spaces are normalized: "[lambda]::operator const::[lambda]" -> "[lambda]".
std::string dropCallOperators(std::string s) {
    for (std::string_view op : {"::operator const", "::operator"}) replaceAll(s, op, "");
    while (s.find("[lambda]::[lambda]") != std::string::npos)
        replaceAll(s, "[lambda]::[lambda]", "[lambda]");
    return s;
}

// One spelling of spaces: none around punctuation ("char *" and "char*", "> >" and ">>"), one
// after a comma, one between two words ("unsigned int"); the keyword "void" goes.
std::string normalizeSpaces(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != ' ') {
            out += s[i];
            if (s[i] == ',') out += ' ';
            continue;
        }
        const bool between =
            !out.empty() && isIdentChar(out.back()) && i + 1 < s.size() && isIdentChar(s[i + 1]);
        if (between) out += ' ';
    }
    for (size_t at = out.find("void "); at != std::string::npos; at = out.find("void ", at)) {
        if (at == 0 || !isIdentChar(out[at - 1]))
            out.erase(at, 5);
        else
            ++at;
    }
    replaceAll(out, ",  ", ", ");
    return out;
}

bool isElementType(std::string_view part) {
    const std::string l = lower(part);
    return std::find(kElementTypes.begin(), kElementTypes.end(), l) != kElementTypes.end();
}

// Each identifier: element-type parts (split at '_') become T, digit runs N.
std::string foldIdentifiers(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size();) {
        if (!isIdentChar(s[i])) {
            out += s[i++];
            continue;
        }
        size_t j = i;
        while (j < s.size() && isIdentChar(s[j])) ++j;
        const std::string_view ident(s.data() + i, j - i);
        std::string folded;
        if (std::isdigit(static_cast<unsigned char>(ident.front())) || ident == "true" ||
            ident == "false") {
            out += 'N'; // 8, 4096ul, true: template integers and flags
            i = j;
            continue;
        }
        if (isElementType(ident)) {
            folded = "T";
        } else {
            for (size_t p = 0; p <= ident.size();) {
                size_t q = ident.find('_', p);
                if (q == std::string_view::npos) q = ident.size();
                const std::string_view part = ident.substr(p, q - p);
                folded +=
                    !part.empty() && isElementType(part) ? std::string("T") : std::string(part);
                if (q < ident.size()) folded += '_';
                p = q + 1;
            }
        }
        std::string digitsFolded;
        for (size_t k = 0; k < folded.size(); ++k) {
            if (std::isdigit(static_cast<unsigned char>(folded[k]))) {
                while (k + 1 < folded.size() &&
                       std::isdigit(static_cast<unsigned char>(folded[k + 1])))
                    ++k;
                digitsFolded += 'N';
            } else {
                digitsFolded += folded[k];
            }
        }
        out += digitsFolded;
        i = j;
    }
    return out;
}

} // namespace

std::string kernelFamily(std::string_view demangledName) {
    const Collective c = collectiveOfKernel(demangledName);
    if (c != Collective::None) return "NCCL " + std::string(collectiveName(c));
    const std::string l = lower(demangledName);
    for (const FamilyRule& r : kLibraryFamilies)
        if (l.find(r.pattern) != std::string::npos) return std::string(r.family);

    std::string s(signatureHead(demangledName));
    for (std::string_view cast : kIntegerCasts) replaceAll(s, cast, "");
    replaceAll(s, "(anonymous namespace)", "<unnamed>");
    s = dropCallOperators(normalizeSpaces(dropParentheses(s)));
    for (std::string_view ns : kNamespaces) replaceAll(s, ns, "");
    s = foldIdentifiers(s);
    return s.empty() ? std::string(demangledName) : s;
}

} // namespace ls
