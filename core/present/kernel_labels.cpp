#include "core/present/kernel_labels.h"

#include "core/views/distinct_names.h"

#include <vector>

namespace ls {

KernelLabels::KernelLabels(const Trace& t) : trace_(&t) {
    std::unordered_map<uint32_t, StringId> shortOf; // full name id → short name id
    for (size_t k = 0; k < t.kernels.size(); ++k)
        shortOf.try_emplace(t.kernels.name[k].value, t.kernels.shortName[k]); // no node per kernel
    std::vector<uint32_t> ids;
    std::vector<std::string_view> fulls, shorts;
    for (const auto& [full, shortName] : shortOf) {
        ids.push_back(full);
        fulls.push_back(t.str(StringId(full)));
        // A kernel without a short name (some exports) is labelled by its full name.
        shorts.push_back(shortName.valid() && !t.str(shortName).empty() ? t.str(shortName)
                                                                        : t.str(StringId(full)));
    }
    auto labels = distinctShortNames(fulls, shorts);
    for (size_t i = 0; i < ids.size(); ++i) byName_.emplace(ids[i], std::move(labels[i]));
}

const std::string& KernelLabels::of(uint32_t kernel) const {
    if (kernel >= trace_->kernels.size()) return empty_;
    const auto it = byName_.find(trace_->kernels.name[kernel].value);
    return it == byName_.end() ? empty_ : it->second;
}

} // namespace ls
