#include "core/reports/iteration_summary.h"

#include "core/costs/collective.h"
#include "core/pytorch/iterations.h"
#include "core/reports/intervals.h"

#include <algorithm>
#include <cstdint>

namespace ls {
namespace {

// Time of `disjoint` inside [from, to].
TimeNs clippedLength(const std::vector<Interval>& disjoint, TimeNs from, TimeNs to) {
    auto it = std::lower_bound(disjoint.begin(), disjoint.end(), from, [](const Interval& i, TimeNs v) { return i.end <= v; });
    TimeNs total = 0;
    for (; it != disjoint.end() && it->start < to; ++it) total += std::min(it->end, to) - std::max(it->start, from);
    return total;
}

double quantile(std::vector<double> sorted, double q) {
    const double pos = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<size_t>(pos);
    const size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

template <typename Get> TimeNs medianOf(const std::vector<IterationRow>& rows, Get get) {
    std::vector<double> v;
    for (const auto& r : rows) v.push_back(static_cast<double>(get(r)));
    std::sort(v.begin(), v.end());
    return static_cast<TimeNs>(quantile(v, 0.5) + 0.5);
}

} // namespace

std::vector<size_t> iqrOutliers(const std::vector<double>& values) {
    std::vector<size_t> out;
    if (values.size() < 4) return out;
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    const double q1 = quantile(sorted, 0.25), q3 = quantile(sorted, 0.75), fence = 1.5 * (q3 - q1);
    for (size_t i = 0; i < values.size(); ++i)
        if (values[i] < q1 - fence || values[i] > q3 + fence) out.push_back(i);
    return out;
}

IterationSummary iterationSummary(const Trace& t) {
    IterationSummary s;
    s.rule = t.iterationRule;
    s.confidence = t.iterationConfidence;
    const auto& spans = t.iterations;
    if (spans.empty()) return s;

    // Every list sized first: grown a row at a time, each would be copied into fresh memory a
    // dozen times over a million kernels.
    std::vector<Interval> all, byDirection[4], comm;
    std::vector<int8_t> isComm(t.strings.size(), -1); // per kernel name: -1 not yet known
    {
        size_t inDirection[4] = {}, inComm = 0;
        for (uint32_t k = 0; k < t.kernels.size(); ++k) {
            ++inDirection[static_cast<size_t>(t.kernelLinks.direction[k])];
            int8_t& known = isComm[t.kernels.name[k].value];
            if (known < 0) known = collectiveOfKernel(t.str(t.kernels.name[k])) != Collective::None;
            inComm += static_cast<size_t>(known);
        }
        all.reserve(t.kernels.size() + t.memcpys.size() + t.memsets.size());
        for (size_t d = 0; d < 4; ++d) byDirection[d].reserve(inDirection[d]);
        comm.reserve(inComm);
    }
    auto addOps = [&](const GpuOpColumns& ops) { // each table is sorted by start: merged, not sorted again
        const size_t before = all.size();
        for (size_t i = 0; i < ops.size(); ++i) all.push_back({ops.start[i], ops.end[i]});
        std::inplace_merge(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(before), all.end(),
                           [](const Interval& a, const Interval& b) { return a.start < b.start; });
    };
    addOps(t.kernels);
    addOps(t.memcpys);
    addOps(t.memsets);
    s.rows.resize(spans.size());
    for (uint32_t k = 0; k < t.kernels.size(); ++k) {
        const Interval iv{t.kernels.start[k], t.kernels.end[k]};
        byDirection[static_cast<size_t>(t.kernelLinks.direction[k])].push_back(iv);
        if (isComm[t.kernels.name[k].value]) comm.push_back(iv);
        const int i = iterationAt(spans, kernelIterationTime(t, KernelId(k)));
        if (i >= 0) ++s.rows[static_cast<size_t>(i)].kernels;
    }
    const auto busy = unionOf(std::move(all)), commUnion = unionOf(std::move(comm));
    std::vector<Interval> directionUnion[4];
    for (size_t d = 0; d < 4; ++d) directionUnion[d] = unionOf(std::move(byDirection[d]));

    std::vector<double> durations;
    for (size_t i = 0; i < spans.size(); ++i) {
        IterationRow& r = s.rows[i];
        r.name = spans[i].name;
        r.number = spans[i].number;
        r.start = spans[i].start;
        r.end = spans[i].end;
        r.busy = clippedLength(busy, r.start, r.end);
        r.forward = clippedLength(directionUnion[static_cast<size_t>(Direction::Forward)], r.start, r.end);
        r.backward = clippedLength(directionUnion[static_cast<size_t>(Direction::Backward)], r.start, r.end);
        r.optimizer = clippedLength(directionUnion[static_cast<size_t>(Direction::Optimizer)], r.start, r.end);
        r.comm = clippedLength(commUnion, r.start, r.end);
        r.idle = r.duration() - r.busy;
        durations.push_back(static_cast<double>(r.duration()));
    }
    for (size_t i : iqrOutliers(durations)) s.rows[i].outlier = true;

    IterationRow& m = s.median;
    m.name = "median";
    m.start = medianOf(s.rows, [](const IterationRow& r) { return r.start; });
    m.end = m.start + medianOf(s.rows, [](const IterationRow& r) { return r.duration(); });
    m.kernels = static_cast<uint64_t>(medianOf(s.rows, [](const IterationRow& r) { return static_cast<TimeNs>(r.kernels); }));
    m.busy = medianOf(s.rows, [](const IterationRow& r) { return r.busy; });
    m.forward = medianOf(s.rows, [](const IterationRow& r) { return r.forward; });
    m.backward = medianOf(s.rows, [](const IterationRow& r) { return r.backward; });
    m.optimizer = medianOf(s.rows, [](const IterationRow& r) { return r.optimizer; });
    m.comm = medianOf(s.rows, [](const IterationRow& r) { return r.comm; });
    m.idle = medianOf(s.rows, [](const IterationRow& r) { return r.idle; });
    return s;
}

} // namespace ls
