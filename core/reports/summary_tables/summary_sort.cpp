// Sort keys as Paddle's SortedKeys (CPUTotal … GPUMin): totals, averages and maxima descending,
// minima ascending. The registry of the five tables' report names.
#include "core/reports/summary_tables/summary_sort.h"

#include <algorithm>
#include <utility>

namespace ls {

std::optional<SummarySort> parseSummarySort(std::string_view s) {
    static constexpr std::pair<std::string_view, SummarySort> kKeys[] = {
        {"cpu_total", SummarySort::CpuTotal}, {"cpu_avg", SummarySort::CpuAvg},
        {"cpu_max", SummarySort::CpuMax},     {"cpu_min", SummarySort::CpuMin},
        {"gpu_total", SummarySort::GpuTotal}, {"gpu_avg", SummarySort::GpuAvg},
        {"gpu_max", SummarySort::GpuMax},     {"gpu_min", SummarySort::GpuMin},
    };
    for (const auto& [name, key] : kKeys)
        if (name == s) return key;
    return std::nullopt;
}

bool isSummaryTableReport(std::string_view report) {
    return std::find(std::begin(kSummaryTableReports), std::end(kSummaryTableReports), report) !=
           std::end(kSummaryTableReports);
}

void sortSummaryRows(std::vector<SummaryTableRow*>& rows, SummarySort sort) {
    const auto k = static_cast<int>(sort);
    const bool gpu = k >= 4;
    const int stat = k % 4; // total, avg, max, min
    auto value = [&](const SummaryTableRow& r) -> double {
        // A row without that side (a kernel has no CPU time) sorts by the other side's figure.
        const TimeCell& c =
            (gpu ? r.gpu : r.cpu).present ? (gpu ? r.gpu : r.cpu) : (gpu ? r.cpu : r.gpu);
        if (!c.present || c.d.count == 0) return stat == 3 ? 1e300 : -1;
        switch (stat) {
        case 0:
            return static_cast<double>(c.d.total);
        case 1:
            return c.d.avg();
        case 2:
            return static_cast<double>(c.d.max);
        default:
            return static_cast<double>(c.d.min);
        }
    };
    std::stable_sort(rows.begin(), rows.end(),
                     [&](const SummaryTableRow* a, const SummaryTableRow* b) {
                         const double va = value(*a), vb = value(*b);
                         if (va != vb) return stat == 3 ? va < vb : va > vb;
                         return a->name < b->name;
                     });
}

SummaryTable summaryTable(const Trace& t, std::string_view report, SummarySort sort) {
    if (report == "overview") return overviewTable(t);
    if (report == "model") return modelTable(t);
    if (report == "distribution") return distributionTable(t);
    if (report == "operator") return operatorTable(t, sort);
    return kernelTable(t, sort);
}

} // namespace ls
