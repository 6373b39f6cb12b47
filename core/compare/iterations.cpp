#include "core/compare/iterations.h"

#include "core/pytorch/range_roles.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace ls {
namespace {

// "ProfilerStep#4" -> "ProfilerStep#", "iteration 3" -> "iteration ": one naming per stem.
std::string stemOf(std::string_view name) {
    std::string stem;
    for (char c : name)
        if (!std::isdigit(static_cast<unsigned char>(c))) stem += c;
    return stem;
}

} // namespace

std::vector<IterationSpan> findIterations(const Trace& t, std::optional<ProcessId> process) {
    std::map<std::string, std::map<int, IterationSpan>> byStem;
    for (uint32_t i = 0; i < t.ranges.size(); ++i) {
        if (t.ranges.kind[i] == RangeKind::Mark || (t.ranges.flags[i] & kPytorchMarker)) continue;
        if (process) {
            const ThreadId th = t.ranges.thread[i];
            if (!th.valid() || th.value >= t.threads.size() || t.threads[th.value].process != *process) continue;
        }
        const std::string_view name = t.str(t.ranges.name[i]);
        const auto n = iterationNumber(name);
        if (!n) continue;
        auto& spans = byStem[stemOf(name)];
        auto [it, inserted] = spans.try_emplace(*n);
        if (inserted) it->second = {*n, std::string(name), t.ranges.start[i], t.ranges.end[i]};
        it->second.start = std::min(it->second.start, t.ranges.start[i]);
        it->second.end = std::max(it->second.end, t.ranges.end[i]);
    }
    // The naming whose spans cover the most time: ProfilerStep#N encloses the user's own
    // "iteration N" inside it; either counts the same iterations.
    const std::map<int, IterationSpan>* best = nullptr;
    TimeNs bestCover = -1;
    for (const auto& [stem, spans] : byStem) {
        TimeNs cover = 0;
        for (const auto& [n, s] : spans) cover += s.end - s.start;
        if (cover > bestCover) best = &spans, bestCover = cover;
    }
    std::vector<IterationSpan> out;
    if (best)
        for (const auto& [n, s] : *best) out.push_back(s);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
    return out;
}

TimeNs kernelIterationTime(const Trace& t, KernelId k) {
    const ApiCallId call = t.kernels.launch[k.value];
    return call.valid() && call.value < t.apiCalls.size() ? t.apiCalls.start[call.value] : t.kernels.start[k.value];
}

int iterationAt(const std::vector<IterationSpan>& spans, TimeNs at) {
    // Spans do not overlap; the last one starting at or before `at` is the candidate.
    auto it = std::upper_bound(spans.begin(), spans.end(), at, [](TimeNs v, const IterationSpan& s) { return v < s.start; });
    if (it == spans.begin()) return -1;
    --it;
    return at <= it->end ? static_cast<int>(it - spans.begin()) : -1;
}

} // namespace ls
