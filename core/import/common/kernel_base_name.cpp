#include "core/import/common/kernel_base_name.h"

namespace ls {

// "void at::native::foo<float>(int, float*)" -> "foo": the function's own name.
std::string kernelBaseName(std::string_view demangled) {
    int depth = 0;
    size_t end = demangled.size();
    for (size_t i = 0; i < demangled.size(); ++i) {
        const char c = demangled[i];
        if (c == '<')
            ++depth;
        else if (c == '>')
            --depth;
        else if (c == '(' && depth == 0) {
            if (demangled.compare(i, 21, "(anonymous namespace)") ==
                0) { // a scope, not the parameter list
                i += 20;
                continue;
            }
            end = i;
            break;
        }
    }
    std::string head(demangled.substr(0, end));
    // Drop template arguments at the end, then everything up to the last scope or space.
    while (!head.empty() && head.back() == '>') {
        int d = 0;
        size_t i = head.size();
        while (i-- > 0) {
            if (head[i] == '>')
                ++d;
            else if (head[i] == '<' && --d == 0)
                break;
        }
        head.resize(i == std::string::npos ? 0 : i);
    }
    const size_t cut = head.find_last_of(": ");
    return cut == std::string::npos ? head : head.substr(cut + 1);
}

} // namespace ls
