#include "core/reports/summary.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

namespace ls {

DurationStats durationStats(std::vector<int64_t>& d) {
    DurationStats s;
    s.count = d.size();
    if (d.empty()) return s;
    if (d.size() ==
        1) { // most groups of a per-call report: the same figures without the long double work
        s.total = static_cast<uint64_t>(d[0]);
        s.min = s.max = d[0];
        s.avg = s.median = static_cast<double>(d[0]);
        return s;
    }
    long double sum = 0;
    s.min = d[0];
    s.max = d[0];
    for (int64_t v : d) {
        sum += v;
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
    }
    s.total = static_cast<uint64_t>(sum);
    const long double mean = sum / d.size();
    s.avg = static_cast<double>(mean);
    const size_t mid = d.size() / 2;
    std::nth_element(d.begin(), d.begin() + mid, d.end());
    if (d.size() % 2) {
        s.median = static_cast<double>(d[mid]);
    } else {
        const int64_t upper = d[mid];
        const int64_t lower = *std::max_element(d.begin(), d.begin() + mid);
        s.median = (static_cast<double>(lower) + static_cast<double>(upper)) / 2.0;
    }
    if (d.size() > 1) {
        long double sq = 0;
        for (int64_t v : d) sq += (v - mean) * (v - mean);
        s.stddev = static_cast<double>(std::sqrt(sq / (d.size() - 1)));
    }
    return s;
}

std::vector<SummaryRow> osRuntimeSummary(const Trace& t) {
    std::map<uint32_t, std::vector<int64_t>> byName;
    const auto& os = t.osRuntime;
    for (size_t i = 0; i < os.size(); ++i)
        byName[os.name[i].value].push_back(os.end[i] - os.start[i]);
    std::vector<SummaryRow> rows;
    uint64_t all = 0;
    for (auto& [name, d] : byName) {
        SummaryRow r;
        r.name = std::string(t.str(StringId(name)));
        r.stats = durationStats(d);
        all += r.stats.total;
        rows.push_back(std::move(r));
    }
    for (auto& r : rows)
        r.percent = all ? 100.0 * static_cast<double>(r.stats.total) / static_cast<double>(all) : 0;
    std::sort(rows.begin(), rows.end(), [](const SummaryRow& a, const SummaryRow& b) {
        return a.stats.total != b.stats.total ? a.stats.total > b.stats.total : a.name < b.name;
    });
    return rows;
}

std::string_view stripApiVersion(std::string_view name) {
    // nsys 2022.4 drops the last six characters when they start with "_v" ("_v3020"); longer
    // suffixes ("_v11060") stay, and we print what it prints.
    if (name.size() > 6 && name.compare(name.size() - 6, 2, "_v") == 0)
        return name.substr(0, name.size() - 6);
    return name;
}

std::string formatDim3(const Dim3& d) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%4u %4u %4u", d.x, d.y, d.z);
    return buf;
}

std::string formatOneDecimal(double v) {
    // SQLite's ROUND (which nsys uses) rounds halves away from zero; printf would round to even.
    const double r = std::round(v * 10.0) / 10.0;
    char buf[64];
    const auto end = std::to_chars(buf, buf + sizeof buf, r, std::chars_format::fixed, 1)
                         .ptr; // printf's "%.1f", faster
    return std::string(buf, end);
}

namespace {

void finish(std::vector<SummaryRow>& rows) {
    long double all = 0;
    for (const auto& r : rows) all += r.stats.total;
    for (auto& r : rows)
        r.percent = all > 0 ? static_cast<double>(100.0L * r.stats.total / all) : 0.0;
    std::sort(rows.begin(), rows.end(), [](const SummaryRow& a, const SummaryRow& b) {
        return std::tie(b.stats.total, a.name, a.grid, a.block) <
               std::tie(a.stats.total, b.name, b.grid, b.block);
    });
}

} // namespace

std::vector<SummaryRow> kernelSummary(const Trace& t, KernelGrouping grouping,
                                      KernelNaming naming) {
    const auto& k = t.kernels;
    const auto& names = naming == KernelNaming::Demangled ? k.name : k.shortName;
    using Key = std::tuple<uint32_t, Dim3, Dim3>;
    std::map<Key, std::vector<int64_t>> groups;
    for (size_t i = 0; i < k.size(); ++i) {
        Key key{names[i].value, {}, {}};
        if (grouping == KernelGrouping::NameGridBlock)
            key = {names[i].value, k.grid[i], k.block[i]};
        groups[key].push_back(k.duration(i));
    }
    std::vector<SummaryRow> rows;
    for (auto& [key, durations] : groups) {
        SummaryRow r;
        r.name = std::string(t.str(StringId(std::get<0>(key))));
        if (grouping == KernelGrouping::NameGridBlock) {
            r.grid = formatDim3(std::get<1>(key));
            r.block = formatDim3(std::get<2>(key));
        }
        r.stats = durationStats(durations);
        rows.push_back(std::move(r));
    }
    finish(rows);
    return rows;
}

std::vector<SummaryRow> apiSummary(const Trace& t) {
    const auto& a = t.apiCalls;
    std::map<uint32_t, std::vector<int64_t>> groups;
    for (size_t i = 0; i < a.size(); ++i) groups[a.name[i].value].push_back(a.end[i] - a.start[i]);
    std::vector<SummaryRow> rows;
    for (auto& [name, durations] : groups) {
        SummaryRow r;
        r.name = std::string(stripApiVersion(t.str(StringId(name))));
        r.stats = durationStats(durations);
        rows.push_back(std::move(r));
    }
    finish(rows);
    return rows;
}

} // namespace ls
