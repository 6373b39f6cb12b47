#pragma once
// What the Roofline tab plots, computed off the GUI thread: core's roofline points at each level
// (kernel family, op, layer, kernel) and, per point, the kernel filter expression that selects
// exactly its kernels (docs/roofline.md).
#include "core/reports/roofline.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace ls {

enum class RooflineLevel { Family, Op, Layer, Kernel };
inline constexpr size_t kRooflineLevels = 4;
const char* rooflineLevelTitle(RooflineLevel level); // "Kernel family", "Op", …

// The grouping of a level; families come from core/compare/kernel_family.h.
RooflineGroupOf rooflineGroupOf(const Trace& t, RooflineLevel level);

struct RooflineRow {
    RooflinePoint point;
    std::string
        filter; // kernel filter expression (core/views/kernel_filter.h) selecting its kernels
};

struct RooflineData {
    std::shared_ptr<const Trace> trace;
    std::array<std::vector<RooflineRow>, kRooflineLevels> levels; // core's order: by GPU time
    const std::vector<RooflineRow>& rows(RooflineLevel l) const {
        return levels[static_cast<size_t>(l)];
    }
};

std::shared_ptr<const RooflineData> buildRooflineData(std::shared_ptr<const Trace> trace);
// One level's rows (buildRooflineData's levels, for building them on several threads).
std::vector<RooflineRow> rooflineRows(const Trace& t, RooflineLevel level);

// An ECMAScript regex matching exactly `s` (metacharacters and the filter's `/` escaped).
std::string escapeRegex(std::string_view s);

} // namespace ls
