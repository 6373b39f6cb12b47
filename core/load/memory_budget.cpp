#include "core/load/memory_budget.h"

#include "core/model/platform.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace ls {

uint64_t defaultMemoryBudget() {
    const uint64_t ram = platform::physicalMemoryBytes();
    return ram ? ram / 4 : uint64_t(1) << 30;
}

std::optional<uint64_t> parseByteSize(std::string_view text) {
    auto trim = [](std::string_view s) {
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
            s.remove_prefix(1);
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
        return s;
    };
    text = trim(text);
    size_t digits = 0;
    while (digits < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
        ++digits;
    if (digits == 0) return std::nullopt;
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + digits, value);
    if (ec != std::errc() || end != text.data() + digits) return std::nullopt;
    std::string unit;
    for (char c : trim(text.substr(digits)))
        unit += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (unit.ends_with("IB"))
        unit.erase(unit.size() - 2);
    else if (unit.ends_with("B"))
        unit.pop_back();
    int power = 0;
    if (unit.empty())
        power = 0;
    else if (unit == "K")
        power = 1;
    else if (unit == "M")
        power = 2;
    else if (unit == "G")
        power = 3;
    else if (unit == "T")
        power = 4;
    else
        return std::nullopt;
    const double bytes = std::floor(value * std::pow(1024.0, power));
    if (!(bytes >= 1) || bytes > std::ldexp(1.0, 62)) return std::nullopt;
    return static_cast<uint64_t>(bytes);
}

std::string formatByteSize(uint64_t bytes) {
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    char out[32];
    if (u == 0)
        std::snprintf(out, sizeof out, "%llu bytes", static_cast<unsigned long long>(bytes));
    else
        std::snprintf(out, sizeof out, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
    return out;
}

} // namespace ls
