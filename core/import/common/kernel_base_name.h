#pragma once
// A kernel's base name from its demangled name, for importers whose format has no short name
// (nvprof databases, PyTorch profiler JSON): "void at::native::foo<float>(int, float*)" -> "foo".
#include <string>
#include <string_view>

namespace ls {

// Template arguments and the parameter list are dropped; "(anonymous namespace)" counts as a scope.
std::string kernelBaseName(std::string_view demangled);

} // namespace ls
