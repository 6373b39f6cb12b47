#include "core/present/roofline_data.h"

#include "core/compare/roofline_families.h"
#include "core/pytorch/correlation.h"
#include "core/views/time_breakdown.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace ls {
namespace {

// The point's key as core/reports/roofline.cpp forms it, with the device's name for its id.
using Key = std::tuple<std::string, Direction, DType, TcState, std::string>;
// Op filters select by a component of the NVTX path; this counts, per name, direction, type and
// Tensor Core state, the kernels whose path has that component, so a filter that would also
// select kernels of other points (a nested op of the same name) is known.
// Packed into one integer: the name's string id, direction, type and Tensor Core state (a
// million kernels' stacks made this map's string-keyed form the Roofline tab's longest step).
uint64_t pathKey(StringId name, Direction dir, DType dtype, TcState tc) {
    return (static_cast<uint64_t>(name.value) << 24) | (static_cast<uint64_t>(dir) << 16) |
           (static_cast<uint64_t>(dtype) << 8) | static_cast<uint64_t>(tc);
}

// Above this many kernels a point's filter stays the readable one even where it is not exact.
constexpr size_t kMaxIdFilter = 2000;

std::string idFilter(const std::vector<uint32_t>& ids) {
    std::string f = "id ~ /^(?:";
    for (size_t i = 0; i < ids.size(); ++i) f += (i ? "|" : "") + std::to_string(ids[i]);
    return f + ")$/";
}

std::vector<RooflineRow> rowsOf(const Trace& t, RooflineLevel level) {
    const RooflineGroupOf groupOf = rooflineGroupOf(t, level);
    std::map<uint32_t, std::string> deviceName;
    for (const Device& d : t.devices) deviceName[d.id] = d.name;
    // The distinct kernel names of each point, for the family and kernel levels' filters.
    std::map<Key, std::set<uint32_t>> names;
    std::map<Key, std::vector<uint32_t>> kernels;
    std::unordered_map<uint64_t, size_t> onPath;
    std::vector<uint32_t> stackNames; // the launch's NVTX stack's distinct name ids
    const auto& m = t.metrics;
    for (uint32_t k = 0; k < t.kernels.size(); ++k) {
        if (k >= m.flops.size() || !std::isfinite(m.flops[k]) || !std::isfinite(m.bytes[k]))
            continue;
        RooflineGroup g = groupOf(k);
        const auto d = deviceName.find(t.streamOf(t.kernels, k).device);
        if (level == RooflineLevel::Op) {
            const ApiCallId call = t.contextCall(k); // a replayed graph node: its capture
            if (call.valid()) {
                stackNames.clear();
                for (RangeId r : rangesContaining(t, call))
                    stackNames.push_back(t.ranges.name[r.value].value);
                std::sort(stackNames.begin(), stackNames.end());
                stackNames.erase(std::unique(stackNames.begin(), stackNames.end()),
                                 stackNames.end());
                for (uint32_t name : stackNames)
                    ++onPath[pathKey(StringId(name), g.direction, m.dtype[k], m.tc[k])];
            }
        }
        const Key key{std::move(g.name), g.direction, m.dtype[k], m.tc[k],
                      d != deviceName.end() ? d->second : std::string()};
        names[key].insert(t.kernels.name[k].value);
        if (level == RooflineLevel::Op) kernels[key].push_back(k);
    }

    std::vector<RooflineRow> out;
    for (RooflinePoint& p : roofline(t, groupOf)) {
        std::string f;
        const bool none = p.group.name == "(none)";
        switch (level) {
        case RooflineLevel::Family:
        case RooflineLevel::Kernel: {
            std::string alternatives;
            for (uint32_t id : names[Key{p.group.name, p.group.direction, p.dtype, p.tc, p.gpu}]) {
                if (!alternatives.empty()) alternatives += '|';
                alternatives += escapeRegex(t.str(StringId(id)));
            }
            f = "name ~ /^(?:" + alternatives + ")$/";
            break;
        }
        case RooflineLevel::Op: {
            // The op instance's marker on the kernel's NVTX path; its kernel ids where that
            // would also select kernels of other op instances (a nested op of the same name).
            const StringId nameId = t.strings.find(p.group.name);
            const auto count = nameId.valid()
                                   ? onPath.find(pathKey(nameId, p.group.direction, p.dtype, p.tc))
                                   : onPath.end();
            const bool exact = !none && count != onPath.end() && count->second == p.kernels;
            const auto& ids = kernels[Key{p.group.name, p.group.direction, p.dtype, p.tc, p.gpu}];
            if (!exact && ids.size() <= kMaxIdFilter) {
                out.push_back(RooflineRow{std::move(p), idFilter(ids)});
                continue;
            }
            f = "path ~ /(?:^| > )" + escapeRegex(p.group.name) +
                "(?: > |$)/ and direction = " + std::string(directionName(p.group.direction));
            break;
        }
        case RooflineLevel::Layer:
            f = "layer = " + (none ? std::string("\"\"") : quoteFilterValue(p.group.name)) +
                " and direction = " + std::string(directionName(p.group.direction));
            break;
        }
        f += " and dtype = " + quoteFilterValue(dtypeName(p.dtype)) +
             " and tc = " + quoteFilterValue(tcStateName(p.tc)) + " and flops >= 0 and bytes >= 0";
        out.push_back(RooflineRow{std::move(p), std::move(f)});
    }
    return out;
}

} // namespace

const char* rooflineLevelTitle(RooflineLevel level) {
    switch (level) {
    case RooflineLevel::Family:
        return "Kernel family";
    case RooflineLevel::Op:
        return "Op";
    case RooflineLevel::Layer:
        return "Layer";
    case RooflineLevel::Kernel:
        return "Kernel";
    }
    return "";
}

RooflineGroupOf rooflineGroupOf(const Trace& t, RooflineLevel level) {
    switch (level) {
    case RooflineLevel::Family:
        return rooflineFamilyGroups(t);
    case RooflineLevel::Op:
        return ls::rooflineGroupOf(t, RooflineGrouping::Op);
    case RooflineLevel::Layer:
        return ls::rooflineGroupOf(t, RooflineGrouping::Layer);
    case RooflineLevel::Kernel:
        return ls::rooflineGroupOf(t, RooflineGrouping::Kernel);
    }
    return {};
}

std::string escapeRegex(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (std::string_view("\\^$.|?*+()[]{}/").find(c) != std::string_view::npos) out += '\\';
        out += c;
    }
    return out;
}

std::vector<RooflineRow> rooflineRows(const Trace& t, RooflineLevel level) {
    return rowsOf(t, level);
}

std::shared_ptr<const RooflineData> buildRooflineData(std::shared_ptr<const Trace> trace) {
    auto d = std::make_shared<RooflineData>();
    if (trace)
        for (size_t l = 0; l < kRooflineLevels; ++l)
            d->levels[l] = rowsOf(*trace, static_cast<RooflineLevel>(l));
    d->trace = std::move(trace);
    return d;
}

} // namespace ls
