#pragma once
// Cell values of Nsight Compute CSV: the units ncu scales a metric's cells by, the decimals a
// cell was printed with, and unsigned integers (ids, dimensions). parseNcuNumber and
// parseNcuDim3 (grouped digits, "(x, y, z)") are declared with the parser in ncu_csv.h.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>

namespace ls::ncu {

// A unit ncu prints and its factor to the first unit of its family (0 time in ns, 1 bytes,
// 2 frequency in Hz, 3 bandwidth in bytes/s).
struct UnitScale {
    std::string_view unit;
    int family;
    double factor;
};
// Null for a unit outside the families (a cell of another unit is kept as printed).
const UnitScale* unitScale(std::string_view unit);

// Digits after the decimal point of a plain number ("75.30": 2); -1 for exponent forms.
int8_t decimalsOf(std::string_view s);

template <typename T> std::optional<T> parseUnsigned(std::string_view s) {
    T v{};
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

} // namespace ls::ncu
