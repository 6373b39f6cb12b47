#include "core/import/kineto/json_time.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace ls {
namespace {

// Exponent forms ("1.5e3") are rare in traces: read through a double, rounded once.
std::optional<int64_t> viaDouble(std::string_view text) {
    const std::string s(text);
    char* end = nullptr;
    const double us = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(us)) return std::nullopt;
    const double ns = std::round(us * 1000.0);
    if (!(std::fabs(ns) < 9.2e18)) return std::nullopt;
    return static_cast<int64_t>(ns);
}

} // namespace

std::optional<int64_t> microsTextToNs(std::string_view text) {
    size_t i = 0;
    const bool negative = i < text.size() && text[i] == '-';
    if (negative) ++i;
    const size_t intStart = i;
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    int64_t us = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
        if (us > (kMax - 9) / 10) return std::nullopt;
        us = us * 10 + (text[i] - '0');
    }
    if (i == intStart) return std::nullopt;
    int64_t frac = 0;   // the first three decimals, as nanoseconds
    int roundDigit = 0; // the fourth decimal decides the rounding
    if (i < text.size() && text[i] == '.') {
        ++i;
        const size_t fracStart = i;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
            const size_t k = i - fracStart;
            if (k < 3)
                frac = frac * 10 + (text[i] - '0');
            else if (k == 3)
                roundDigit = text[i] - '0';
        }
        if (i == fracStart) return std::nullopt;
        for (size_t k = i - fracStart; k < 3; ++k) frac *= 10;
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) return viaDouble(text);
    if (i != text.size()) return std::nullopt;
    if (us > (kMax - 1000) / 1000) return std::nullopt;
    int64_t ns = us * 1000 + frac + (roundDigit >= 5 ? 1 : 0);
    return negative ? -ns : ns;
}

} // namespace ls
