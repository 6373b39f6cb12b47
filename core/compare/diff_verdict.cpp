#include "core/compare/diff_verdict.h"

#include "core/pytorch/range_roles.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace ls {
namespace {

std::string fixed(double v, int decimals) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string joinNames(const std::vector<std::string>& names, size_t more) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i) out += i + 1 == names.size() && !more ? " and " : ", ";
        out += names[i];
    }
    if (more) out += " and " + std::to_string(more) + " more layer" + (more > 1 ? "s" : "");
    return out;
}

// Kernels of ops outside any layer range carry the phase range ("forward") or nothing.
bool isOutsideLayers(const std::string& layer) {
    Direction phase;
    return layer.empty() || layer == "(none)" || userRangePhase(layer, phase);
}

bool sameSign(double x, double y) { return (x > 0) == (y > 0); }

} // namespace

std::string diffVerdict(const DiffRow& total, const std::vector<DiffRow>& rows,
                        std::string_view per) {
    const double a = total.a.gpuTimeNs, b = total.b.gpuTimeNs, delta = b - a;
    if (a <= 0 && b <= 0) return "Neither side has kernels to compare.";
    if (a <= 0) return "Only B has kernels here.";
    if (b <= 0) return "Only A has kernels here.";
    const double ratio = b / a;
    if (std::abs(delta) < 0.01 * a)
        return "B takes the same GPU time " + std::string(per) + " as A (within 1 %).";
    std::string out =
        "B is " + (ratio > 1 ? fixed(ratio, 2) + "× slower " : fixed(1 / ratio, 2) + "× faster ") +
        std::string(per);

    // The (direction, family) that moved most in the direction of the whole change.
    struct Group {
        double delta = 0, aTime = 0, bTime = 0, aTc = 0, bTc = 0;
        std::vector<std::pair<double, std::string>> layers; // delta, layer
    };
    std::map<std::pair<std::string, std::string>, Group> groups;
    for (const DiffRow& r : rows) {
        Group& g = groups[{r.direction, r.key}];
        g.delta += r.deltaNs();
        g.aTime += r.a.gpuTimeNs;
        g.bTime += r.b.gpuTimeNs;
        g.aTc += r.a.tcTimeNs;
        g.bTc += r.b.tcTimeNs;
        g.layers.emplace_back(r.deltaNs(), r.scope.layer.value_or(""));
    }
    const std::pair<const std::pair<std::string, std::string>, Group>* best = nullptr;
    for (const auto& entry : groups)
        if (sameSign(entry.second.delta, delta) &&
            (!best || std::abs(entry.second.delta) > std::abs(best->second.delta)))
            best = &entry;
    if (!best) return out + ".";
    const Group& g = best->second;
    const double share = 100.0 * g.delta / delta;

    // Its layers, largest share first, until they explain 80 % of the group's change (at most 3
    // named).
    std::vector<std::pair<double, std::string>> layers = g.layers;
    std::sort(layers.begin(), layers.end(),
              [&](const auto& x, const auto& y) { return std::abs(x.first) > std::abs(y.first); });
    std::vector<std::string> named;
    size_t more = 0;
    double covered = 0;
    for (const auto& [d, layer] : layers) {
        if (!sameSign(d, g.delta) || std::abs(covered) >= 0.8 * std::abs(g.delta)) continue;
        const std::string name = isOutsideLayers(layer) ? "ops outside layers" : layer;
        covered += d;
        if (std::find(named.begin(), named.end(), name) != named.end()) continue;
        if (named.size() == 3)
            ++more;
        else
            named.push_back(name);
    }
    const std::string& direction = best->first.first;
    const std::string& family = best->first.second;
    out +=
        "; " + fixed(share, 0) + " % of the difference is " + direction + " " + family + " kernels";
    if (!named.empty()) out += " of " + joinNames(named, more);

    const double aTc = g.aTime > 0 ? g.aTc / g.aTime : 0, bTc = g.bTime > 0 ? g.bTc / g.bTime : 0;
    if (g.aTime > 0 && g.bTime > 0) {
        if (aTc >= 0.5 && bTc < 0.5)
            out += ", which moved from Tensor Core kernels to SIMT kernels";
        else if (aTc < 0.5 && bTc >= 0.5)
            out += ", which moved from SIMT kernels to Tensor Core kernels";
    } else if (g.aTime <= 0) {
        out += ", which only B runs";
    } else {
        out += ", which only A runs";
    }
    return out + ".";
}

} // namespace ls
