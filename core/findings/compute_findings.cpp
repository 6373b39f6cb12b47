#include "core/findings/compute_findings.h"

#include "core/findings/finding_text.h"
#include "core/reports/roofline.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace ls {
namespace {

// The time a point's kernels would take under another compute roof, at the same fraction of the
// roof they reach now: the roofline's two terms, scaled.
double timeUnderRoof(const RooflinePoint& p, double newComputeRoof) {
    const double bw = p.bandwidth();
    const double memoryTime = std::isfinite(bw) && bw > 0 ? p.bytes / bw : 0;
    const double now = std::max(p.flops / p.computeRoof(), memoryTime);
    const double then = std::max(p.flops / newComputeRoof, memoryTime);
    return now > 0 ? static_cast<double>(p.gpuTimeNs) * then / now
                   : static_cast<double>(p.gpuTimeNs);
}

std::vector<Finding> noTensorCores(const FindingScope& scope, const IterationWindows& windows,
                                   const std::vector<RooflinePoint>& points) {
    std::vector<Finding> out;
    const Trace& t = *scope.trace;
    double gpu = 0, saved = 0, flops = 0;
    uint64_t kernels = 0;
    std::string gpuName;
    for (const RooflinePoint& p : points) {
        if (p.tc != TcState::NotUsed || !p.peaks) continue;
        if (p.dtype != DType::F32 && p.dtype != DType::F16 && p.dtype != DType::BF16) continue;
        const double roof = p.dtype == DType::F32   ? p.peaks->tf32Tc
                            : p.dtype == DType::F16 ? p.peaks->fp16Tc
                                                    : p.peaks->bf16Tc;
        const double now = p.computeRoof();
        if (!std::isfinite(roof) || !std::isfinite(now) || roof <= now) continue;
        gpu += static_cast<double>(p.gpuTimeNs);
        saved += static_cast<double>(p.gpuTimeNs) - timeUnderRoof(p, roof);
        flops += p.flops;
        kernels += p.kernels;
        gpuName = p.gpu;
    }
    const double n = std::max(1, windows.iterations);
    if (!kernels || saved / n < 0.01 * windows.periodNs) return out;
    Finding f;
    f.rule = "no_tensor_cores";
    f.costMsPerIteration = saved / n / 1e6;
    f.statement = scope.prefix + std::to_string(kernels) +
                  " GEMM/convolution kernels run on CUDA cores where their type allows Tensor "
                  "Cores: " +
                  findingMs(gpu) + " of GPU time, " + findingMs(saved) +
                  " less at the same fraction of the Tensor Core roof";
    f.bound = "the Tensor Core roof of their type on " + gpuName +
              " (TF32 for fp32), at the fraction of the roof they reach now";
    f.fix = "For fp32 models allow TF32 (torch.backends.cuda.matmul.allow_tf32 = True, "
            "torch.set_float32_matmul_precision(\"high\")) or train under bf16 autocast.";
    f.figures = {{"gpu_time_ns", gpu},
                 {"kernels", static_cast<double>(kernels)},
                 {"saved_ns", saved},
                 {"iterations", n}};
    f.evidence.trace = scope.traceIndex;
    f.evidence.ranks = scope.ranks;
    std::vector<std::pair<TimeNs, KernelId>> byTime;
    for (uint32_t k = 0; k < t.kernels.size() && k < t.metrics.tc.size(); ++k)
        if (t.metrics.tc[k] == TcState::NotUsed)
            byTime.push_back({t.kernels.duration(k), KernelId(k)});
    std::sort(byTime.begin(), byTime.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t i = 0; i < byTime.size() && i < kMaxEvidence; ++i)
        f.evidence.kernels.push_back(byTime[i].second);
    if (!byTime.empty()) {
        f.evidence.windowStart = t.kernels.start[byTime[0].second.value];
        f.evidence.windowEnd = t.kernels.end[byTime[0].second.value];
    }
    f.evidence.text = "kernels with Tensor Cores not used, longest first";
    out.push_back(std::move(f));
    return out;
}

// What differs in an outlier: per kernel name, its GPU time inside the outlier's GPU span less
// its time inside the typical iteration's (the row whose duration is nearest the median).
struct KernelDelta {
    StringId name;
    TimeNs extra = 0;
    uint64_t countOutlier = 0, countTypical = 0;
};

KernelDelta largestKernelDelta(const Trace& t, const IterationRow& outlier,
                               const IterationRow& typical, std::vector<KernelId>& kernels) {
    std::vector<TimeNs> delta(t.strings.size(), 0);
    std::vector<uint64_t> inOutlier(t.strings.size(), 0), inTypical(t.strings.size(), 0);
    auto walk = [&](const IterationRow& r, TimeNs sign, std::vector<uint64_t>& count) {
        const auto& starts = t.kernels.start;
        auto it = std::lower_bound(starts.begin(), starts.end(), r.gpuStart);
        for (; it != starts.end() && *it < r.gpuEnd; ++it) {
            const auto k = static_cast<size_t>(it - starts.begin());
            const StringId name = t.kernels.name[k];
            if (!name.valid()) continue;
            delta[name.value] += sign * t.kernels.duration(k);
            ++count[name.value];
        }
    };
    walk(outlier, 1, inOutlier);
    walk(typical, -1, inTypical);
    KernelDelta best;
    for (uint32_t s = 0; s < delta.size(); ++s)
        if (delta[s] > best.extra) best = {StringId(s), delta[s], inOutlier[s], inTypical[s]};
    if (!best.name.valid()) return best;
    const auto& starts = t.kernels.start;
    auto it = std::lower_bound(starts.begin(), starts.end(), outlier.gpuStart);
    for (; it != starts.end() && *it < outlier.gpuEnd && kernels.size() < kMaxEvidence; ++it) {
        const auto k = static_cast<uint32_t>(it - starts.begin());
        if (t.kernels.name[k] == best.name) kernels.push_back(KernelId(k));
    }
    return best;
}

struct Gap {
    TimeNs start = 0, length = 0;
    std::string what; // the idle cause and its detail, as idle_sum names them
};

Gap longestGap(const GpuIdle& idle, uint32_t device, const IterationRow& r) {
    Gap best;
    for (const GpuGap& g : idle.gaps) {
        if (g.device != device || g.end <= r.gpuStart || g.start >= r.gpuEnd) continue;
        const TimeNs length = std::min(g.end, r.gpuEnd) - std::max(g.start, r.gpuStart);
        if (length <= best.length) continue;
        best.start = std::max(g.start, r.gpuStart);
        best.length = length;
        best.what = std::string(idleCauseName(g.cause)) +
                    (g.detail.empty() ? "" : " \"" + std::string(g.detail) + "\"");
    }
    return best;
}

std::vector<Finding> slowIterations(const FindingScope& scope, const IterationWindows& windows,
                                    const GpuIdle& idle) {
    std::vector<Finding> out;
    const IterationSummary& s = windows.summary;
    const double n = std::max(1, windows.iterations);
    for (const IterationRow& r : s.rows) {
        if (!r.outlier || r.duration() <= s.median.duration()) continue;
        const double extra = static_cast<double>(r.duration() - s.median.duration());
        if (extra / n < 0.01 * windows.periodNs) continue;
        Finding f;
        f.rule = "slow_iteration";
        f.costMsPerIteration = extra / n / 1e6;
        const double busyDiff = static_cast<double>(r.busy) - static_cast<double>(s.median.busy);
        const double idleDiff = static_cast<double>(r.idle) - static_cast<double>(s.median.idle);
        f.statement =
            scope.prefix + r.name + " takes " + findingMs(static_cast<double>(r.duration())) +
            " on the GPU against a " + findingMs(static_cast<double>(s.median.duration())) +
            " median: " + findingMs(busyDiff) + " more busy, " + findingMs(idleDiff) + " more idle";
        f.bound = "its GPU span less the median iteration's, spread over the iterations";
        f.fix = busyDiff > idleDiff ? "Compare its kernels with a typical iteration's (diff "
                                      "--by iteration): recompilation, a different shape, or "
                                      "warm-up work such as cuDNN autotuning."
                                    : "Look at what the host did in it (garbage collection, "
                                      "checkpointing, logging, a slow data batch).";
        f.figures = {{"duration_ns", static_cast<double>(r.duration())},
                     {"median_ns", static_cast<double>(s.median.duration())},
                     {"iterations", n}};
        // The typical iteration to hold it against: the non-outlier nearest the median.
        const IterationRow* typical = nullptr;
        for (const IterationRow& o : s.rows)
            if (!o.outlier &&
                (!typical || std::llabs(o.duration() - s.median.duration()) <
                                 std::llabs(typical->duration() - s.median.duration())))
                typical = &o;
        const Gap longest = longestGap(idle, scope.device, r);
        if (idleDiff >= busyDiff && longest.length > 0) {
            // Idle makes the difference: what the host did during the longest wait.
            f.statement += "; its longest GPU gap, " +
                           findingMs(static_cast<double>(longest.length)) +
                           ", while the host was in " + longest.what;
            f.figures.push_back({"longest_gap_ns", static_cast<double>(longest.length)});
            f.evidence.windowStart = longest.start;
            f.evidence.windowEnd = longest.start + longest.length;
        } else if (typical) {
            const KernelDelta d = largestKernelDelta(*scope.trace, r, *typical, f.evidence.kernels);
            if (d.name.valid()) {
                f.statement += "; most of the extra GPU time in " +
                               std::string(scope.trace->str(d.name)) + " (" +
                               findingMs(static_cast<double>(d.extra)) + " more, " +
                               std::to_string(d.countOutlier) + " launches against " +
                               std::to_string(d.countTypical) + " in " + typical->name + ")";
                f.figures.push_back({"kernel_extra_ns", static_cast<double>(d.extra)});
                f.figures.push_back({"typical_number", static_cast<double>(typical->number)});
            }
        }
        f.evidence.trace = scope.traceIndex;
        f.evidence.ranks = scope.ranks;
        f.evidence.windowStart = r.windowStart();
        f.evidence.windowEnd = r.windowEnd();
        f.evidence.text = r.name + (f.evidence.kernels.empty()
                                        ? std::string()
                                        : ": the kernels that take most of its extra time");
        out.push_back(std::move(f));
    }
    return out;
}

} // namespace

std::vector<Finding> computeFindings(const FindingScope& scope, const IterationWindows& windows,
                                     const GpuIdle& idle,
                                     const std::vector<RooflinePoint>& points) {
    std::vector<Finding> out = noTensorCores(scope, windows, points);
    for (Finding& f : slowIterations(scope, windows, idle)) out.push_back(std::move(f));
    return out;
}

} // namespace ls
