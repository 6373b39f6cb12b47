#include "core/model/natural_order.h"

#include <cctype>

namespace ls {
namespace {

bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// A run of digits without its leading zeros.
std::string_view number(std::string_view s, size_t& i) {
    const size_t begin = i;
    while (i < s.size() && isDigit(s[i])) ++i;
    std::string_view run = s.substr(begin, i - begin);
    const size_t nonZero = run.find_first_not_of('0');
    return nonZero == std::string_view::npos ? std::string_view() : run.substr(nonZero);
}

} // namespace

bool naturalLess(std::string_view a, std::string_view b) {
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (isDigit(a[i]) && isDigit(b[j])) {
            const std::string_view x = number(a, i), y = number(b, j);
            if (x.size() != y.size()) return x.size() < y.size();
            if (x != y) return x < y;
            continue;
        }
        if (a[i] != b[j]) return a[i] < b[j];
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

} // namespace ls
