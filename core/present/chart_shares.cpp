#include "core/present/chart_shares.h"

#include "core/views/distinct_names.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ls {
namespace {

// Labelled by short name (the demangled ones are long templates), told apart where several share
// one ("Kernel2 ·f16 128x128 tn", core/views/distinct_names.h), with a rank, which also keeps the
// axis categories unique.
std::vector<TimeShare> topKernels(const Trace& t, const std::vector<SummaryRow>& summary) {
    std::unordered_map<std::string_view, StringId> shortOf;
    for (size_t k = 0; k < t.kernels.size(); ++k)
        shortOf.emplace(t.str(t.kernels.name[k]), t.kernels.shortName[k]);
    std::vector<SummaryRow> rows(
        summary.begin(),
        summary.begin() + static_cast<std::ptrdiff_t>(std::min(summary.size(), kChartBars)));
    std::vector<std::string_view> fulls, shorts;
    for (const auto& row : rows) {
        const auto it = shortOf.find(row.name);
        fulls.push_back(row.name);
        shorts.push_back(it != shortOf.end() ? t.str(it->second) : std::string_view(row.name));
    }
    const auto labels = distinctShortNames(fulls, shorts);
    std::vector<TimeShare> out;
    for (size_t i = 0; i < rows.size(); ++i)
        out.push_back(TimeShare{std::to_string(i + 1) + ". " + labels[i], rows[i].stats.count,
                                rows[i].stats.total, "name = " + quoteFilterValue(rows[i].name)});
    return out;
}

} // namespace

ChartShares chartShares(const Trace& t, const std::vector<SummaryRow>& summary) {
    return ChartShares{topKernels(t, summary), gpuTimeByLayer(t), gpuTimeByDirection(t),
                       gpuTimeByTensorCores(t)};
}

} // namespace ls
