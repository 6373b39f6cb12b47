#include "core/import/kineto/json_values.h"

#include "core/import/kineto/json_time.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ls::json_values {

namespace od = simdjson::ondemand;

bool readInt(od::value v, int64_t& out) {
    int64_t i = 0;
    if (v.get_int64().get(i) == simdjson::SUCCESS) {
        out = i;
        return true;
    }
    uint64_t u = 0;
    if (v.get_uint64().get(u) == simdjson::SUCCESS) {
        out = static_cast<int64_t>(std::min<uint64_t>(u, INT64_MAX));
        return true;
    }
    double d = 0;
    if (v.get_double().get(d) == simdjson::SUCCESS && std::isfinite(d) && std::fabs(d) < 9e18) {
        out = static_cast<int64_t>(d);
        return true;
    }
    std::string_view s;
    if (v.get_string().get(s) != simdjson::SUCCESS) return false;
    const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (hex) s.remove_prefix(2);
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), i, hex ? 16 : 10);
    if (ec != std::errc() || end != s.data() + s.size()) return false;
    out = i;
    return true;
}

bool readTime(od::value v, std::optional<TimeNs>& out) {
    std::string_view raw = v.raw_json_token();
    while (!raw.empty() &&
           (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
        raw.remove_suffix(1);
    out = microsTextToNs(raw);
    return out.has_value();
}

bool readDim3(od::value v, Dim3& out) {
    od::array a;
    if (v.get_array().get(a) != simdjson::SUCCESS) return false;
    uint32_t* dims[3] = {&out.x, &out.y, &out.z};
    size_t i = 0;
    for (auto element : a) {
        int64_t n = 0;
        od::value ev;
        if (element.get(ev) != simdjson::SUCCESS || !readInt(ev, n)) return false;
        if (i < 3) *dims[i++] = n < 0 ? 0 : static_cast<uint32_t>(std::min<int64_t>(n, UINT32_MAX));
    }
    return true;
}

} // namespace ls::json_values
