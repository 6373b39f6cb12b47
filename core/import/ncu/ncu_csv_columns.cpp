// NcuCsv's lookups: a cell as text, a column's display name, a metric by section and name, and
// the metrics Layerscope knows by meaning under their details-page or raw-page names.
#include "core/import/ncu/ncu_csv.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

namespace ls {

std::string NcuCsv::text(size_t kernel, uint32_t metric) const {
    const size_t i = index(kernel, metric);
    if (!present[i]) return {};
    if (texts[i]) return textPool[texts[i]];
    const double v = values[i];
    if (!std::isfinite(v)) return {};
    char buf[512];
    if (decimals[i] >= 0) {
        std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(decimals[i]), v);
        return buf;
    }
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, end) : std::string();
}

std::string NcuCsv::columnName(uint32_t metric) const {
    const NcuMetricInfo& m = metrics[metric];
    std::string s = "ncu:";
    if (!m.section.empty()) s += m.section + "/";
    s += m.name;
    if (!m.unit.empty()) s += " [" + m.unit + "]";
    return s;
}

std::optional<uint32_t> NcuCsv::findMetric(std::string_view section, std::string_view name) const {
    for (uint32_t m = 0; m < metrics.size(); ++m)
        if (metrics[m].name == name && (section.empty() || metrics[m].section == section)) return m;
    return std::nullopt;
}

std::optional<uint32_t> NcuCsv::known(NcuKnownMetric which) const {
    struct Names {
        std::string_view section, details, raw, raw2;
    };
    static constexpr std::array<Names, static_cast<size_t>(NcuKnownMetric::Count_)> names = {{
        {"GPU Speed Of Light Throughput", "Duration", "gpu__time_duration.sum", ""},
        {"Occupancy", "Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active",
         ""},
        {"Occupancy", "Theoretical Occupancy", "sm__maximum_warps_per_active_cycle_pct", ""},
        {"GPU Speed Of Light Throughput", "Compute (SM) Throughput",
         "sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM [%]"},
        {"GPU Speed Of Light Throughput", "DRAM Throughput",
         "dram__throughput.avg.pct_of_peak_sustained_elapsed",
         "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"},
        {"GPU Speed Of Light Throughput", "Memory Throughput",
         "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "Memory [%]"},
        {"Launch Statistics", "Registers Per Thread", "launch__registers_per_thread", ""},
    }};
    const Names& n = names[static_cast<size_t>(which)];
    for (auto found :
         {findMetric(n.section, n.details), findMetric("", n.details), findMetric("", n.raw),
          n.raw2.empty() ? std::nullopt : findMetric("", n.raw2)})
        if (found) return found;
    return std::nullopt;
}

} // namespace ls
