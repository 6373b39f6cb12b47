#include "core/reports/iteration_summary.h"

#include "core/costs/collective.h"
#include "core/pytorch/iterations.h"
#include "core/reports/intervals.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

namespace ls {
namespace {

// Rows of a GPU table in order of their starts: the rows themselves where the model keeps them so
// (always, after assembly), else sorted.
template <typename Starts> std::vector<uint32_t> byStart(const Starts& start, size_t n) {
    std::vector<uint32_t> order;
    if (std::is_sorted(start.begin(), start.begin() + static_cast<std::ptrdiff_t>(n))) return order;
    order.resize(n);
    for (uint32_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return start[a] < start[b]; });
    return order;
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

    // Each GPU operation goes to the iteration its launch call started in. One pass over the
    // kernels, copies and sets merged in order of their starts feeds each iteration's unions as
    // it goes: a union needs its intervals in that order, and no interval is kept (at 5M kernels
    // the grouped copies took a second and 200 MB).
    const auto& kernels = t.kernels;
    std::vector<int8_t> isComm(t.strings.size(), -1); // per kernel name: -1 not yet known
    std::vector<UnionLength> all(spans.size()), comm(spans.size());
    std::vector<std::array<UnionLength, 4>> byDirection(spans.size());
    s.rows.resize(spans.size());
    for (size_t i = 0; i < spans.size(); ++i) {
        IterationRow& r = s.rows[i];
        r.gpuStart = std::numeric_limits<TimeNs>::max();
        r.gpuEnd = std::numeric_limits<TimeNs>::min();
    }
    auto place = [&](int i, TimeNs start, TimeNs end) {
        IterationRow& r = s.rows[static_cast<size_t>(i)];
        r.gpuStart = std::min(r.gpuStart, start);
        r.gpuEnd = std::max(r.gpuEnd, end);
        all[static_cast<size_t>(i)].add(start, end);
    };
    const GpuOpColumns* tables[3] = {&kernels, &t.memcpys, &t.memsets};
    std::vector<uint32_t> orders[3];
    size_t next[3] = {0, 0, 0};
    for (size_t k = 0; k < 3; ++k) orders[k] = byStart(tables[k]->start, tables[k]->size());
    auto rowAt = [&](size_t k, size_t at) { return orders[k].empty() ? at : orders[k][at]; };
    for (;;) {
        // The table whose next row starts first (kernels first among equal starts).
        size_t from = 3;
        TimeNs earliest = std::numeric_limits<TimeNs>::max();
        for (size_t k = 0; k < 3; ++k)
            if (next[k] < tables[k]->size()) {
                const TimeNs start = tables[k]->start[rowAt(k, next[k])];
                if (from == 3 || start < earliest) {
                    from = k;
                    earliest = start;
                }
            }
        if (from == 3) break;
        const size_t row = rowAt(from, next[from]++);
        const GpuOpColumns& c = *tables[from];
        const TimeNs when = from == 0 ? kernelIterationTime(t, KernelId(static_cast<uint32_t>(row)))
                                      : gpuOpIterationTime(t, c, row);
        const int i = iterationAt(spans, when);
        if (i < 0) continue;
        const TimeNs start = c.start[row], end = c.end[row];
        place(i, start, end);
        if (from != 0) continue;
        ++s.rows[static_cast<size_t>(i)].kernels;
        byDirection[static_cast<size_t>(i)][static_cast<size_t>(t.kernelLinks.direction[row])].add(
            start, end);
        int8_t& known = isComm[kernels.name[row].value];
        if (known < 0) known = collectiveOfKernel(t.str(kernels.name[row])) != Collective::None;
        if (known) comm[static_cast<size_t>(i)].add(start, end);
    }

    std::vector<double> durations;
    for (size_t i = 0; i < spans.size(); ++i) {
        IterationRow& r = s.rows[i];
        r.name = spans[i].name;
        r.number = spans[i].number;
        r.start = spans[i].start;
        r.end = spans[i].end;
        if (r.gpuStart > r.gpuEnd) { // launched no GPU work: its span is the CPU's
            r.gpuStart = r.start;
            r.gpuEnd = r.end;
        }
        r.busy = all[i].length();
        r.forward = byDirection[i][static_cast<size_t>(Direction::Forward)].length();
        r.backward = byDirection[i][static_cast<size_t>(Direction::Backward)].length();
        r.optimizer = byDirection[i][static_cast<size_t>(Direction::Optimizer)].length();
        r.comm = comm[i].length();
        r.idle = r.duration() - r.busy;
        durations.push_back(static_cast<double>(r.duration()));
    }
    for (size_t i : iqrOutliers(durations)) s.rows[i].outlier = true;

    IterationRow& m = s.median;
    m.name = "median";
    m.start = medianOf(s.rows, [](const IterationRow& r) { return r.start; });
    m.end = m.start + medianOf(s.rows, [](const IterationRow& r) { return r.cpuDuration(); });
    m.gpuStart = medianOf(s.rows, [](const IterationRow& r) { return r.gpuStart; });
    m.gpuEnd = m.gpuStart + medianOf(s.rows, [](const IterationRow& r) { return r.duration(); });
    m.kernels = static_cast<uint64_t>(
        medianOf(s.rows, [](const IterationRow& r) { return static_cast<TimeNs>(r.kernels); }));
    m.busy = medianOf(s.rows, [](const IterationRow& r) { return r.busy; });
    m.forward = medianOf(s.rows, [](const IterationRow& r) { return r.forward; });
    m.backward = medianOf(s.rows, [](const IterationRow& r) { return r.backward; });
    m.optimizer = medianOf(s.rows, [](const IterationRow& r) { return r.optimizer; });
    m.comm = medianOf(s.rows, [](const IterationRow& r) { return r.comm; });
    m.idle = medianOf(s.rows, [](const IterationRow& r) { return r.idle; });
    return s;
}

} // namespace ls
