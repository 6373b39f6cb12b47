#include "core/import/ncu/ncu_values.h"

#include "core/import/ncu/ncu_csv.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace ls {
namespace ncu {
namespace {

// Units: ncu scales some values per kernel ("usecond" here, "msecond" there); cells of one metric
// are converted to the unit of its first cell when both belong to one family.

constexpr std::array kUnits = {
    UnitScale{"ns", 0, 1},
    UnitScale{"nsecond", 0, 1},
    UnitScale{"us", 0, 1e3},
    UnitScale{"usecond", 0, 1e3},
    UnitScale{"ms", 0, 1e6},
    UnitScale{"msecond", 0, 1e6},
    UnitScale{"s", 0, 1e9},
    UnitScale{"second", 0, 1e9},
    UnitScale{"byte", 1, 1},
    UnitScale{"Kbyte", 1, 1e3},
    UnitScale{"Mbyte", 1, 1e6},
    UnitScale{"Gbyte", 1, 1e9},
    UnitScale{"Tbyte", 1, 1e12},
    UnitScale{"hz", 2, 1},
    UnitScale{"Khz", 2, 1e3},
    UnitScale{"khz", 2, 1e3},
    UnitScale{"Mhz", 2, 1e6},
    UnitScale{"Ghz", 2, 1e9},
    UnitScale{"cycle/second", 2, 1},
    UnitScale{"cycle/usecond", 2, 1e6},
    UnitScale{"cycle/nsecond", 2, 1e9},
    UnitScale{"byte/second", 3, 1},
    UnitScale{"Kbyte/second", 3, 1e3},
    UnitScale{"Mbyte/second", 3, 1e6},
    UnitScale{"Gbyte/second", 3, 1e9},
    UnitScale{"Tbyte/second", 3, 1e12},
};

} // namespace

const UnitScale* unitScale(std::string_view unit) {
    for (const auto& u : kUnits)
        if (u.unit == unit) return &u;
    return nullptr;
}

int8_t decimalsOf(std::string_view s) {
    if (s.find_first_of("eE") != std::string_view::npos) return -1;
    const size_t dot = s.find('.');
    if (dot == std::string_view::npos) return 0;
    size_t n = 0;
    while (dot + 1 + n < s.size() && std::isdigit(static_cast<unsigned char>(s[dot + 1 + n]))) ++n;
    return static_cast<int8_t>(std::min<size_t>(n, 30));
}

} // namespace ncu

using ncu::parseUnsigned;

std::optional<double> parseNcuNumber(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    if (s.empty()) return std::nullopt;
    std::string clean;
    size_t i = 0;
    if (s[i] == '-' || s[i] == '+') {
        if (s[i] == '-') clean += '-';
        ++i;
    }
    // Integer part: digits, optionally grouped by commas in threes.
    size_t group = 0;
    bool sawComma = false;
    const size_t intStart = i;
    for (; i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == ','); ++i) {
        if (s[i] == ',') {
            if (group == 0 || (sawComma ? group != 3 : group > 3)) return std::nullopt;
            sawComma = true;
            group = 0;
        } else {
            clean += s[i];
            ++group;
        }
    }
    if (i == intStart || group == 0 || (sawComma && group != 3)) return std::nullopt;
    if (i < s.size() && s[i] == '.') {
        clean += s[i++];
        const size_t fracStart = i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) clean += s[i++];
        if (i == fracStart) return std::nullopt;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        clean += s[i++];
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) clean += s[i++];
        const size_t expStart = i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) clean += s[i++];
        if (i == expStart) return std::nullopt;
    }
    if (i != s.size()) return std::nullopt;
    double v = 0;
    const auto [end, ec] = std::from_chars(clean.data(), clean.data() + clean.size(), v);
    if (ec != std::errc() || end != clean.data() + clean.size()) return std::nullopt;
    return v;
}

std::optional<Dim3> parseNcuDim3(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    if (s.size() >= 2 && s.front() == '(' && s.back() == ')') s = s.substr(1, s.size() - 2);
    std::array<uint32_t, 3> v{};
    for (size_t part = 0; part < 3; ++part) {
        const size_t comma = part < 2 ? s.find(',') : s.size();
        if (comma == std::string_view::npos) return std::nullopt;
        std::string_view p = s.substr(0, comma);
        while (!p.empty() && p.front() == ' ') p.remove_prefix(1);
        while (!p.empty() && p.back() == ' ') p.remove_suffix(1);
        const auto n = parseUnsigned<uint32_t>(p);
        if (!n) return std::nullopt;
        v[part] = *n;
        s = part < 2 ? s.substr(comma + 1) : std::string_view();
    }
    return Dim3{v[0], v[1], v[2]};
}

} // namespace ls
