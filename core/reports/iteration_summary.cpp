#include "core/reports/iteration_summary.h"

#include "core/costs/collective.h"
#include "core/pytorch/iterations.h"
#include "core/reports/intervals.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace ls {
namespace {

// Intervals grouped by iteration, in one array (offsets per group, as a CSR index): a count
// pass, then a fill pass; group g is items[offset[g], offset[g + 1]).
class GroupedIntervals {
  public:
    explicit GroupedIntervals(size_t groups) : offset_(groups + 2, 0) {}
    void count(int group) {
        if (group >= 0) ++offset_[static_cast<size_t>(group) + 2];
    }
    void allocate() {
        for (size_t g = 2; g < offset_.size(); ++g) offset_[g] += offset_[g - 1];
        items_.resize(offset_.back());
    }
    void add(int group, Interval iv) {
        if (group >= 0) items_[offset_[static_cast<size_t>(group) + 1]++] = iv;
    }
    // Length of the union of group g.
    TimeNs unionLength(size_t g) const {
        const auto first = items_.begin() + static_cast<std::ptrdiff_t>(offset_[g]);
        return lengthOf(
            unionOf({first, items_.begin() + static_cast<std::ptrdiff_t>(offset_[g + 1])}));
    }

  private:
    std::vector<size_t> offset_;
    std::vector<Interval> items_;
};

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

    // Each GPU operation's iteration, by where its launch call started.
    const auto& kernels = t.kernels;
    std::vector<int> kernelIteration(kernels.size()), copyIteration(t.memcpys.size()),
        setIteration(t.memsets.size());
    std::vector<int8_t> isComm(t.strings.size(), -1); // per kernel name: -1 not yet known
    for (uint32_t k = 0; k < kernels.size(); ++k) {
        kernelIteration[k] = iterationAt(spans, kernelIterationTime(t, KernelId(k)));
        int8_t& known = isComm[kernels.name[k].value];
        if (known < 0) known = collectiveOfKernel(t.str(kernels.name[k])) != Collective::None;
    }
    for (size_t i = 0; i < t.memcpys.size(); ++i)
        copyIteration[i] = iterationAt(spans, gpuOpIterationTime(t, t.memcpys, i));
    for (size_t i = 0; i < t.memsets.size(); ++i)
        setIteration[i] = iterationAt(spans, gpuOpIterationTime(t, t.memsets, i));

    GroupedIntervals all(spans.size()), comm(spans.size());
    std::vector<GroupedIntervals> byDirection(4, GroupedIntervals(spans.size()));
    for (uint32_t k = 0; k < kernels.size(); ++k) {
        all.count(kernelIteration[k]);
        byDirection[static_cast<size_t>(t.kernelLinks.direction[k])].count(kernelIteration[k]);
        if (isComm[kernels.name[k].value]) comm.count(kernelIteration[k]);
    }
    for (int i : copyIteration) all.count(i);
    for (int i : setIteration) all.count(i);
    all.allocate();
    comm.allocate();
    for (auto& d : byDirection) d.allocate();

    s.rows.resize(spans.size());
    for (size_t i = 0; i < spans.size(); ++i) {
        IterationRow& r = s.rows[i];
        r.gpuStart = std::numeric_limits<TimeNs>::max();
        r.gpuEnd = std::numeric_limits<TimeNs>::min();
    }
    auto place = [&](int i, TimeNs start, TimeNs end) {
        if (i < 0) return;
        IterationRow& r = s.rows[static_cast<size_t>(i)];
        r.gpuStart = std::min(r.gpuStart, start);
        r.gpuEnd = std::max(r.gpuEnd, end);
        all.add(i, {start, end});
    };
    for (uint32_t k = 0; k < kernels.size(); ++k) {
        const int i = kernelIteration[k];
        if (i < 0) continue;
        const Interval iv{kernels.start[k], kernels.end[k]};
        place(i, iv.start, iv.end);
        ++s.rows[static_cast<size_t>(i)].kernels;
        byDirection[static_cast<size_t>(t.kernelLinks.direction[k])].add(i, iv);
        if (isComm[kernels.name[k].value]) comm.add(i, iv);
    }
    for (size_t c = 0; c < t.memcpys.size(); ++c)
        place(copyIteration[c], t.memcpys.start[c], t.memcpys.end[c]);
    for (size_t c = 0; c < t.memsets.size(); ++c)
        place(setIteration[c], t.memsets.start[c], t.memsets.end[c]);

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
        r.busy = all.unionLength(i);
        r.forward = byDirection[static_cast<size_t>(Direction::Forward)].unionLength(i);
        r.backward = byDirection[static_cast<size_t>(Direction::Backward)].unionLength(i);
        r.optimizer = byDirection[static_cast<size_t>(Direction::Optimizer)].unionLength(i);
        r.comm = comm.unionLength(i);
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
