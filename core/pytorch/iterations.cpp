#include "core/pytorch/iterations.h"

#include "core/pytorch/range_roles.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <unordered_map>

namespace ls {
namespace {

// "ProfilerStep#4" -> "ProfilerStep#", "iteration 3" -> "iteration ": one naming per stem.
std::string stemOf(std::string_view name) {
    std::string stem;
    for (char c : name)
        if (!std::isdigit(static_cast<unsigned char>(c))) stem += c;
    return stem;
}

bool ofProcess(const Trace& t, ThreadId th, std::optional<ProcessId> process) {
    return !process ||
           (th.valid() && th.value < t.threads.size() && t.threads[th.value].process == *process);
}

// Top-level op instances of the process, by start: (start, end, op id).
struct OpSpan {
    TimeNs start, end;
    uint32_t op;
};
std::vector<OpSpan> opSpans(const Trace& t, std::optional<ProcessId> process) {
    std::vector<OpSpan> out;
    for (uint32_t o = 0; o < t.ops.size(); ++o) {
        const RangeId r = t.ops.extent[o];
        if (!ofProcess(t, t.rangeThread(r), process)) continue;
        out.push_back({t.ranges.start[r.value], t.ranges.end[r.value], o});
    }
    std::sort(out.begin(), out.end(), [](const OpSpan& a, const OpSpan& b) {
        return std::pair(a.start, a.op) < std::pair(b.start, b.op);
    });
    return out;
}

// How alike the iterations are: 1 - (longest - shortest) / longest, over their op counts.
double alike(const std::vector<size_t>& sizes) {
    if (sizes.size() < 2) return 0;
    const auto [lo, hi] = std::minmax_element(sizes.begin(), sizes.end());
    return *hi ? 1.0 - static_cast<double>(*hi - *lo) / static_cast<double>(*hi) : 0;
}

std::string percent(double v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.0f %%", 100 * v);
    return buf;
}

// Training: a run of optimizer ops (Optimizer.step, aten::_foreach_*, the fused Adam) ends each
// step. A step spans from the end of the previous run (the first op, for the first step) to
// the end of its own run; work after the last run is an unfinished step and belongs to none.
IterationSet byOptimizerSteps(const Trace& t, const std::vector<OpSpan>& ops) {
    IterationSet set;
    std::vector<size_t> opsPerStep;
    TimeNs stepStart = ops.empty() ? 0 : ops.front().start;
    size_t opsInStep = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
        ++opsInStep;
        const bool optimizer = t.ops.direction[ops[i].op] == Direction::Optimizer;
        const bool runEnds = optimizer && (i + 1 == ops.size() ||
                                           t.ops.direction[ops[i + 1].op] != Direction::Optimizer);
        if (!runEnds) continue;
        const int n = static_cast<int>(set.spans.size());
        set.spans.push_back({n, "step " + std::to_string(n), stepStart, ops[i].end});
        opsPerStep.push_back(opsInStep);
        opsInStep = 0;
        stepStart = ops[i].end + 1;
    }
    if (set.spans.empty()) return set;
    set.rule = IterationRule::OptimizerSteps;
    set.confidence = set.spans.size() == 1 ? 0.5 : alike(opsPerStep);
    set.explanation =
        std::to_string(set.spans.size()) +
        " training steps, each ending with a run of optimizer ops; their op counts agree within " +
        percent(1 - set.confidence);
    return set;
}

// Inference: the smallest period p at which the top-level op names repeat (95 % of positions
// equal their p-th successor), at least two whole periods.
IterationSet byRepeatingOps(const Trace& t, const std::vector<OpSpan>& ops) {
    IterationSet set;
    const size_t n = ops.size();
    std::vector<uint32_t> names(n);
    for (size_t i = 0; i < n; ++i) names[i] = t.ranges.name[t.ops.range[ops[i].op].value].value;
    const size_t maxPeriod =
        std::min<size_t>(n / 2, 4096); // long enough for a large model's forward
    for (size_t p = 2; p <= maxPeriod; ++p) {
        const size_t compared = n - p, allowed = compared / 20;
        size_t mismatches = 0;
        for (size_t i = 0; i < compared && mismatches <= allowed; ++i)
            mismatches += names[i] != names[i + p];
        if (mismatches > allowed) continue;
        for (size_t s = 0; s + p <= n; s += p) {
            const int k = static_cast<int>(set.spans.size());
            set.spans.push_back({k, "pass " + std::to_string(k), ops[s].start, ops[s + p - 1].end});
        }
        if (set.spans.size() < 2) return {};
        for (size_t k = 1; k < set.spans.size(); ++k)
            set.spans[k - 1].end = std::min(set.spans[k - 1].end, set.spans[k].start - 1);
        set.rule = IterationRule::RepeatingOps;
        set.confidence = 1.0 - static_cast<double>(mismatches) /
                                   static_cast<double>(std::max<size_t>(1, compared));
        set.explanation = std::to_string(set.spans.size()) + " passes of a repeating sequence of " +
                          std::to_string(p) + " top-level ops (" + percent(set.confidence) +
                          " of positions repeat)";
        return set;
    }
    return set;
}

} // namespace

std::vector<IterationSpan> findIterations(const Trace& t, std::optional<ProcessId> process) {
    std::map<std::string, std::map<int, IterationSpan>> byStem;
    // Millions of ranges share a few thousand names: parse each name once.
    std::unordered_map<uint32_t, std::optional<int>> numberOfName;
    for (uint32_t i = 0; i < t.ranges.size(); ++i) {
        if (t.ranges.kind[i] == RangeKind::Mark || (t.ranges.flags[i] & kPytorchMarker)) continue;
        if (!ofProcess(t, t.rangeThread(RangeId(i)), process)) continue;
        auto [cached, fresh] = numberOfName.try_emplace(t.ranges.name[i].value);
        if (fresh) cached->second = iterationNumber(t.str(t.ranges.name[i]));
        const auto n = cached->second;
        if (!n) continue;
        const std::string_view name = t.str(t.ranges.name[i]);
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
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.start < b.start; });
    return out;
}

IterationSet iterationsOf(const Trace& t, std::optional<ProcessId> process) {
    IterationSet set;
    set.spans = findIterations(t, process);
    if (!set.spans.empty()) {
        set.rule = IterationRule::Ranges;
        set.confidence = 1;
        set.explanation = std::to_string(set.spans.size()) + " iteration ranges";
        return set;
    }
    const auto ops = opSpans(t, process);
    const bool training = std::any_of(ops.begin(), ops.end(), [&](const OpSpan& o) {
        return t.ops.direction[o.op] == Direction::Optimizer;
    });
    if (training) return byOptimizerSteps(t, ops);
    std::vector<OpSpan> forward;
    for (const OpSpan& o : ops)
        if (t.ops.direction[o.op] == Direction::Forward) forward.push_back(o);
    return byRepeatingOps(t, forward);
}

void findTraceIterations(Trace& trace) {
    IterationSet set = iterationsOf(trace);
    trace.iterations = std::move(set.spans);
    trace.iterationRule = set.rule;
    trace.iterationConfidence = set.confidence;
    if (set.rule == IterationRule::OptimizerSteps || set.rule == IterationRule::RepeatingOps) {
        trace.report.add(Anomaly::IterationsDetected, trace.iterations.size(), set.explanation);
        // The layer tree heads its paths with them, by name (core/views/layer_tree.h).
        for (const IterationSpan& span : trace.iterations) trace.strings.intern(span.name);
    }
}

TimeNs gpuOpIterationTime(const Trace& t, const GpuOpColumns& c, size_t i) {
    const ApiCallId call = c.launch[i];
    return call.valid() && call.value < t.apiCalls.size() ? t.apiCalls.start[call.value]
                                                          : c.start[i];
}

TimeNs kernelIterationTime(const Trace& t, KernelId k) {
    return gpuOpIterationTime(t, t.kernels, k.value);
}

int iterationAt(const std::vector<IterationSpan>& spans, TimeNs at) {
    // Spans do not overlap; the last one starting at or before `at` is the candidate.
    auto it = std::upper_bound(spans.begin(), spans.end(), at,
                               [](TimeNs v, const IterationSpan& s) { return v < s.start; });
    if (it == spans.begin()) return -1;
    --it;
    return at <= it->end ? static_cast<int>(it - spans.begin()) : -1;
}

} // namespace ls
