// The key a kernel name is matched by: Nsight Systems and Nsight Compute print the same
// demangled name differently (casts before template values, namespace qualifiers, spaces).
#include "core/import/ncu/ncu_match.h"

#include <cctype>
#include <string>

namespace ls {
namespace {

bool isIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentStart(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '~';
}

// "(int)" "(unsigned long)" "(bool)" right before a number: Nsight Systems prints template value
// arguments with their type, ncu without.
size_t castLength(std::string_view s, size_t open) {
    const size_t close = s.find(')', open);
    if (close == std::string_view::npos || close == open + 1 || close + 1 >= s.size()) return 0;
    const char next = s[close + 1];
    if (!std::isdigit(static_cast<unsigned char>(next)) && next != '-') return 0;
    if (!std::islower(static_cast<unsigned char>(s[open + 1])) && s[open + 1] != '_') return 0;
    for (size_t i = open + 1; i < close; ++i)
        if (!std::islower(static_cast<unsigned char>(s[i])) &&
            !std::isdigit(static_cast<unsigned char>(s[i])) && s[i] != '_' && s[i] != ' ')
            return 0;
    return close + 1 - open;
}

} // namespace

std::string ncuNameKey(std::string_view s) {
    std::string a;
    a.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        if (s.compare(i, 21, "(anonymous namespace)") == 0) {
            a += "<unnamed>";
            i += 21;
        } else if (s[i] == '(' && castLength(s, i)) {
            i += castLength(s, i);
        } else {
            a += s[i++];
        }
    }
    // Drop namespace and class qualifiers ("at::native::", "<unnamed>::"): ncu prints fewer of
    // them than Nsight Systems does.
    std::string b;
    b.reserve(a.size());
    for (size_t i = 0; i < a.size();) {
        const bool start = i == 0 || !isIdent(a[i - 1]);
        if (start && isIdentStart(a[i])) {
            size_t j = i + 1;
            while (j < a.size() && isIdent(a[j])) ++j;
            if (a.compare(j, 2, "::") == 0)
                i = j + 2;
            else {
                b.append(a, i, j - i);
                i = j;
            }
        } else if (a.compare(i, 11, "<unnamed>::") == 0) {
            i += 11;
        } else {
            b += a[i++];
        }
    }
    // Whitespace only where it separates two words.
    std::string out;
    out.reserve(b.size());
    for (size_t i = 0; i < b.size(); ++i) {
        if (!std::isspace(static_cast<unsigned char>(b[i]))) {
            out += b[i];
            continue;
        }
        size_t j = i;
        while (j < b.size() && std::isspace(static_cast<unsigned char>(b[j]))) ++j;
        if (!out.empty() && j < b.size() && isIdent(out.back()) && isIdent(b[j])) out += ' ';
        i = j - 1;
    }
    return out;
}

} // namespace ls
