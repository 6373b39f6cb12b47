#include "core/views/time_breakdown.h"

#include <algorithm>

namespace ls {
namespace {

template <typename Key, typename Label, typename Filter>
std::vector<TimeShare> byKey(const Trace& t, size_t keys, Key key, Label label, Filter filter) {
    std::vector<TimeShare> shares(keys);
    for (uint32_t k = 0; k < t.kernels.size(); ++k) {
        auto& s = shares[key(k)];
        ++s.kernels;
        s.gpuTimeNs += static_cast<uint64_t>(t.kernels.duration(k));
    }
    std::vector<TimeShare> out;
    for (size_t i = 0; i < keys; ++i) {
        if (!shares[i].kernels) continue;
        shares[i].label = label(i);
        shares[i].filter = filter(i);
        out.push_back(std::move(shares[i]));
    }
    return out;
}

} // namespace

std::string quoteFilterValue(std::string_view v) {
    std::string out = "\"";
    for (char c : v) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

std::vector<TimeShare> gpuTimeByDirection(const Trace& t) {
    const auto name = [](size_t i) {
        return std::string(directionName(static_cast<Direction>(i)));
    };
    return byKey(
        t, 4, [&](uint32_t k) { return static_cast<size_t>(t.kernelLinks.direction[k]); }, name,
        [&](size_t i) { return "direction = " + name(i); });
}

std::vector<TimeShare> gpuTimeByTensorCores(const Trace& t) {
    const auto name = [](size_t i) { return std::string(tcStateName(static_cast<TcState>(i))); };
    return byKey(
        t, 3, [&](uint32_t k) { return static_cast<size_t>(t.metrics.tc[k]); }, name,
        [&](size_t i) { return "tc = " + quoteFilterValue(name(i)); });
}

std::vector<TimeShare> gpuTimeByLayer(const Trace& t) {
    // Kernels outside every layer (embedding, LM head, loss, optimizer) are no layer's: one share
    // per direction, "(outside layers) · backward", instead of one bar dwarfing the real layers.
    // Keys: 0..3 those shares by direction, then 4 + the layer's string id.
    const size_t outside = 4;
    auto shares = byKey(
        t, t.strings.size() + outside,
        [&](uint32_t k) {
            const StringId l = t.kernelLinks.layer[k];
            return l.valid() ? outside + l.value : static_cast<size_t>(t.kernelLinks.direction[k]);
        },
        [&](size_t i) {
            return i < outside ? "(outside layers) · " +
                                     std::string(directionName(static_cast<Direction>(i)))
                               : std::string(t.str(StringId(static_cast<uint32_t>(i - outside))));
        },
        [&](size_t i) {
            return i < outside
                       ? "layer = \"\" and direction = " +
                             std::string(directionName(static_cast<Direction>(i)))
                       : "layer = " +
                             quoteFilterValue(t.str(StringId(static_cast<uint32_t>(i - outside))));
        });
    std::stable_sort(shares.begin(), shares.end(), [](const TimeShare& a, const TimeShare& b) {
        return a.gpuTimeNs > b.gpuTimeNs;
    });
    return shares;
}

} // namespace ls
